package session

import (
	"context"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// MessageText returns a stored message's text as a person reads it, one
// part after another: text, thinking, a tool call's name and input, and
// a tool result. log -S and -G search this text.
func MessageText(raw any) string {
	m := agent.ViewMessage(raw)
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Tool != "" {
			b.WriteString(p.Tool + "\n")
		}
		if p.Text != "" {
			b.WriteString(p.Text + "\n")
		}
		if p.Input != nil {
			if js, err := snapshot.MarshalIndent(p.Input); err == nil {
				b.Write(js)
			}
		}
	}
	return b.String()
}

// Pickaxe reports whether snapshot e changed the text of its messages
// (MessageText) compared with its parent, the way git's pickaxe reports
// whether a commit changed a file. With count, it reports whether count
// differs before and after for a message that e added, removed or
// changed (log -S STRING, where count returns the number of times STRING
// occurs). With lineMatch, it reports whether a matching line was added
// or removed (log -G REGEX). Only the messages that differ are read.
func Pickaxe(ctx context.Context, s storage.Snapshots, e storage.Entry, count func(text string) int, lineMatch func(line string) bool) (bool, error) {
	var d *snapshot.Diff
	var err error
	if e.Parent.IsZero() {
		doc, _, rerr := s.Read(ctx, e.ID)
		if rerr != nil {
			return false, rerr
		}
		d, err = snapshot.Compare(map[string]any{}, doc, agent.ViewMessage)
	} else {
		d, err = s.Diff(ctx, e.Parent, e.ID)
	}
	if err != nil {
		return false, err
	}
	for _, c := range d.Messages {
		before, after := "", ""
		if c.Before != nil {
			before = MessageText(c.Before)
		}
		if c.After != nil {
			after = MessageText(c.After)
		}
		if count != nil && count(before) != count(after) {
			return true, nil
		}
		if lineMatch != nil && !slices.Equal(matchingLines(before, lineMatch), matchingLines(after, lineMatch)) {
			return true, nil
		}
	}
	return false, nil
}

func matchingLines(text string, match func(string) bool) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if match(line) {
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}
