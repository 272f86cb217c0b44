package gitstore

import (
	"context"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
)

// ChangedFiles lists the captured files a snapshot changed from its
// (first) parent, added, changed (content or mode) or removed, sorted; a
// session's first snapshot changed every file it captured. With under,
// only paths equal to one of them or inside one (a folder) are listed:
// git log -- PATH reads it. Only trees are read, no file's content.
func (s *Store) ChangedFiles(ctx context.Context, e Entry, under []string) ([]string, error) {
	now, err := s.Files(ctx, e)
	if err != nil {
		return nil, err
	}
	var before FileSet
	if !e.Parent.IsZero() {
		pe, err := s.Entry(ctx, e.Parent)
		if err != nil {
			return nil, err
		}
		if before, err = s.Files(ctx, pe); err != nil {
			return nil, err
		}
	}
	if before.ID == now.ID {
		return nil, nil
	}
	old := make(map[string]FileID, len(before.Files))
	for _, f := range before.Files {
		old[f.Path] = f
	}
	var out []string
	for _, f := range now.Files {
		if o, ok := old[f.Path]; !ok || o != f {
			out = append(out, f.Path)
		}
		delete(old, f.Path)
	}
	for p := range old {
		out = append(out, p)
	}
	out = slices.DeleteFunc(out, func(p string) bool { return !underAny(p, under) })
	slices.Sort(out)
	return out, nil
}

// underAny reports whether path is one of dirs or inside one; any path
// is when dirs is empty.
func underAny(path string, dirs []string) bool {
	if len(dirs) == 0 {
		return true
	}
	for _, d := range dirs {
		d = strings.TrimSuffix(strings.TrimPrefix(d, "./"), "/")
		if d == "" || d == "." || path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// MessageText is a stored message's text as a person reads it, one part
// after another: text, thinking, a tool call's name and input, a tool
// result. log -S and -G look in it.
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

// Pickaxe tells whether snapshot e changed, from its parent, the text of
// its messages (MessageText) as git's pickaxe tells a commit changed a
// file: with count, whether the sum of count over the messages it added,
// removed or changed differs before and after (log -S STRING: the number
// of times STRING occurs); with lineMatch, whether a line that matches
// was added or removed (log -G REGEX). Only what differs is read.
func (s *Store) Pickaxe(ctx context.Context, e Entry, count func(text string) int, lineMatch func(line string) bool) (bool, error) {
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
