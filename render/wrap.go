package render

import (
	"strings"
	"unicode/utf8"

	"github.com/git-snap/git-snap/internal/lazy"
)

var (
	wrapFence  = lazy.Regexp("^ {0,3}(`{3,}|~{3,})")
	wrapPrefix = lazy.Regexp(`^([ \t]*(?:>[ \t]?)*)((?:[-*+]|\d{1,9}[.)])[ \t]+)?`)
)

// WrapMarkdown wraps the long lines of Markdown text at width columns,
// between words, as a person would reflow it: code (fenced, or indented
// four spaces), tables and headings are kept as they are; a wrapped
// line of a block quote or a list item goes on with its quote markers
// and under the item's text. A word longer than the width (a URL, a
// path) stays whole. width <= 0 keeps every line.
func WrapMarkdown(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	fence := ""
	for _, line := range lines {
		switch {
		case fence != "":
			if t := strings.TrimSpace(line); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			out = append(out, line)
			continue
		case wrapFence().MatchString(line):
			fence = wrapFence().FindStringSubmatch(line)[1]
			out = append(out, line)
			continue
		}
		t := strings.TrimLeft(line, " \t>")
		if utf8.RuneCountInString(line) <= width || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") ||
			strings.HasPrefix(t, "|") || strings.HasPrefix(t, "#") {
			out = append(out, line)
			continue
		}
		out = append(out, wrapLine(line, width)...)
	}
	return strings.Join(out, "\n")
}

// wrapLine wraps one line, repeating its quote markers and indenting
// its continuation under a list item's text.
func wrapLine(line string, width int) []string {
	m := wrapPrefix().FindStringSubmatch(line)
	first := m[0]
	next := m[1] + strings.Repeat(" ", utf8.RuneCountInString(m[2]))
	words := strings.Fields(line[len(first):])
	var out []string
	cur, n := first, utf8.RuneCountInString(first)
	empty := true
	for _, w := range words {
		wn := utf8.RuneCountInString(w)
		if !empty && n+1+wn > width {
			out = append(out, cur)
			cur, n, empty = next, utf8.RuneCountInString(next), true
		}
		if !empty {
			cur += " "
			n++
		}
		cur += w
		n += wn
		empty = false
	}
	return append(out, cur)
}
