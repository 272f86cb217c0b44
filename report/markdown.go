package report

import (
	"bufio"
	"context"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/git-snap/git-snap/internal/lazy"
)

// WriteMarkdown writes the session as CommonMark (with GitHub's tables):
// a header table, then a "## Turn N" section per turn with the prompt
// quoted, the answer, each tool call as a <details class="tool-call">
// block holding its input and result in code fences, the files the turn
// changed as diffs, and checkpoints where they were taken. Text from the
// transcript cannot open HTML, headings of the document's levels, or
// leave a code fence open.
//
// A session from Open is written a turn at a time as it is read
// (Session.EachTurn), so that a long one is never held whole.
func WriteMarkdown(ctx context.Context, w io.Writer, s *Session) error {
	bw := bufio.NewWriter(w)
	md := &mdWriter{w: bw}
	md.header(s)
	n := 0
	err := s.EachTurn(ctx, func(t *Turn) error {
		n++
		md.turn(t)
		return md.err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		md.para("*Nothing happened in this range.*")
	}
	if note := notShown(s); note != "" {
		md.para("*" + mdInline(note) + "*")
	}
	if md.err != nil {
		return md.err
	}
	return bw.Flush()
}

type mdWriter struct {
	w   *bufio.Writer
	err error
}

func (m *mdWriter) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

// para writes a block followed by a blank line.
func (m *mdWriter) para(s string) { m.printf("%s\n\n", strings.TrimRight(s, "\n")) }

func (m *mdWriter) header(s *Session) {
	m.para("# Session " + mdInline(s.Name))
	m.printf("| | |\n|---|---|\n")
	for _, row := range headerRows(s) {
		m.printf("| %s | %s |\n", row[0], mdInline(row[1]))
	}
	m.printf("\n")
}

func (m *mdWriter) turn(t *Turn) {
	m.para(fmt.Sprintf("## %s", mdInline(turnTitle(t))))
	if t.Prompt != "" {
		m.para(quote(mdText(t.Prompt)))
	}
	for i := range t.Items {
		m.item(&t.Items[i])
	}
	if len(t.Files) > 0 {
		m.para("### Files changed")
		for _, f := range t.Files {
			m.printf("<details class=\"file-diff\" open>\n<summary>%s</summary>\n\n", html.EscapeString(fileSummary(f)))
			if f.Patch != "" {
				m.para(fenced("diff", f.Patch))
			}
			m.para("</details>")
		}
	}
}

func (m *mdWriter) item(it *Item) {
	switch it.Kind {
	case KindText:
		m.para(mdText(it.Text))
	case KindThinking, KindContext:
		label := it.Kind
		if it.Kind == KindContext {
			label = it.Role + " text"
		}
		m.printf("<details class=\"%s\">\n<summary>%s</summary>\n\n", it.Kind, html.EscapeString(oneLine(label, 80)))
		m.para(mdText(it.Text))
		m.para("</details>")
	case KindTool, KindResult:
		m.tool(it)
		if it.Tool.Subagent != nil {
			m.subagent(it.Tool.Subagent)
		}
	case KindSubagent:
		m.subagent(it.Subagent)
	case KindCompaction:
		m.para("*— the conversation was compacted here —*")
	case KindCheckpoint:
		m.para(fmt.Sprintf("**⚑ checkpoint %s**", mdInline(it.Text)))
	}
}

// subagent writes a subagent's thread folded, as the HTML shows it.
func (m *mdWriter) subagent(s *Subagent) {
	m.printf("<details class=\"subagent\" id=\"%s\">\n<summary>%s</summary>\n\n", html.EscapeString(s.ID),
		html.EscapeString(fmt.Sprintf("subagent %s · %d entries, %d tool calls", oneLine(s.Name, 80), len(s.Items), s.ToolCalls())))
	for i := range s.Items {
		m.item(&s.Items[i])
	}
	m.para("</details>")
}

func (m *mdWriter) tool(it *Item) {
	c := it.Tool
	m.printf("<details class=\"%s\" id=\"%s\">\n<summary>%s</summary>\n\n", toolClass(it), it.ID, html.EscapeString(toolSummary(it)))
	if it.Kind == KindTool && c.Diff != "" {
		m.para("change")
		m.para(fenced("diff", c.Diff))
	}
	if it.Kind == KindTool {
		m.para("input")
		m.para(fenced(langOf(c.Input), c.Input))
	}
	switch {
	case c.HasResult && c.Failed:
		m.para("result (**failed**)")
	case c.HasResult:
		m.para("result")
	default:
		m.para("*no result recorded*")
	}
	if c.HasResult {
		m.para(fenced("text", c.Result))
	}
	m.para("</details>")
}

// fenced puts s in a code fence longer than any run of backticks in it,
// so that nothing in s can close it.
func fenced(lang, s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + fence
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func langOf(input string) string {
	if strings.HasPrefix(input, "{") || strings.HasPrefix(input, "[") {
		return "json"
	}
	return "text"
}

// quote puts Markdown in a block quote.
func quote(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// mdPunct is the punctuation that could start markup inline (CommonMark
// lets a backslash escape any ASCII punctuation).
var mdPunct = lazy.Regexp("[\\\\`*_\\[\\]<>|&~!]")

// mdInline makes s one line of literal text: whitespace folded, the
// punctuation that starts markup escaped (so "|" cannot end a table
// cell, "<" open HTML, "*" emphasis).
func mdInline(s string) string {
	return mdPunct().ReplaceAllString(strings.Join(strings.Fields(s), " "), `\$0`)
}

var (
	fenceOpen  = lazy.Regexp("^ {0,3}(`{3,}|~{3,})")
	atxHeading = lazy.Regexp(`^((?:[ \t]*>[ \t]?)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(#{1,6})([ \t]|$)`)
	setextLine = lazy.Regexp(`^((?:[ \t]*>[ \t]?)*) {0,3}(?:=+|-+)[ \t]*$`)
)

// mdText keeps a transcript's Markdown readable as Markdown, and unable
// to break the document around it: "<" is written as an entity outside
// code (no HTML, no comment, no autolink), headings move down three
// levels (the document's own are 1 to 3), a line that would make the
// paragraph above a heading is set apart, and a fence left open is
// closed.
func mdText(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var out []string
	fence := "" // the open fence's run, "" outside code
	prevText := false
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if fence != "" {
			out = append(out, line)
			if t := strings.TrimSpace(line); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" && len(line)-len(strings.TrimLeft(line, " ")) <= 3 {
				fence = ""
			}
			continue
		}
		if f := fenceOpen().FindStringSubmatch(line); f != nil && (f[1][0] != '`' || !strings.Contains(line[len(f[0]):], "`")) {
			fence = f[1]
			out = append(out, line)
			prevText = false
			continue
		}
		if u := setextLine().FindStringSubmatch(line); u != nil && prevText {
			out = append(out, strings.TrimSpace(u[1])) // a break in the paragraph (or quote) above
		}
		if h := atxHeading().FindStringSubmatch(line); h != nil && !indentedCode(h[1]) {
			line = h[1] + strings.Repeat("#", min(6, len(h[2])+3)) + line[len(h[1])+len(h[2]):]
		}
		out = append(out, escapeOutsideCode(line))
		prevText = strings.Trim(line, " \t>") != ""
	}
	if fence != "" {
		out = append(out, fence)
	}
	return strings.Join(out, "\n")
}

// indentedCode reports whether a heading's prefix is four columns of
// white space and nothing else: code, where "#" is a comment.
func indentedCode(prefix string) bool {
	return strings.TrimLeft(prefix, " \t") == "" && len(strings.ReplaceAll(prefix, "\t", "    ")) >= 4
}

// escapeOutsideCode writes "<" as "&lt;" except inside code spans, where
// entities are not read, and keeps a link to a script from being one:
// a renderer that passes links through (not every one drops javascript:,
// and the exported file is opened in many) would run it on a click.
func escapeOutsideCode(line string) string {
	line = unlinkDangerous(line)
	if !strings.Contains(line, "<") {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] == '`' {
			n := runAt(line, i)
			if end := closingRun(line, i+n, n); end >= 0 {
				b.WriteString(line[i:end])
				i = end
				continue
			}
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		if line[i] == '<' {
			b.WriteString("&lt;")
		} else {
			b.WriteByte(line[i])
		}
		i++
	}
	return b.String()
}

func runAt(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// closingRun finds the end of the backtick run of exactly n that closes
// a code span opened before from, or -1.
func closingRun(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		k := runAt(s, i)
		if k == n {
			return i + k
		}
		i += k
	}
	return -1
}

// refDefinition is a link reference definition's start: [label]:
var refDefinition = lazy.Regexp(`^ {0,3}\[[^\]]*\]:`)

// unlinkDangerous escapes the "(" of an inline link, or the "[" of a
// reference definition, whose destination names a scheme other than
// http, https and mailto (javascript:, vbscript:, data:, …), so that
// CommonMark reads it as text: "[x](javascript:…)" is shown, not linked.
// The scheme is read as a browser would, entities decoded and tabs,
// newlines and other control characters dropped.
func unlinkDangerous(line string) string {
	if m := refDefinition().FindStringIndex(line); m != nil && dangerousDest(line[m[1]:]) {
		i := strings.IndexByte(line, '[')
		line = line[:i] + `\` + line[i:]
	}
	if !strings.Contains(line, "](") {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == '(' && i > 0 && line[i-1] == ']' && (i < 2 || line[i-2] != '\\') && dangerousDest(line[i+1:]) {
			b.WriteString(`\(`)
			continue
		}
		b.WriteByte(line[i])
	}
	return b.String()
}

// dangerousDest reports whether a link destination at the start of s
// names a scheme other than http, https or mailto.
func dangerousDest(s string) bool {
	s = html.UnescapeString(strings.TrimLeft(s, " \t<"))
	var scheme strings.Builder
	for _, r := range s {
		switch {
		case r <= ' ' || r == 0x7f || r == '\\':
			continue // browsers drop these in a scheme
		case r == ':':
			name := strings.ToLower(scheme.String())
			return name != "http" && name != "https" && name != "mailto"
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
			scheme.WriteRune(r)
		default:
			return false // a path, a fragment: no scheme
		}
	}
	return false
}
