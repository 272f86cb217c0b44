package provenance

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
)

// maxPrompt bounds a prompt's first line as blame shows it.
const maxPrompt = 200

// prompt is the first line of a session's prompt of turn n (from 1), as
// the timeline numbers turns: the main thread's prompts, in order. The
// session's records are read from its tip once, as far as the turn, and
// the prompts read are kept in the index.
func (ix *index) prompt(ctx context.Context, sl *sessionLines, n int) (string, error) {
	if n <= 0 {
		return "", nil
	}
	if sl.PromptsAt != sl.Tip || n > len(sl.Prompts) && !sl.PromptsWhole {
		prompts, whole, err := readPrompts(ctx, ix.s, sl, n)
		if err != nil {
			return "", err
		}
		sl.Prompts, sl.PromptsAt, sl.PromptsWhole = prompts, sl.Tip, whole
		ix.keep(sl)
	}
	if n > len(sl.Prompts) {
		return "", nil
	}
	return sl.Prompts[n-1], nil
}

// readPrompts reads the first lines of the session's prompts at its tip,
// at least n of them when it has them, and more up to the end of the
// block of records the nth is in; whole says all were read.
func readPrompts(ctx context.Context, s Store, sl *sessionLines, n int) (prompts []string, whole bool, err error) {
	e, err := s.Entry(ctx, sl.Tip)
	if err != nil {
		return nil, false, err
	}
	rest, err := s.Others(ctx, sl.Tip)
	if err != nil {
		return nil, false, err
	}
	recs, err := session.LiveRecords(ctx, s, e, rest)
	if err != nil {
		return nil, false, err
	}
	rd := agent.ReaderFor(e.Header.Source)
	threads := rd.Threads()
	for k := 0; k < recs.Len(); k++ {
		if len(prompts) >= n && k%128 == 0 {
			return prompts, false, nil
		}
		raw, err := recs.At(ctx, k)
		if err != nil {
			return nil, false, err
		}
		if threads != nil && threads.Thread(raw) != "" {
			continue
		}
		if rec := rd.Read(raw); rd.IsPrompt(rec) {
			prompts = append(prompts, firstLine(rec.Message))
		}
	}
	return prompts, true, nil
}

// firstLine is a prompt's first line of text, cut to maxPrompt bytes.
func firstLine(m snapshot.Message) string {
	text := ""
	for _, p := range m.Parts {
		if p.Kind == snapshot.PartText {
			text = p.Text
			break
		}
	}
	text = strings.TrimSpace(text)
	text, _, _ = strings.Cut(text, "\n")
	text = strings.TrimSpace(text)
	if len(text) > maxPrompt {
		cut := maxPrompt
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}
