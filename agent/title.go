package agent

import (
	"strings"
	"unicode"

	"github.com/git-snap/git-snap/snapshot"
)

// Titler is an adapter whose agent gives a session a title of its own:
// Claude Code's /rename and the summaries it writes, OpenCode's session
// title. Title is "" for a document that holds none.
type Titler interface {
	Title(doc map[string]any) string
}

// Title is the title the agent that recorded doc gave its session, or ""
// when it gave none.
func Title(doc map[string]any) string {
	for _, a := range viewers() {
		if t, ok := a.(Titler); ok {
			if title := strings.TrimSpace(t.Title(doc)); title != "" {
				return title
			}
		}
	}
	return ""
}

// FirstPrompt is the text of the first prompt among msgs, on one line and
// at most max runes: what a person recognises a session by. A record an
// agent reads is a prompt when that agent says so (IsPrompt); any other
// is one when it is a user message that starts with text.
func FirstPrompt(msgs []any, max int) string {
	for _, raw := range msgs {
		m := ViewMessage(raw)
		prompt := m.Role == "user" && len(m.Parts) > 0 && m.Parts[0].Kind == snapshot.PartText
		for _, a := range viewers() {
			if _, ok := a.View(raw); ok {
				prompt = a.IsPrompt(raw)
				break
			}
		}
		if prompt && len(m.Parts) > 0 {
			return OneLine(m.Parts[0].Text, max)
		}
	}
	return ""
}

// OneLine folds text's white space into single spaces and cuts it at max
// runes, marking a cut with "…".
func OneLine(text string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); max > 0 && len(r) > max {
		return strings.TrimRightFunc(string(r[:max-1]), unicode.IsSpace) + "…"
	}
	return text
}

// Slug makes a short session name of a title: lower case letters and
// digits, words joined by '-', at most 40 characters, cut at a word; ""
// when the title has no letter or digit.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	s := b.String()
	for len(s) > 40 {
		i := strings.LastIndexByte(s[:40], '-')
		if i <= 0 {
			s = s[:40]
			break
		}
		s = s[:i]
	}
	return s
}
