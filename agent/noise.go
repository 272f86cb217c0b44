package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Signal before noise. A session's snapshots hold, besides the
// conversation, records an agent writes for itself (Claude Code's
// progress lines and file-history notes), preambles the harness puts
// before the conversation (system and developer text, injected context)
// and members git-snap keeps for itself (a hook's read positions). The
// rules here and Record's say which is which; show, diff, the Markdown
// and HTML export and the web viewer all read them, so they agree.

// conversationRoles are the roles of records a person reads as the
// conversation.
var conversationRoles = map[string]bool{"user": true, "assistant": true, "system": true, "developer": true, "tool": true, "model": true, "human": true}

// Preambler is an adapter whose agent puts text into the conversation
// that no one typed and the model did not write: instructions, the
// environment, reminders. IsPreamble reports whether a record of its is
// one.
type Preambler interface {
	IsPreamble(record any) bool
}

// bookkeeping are the members git-snap writes into a captured document
// for itself: where each transcript file was read to (transcript), the
// turn count, the files a hook looked at, and who and where.
var bookkeeping = []string{"transcript", "turns", "touched_files", "agent", "session_id", "cwd"}

// IsBookkeeping reports whether a member path ("transcript",
// "$.transcript.files[0].offset") is one git-snap keeps for itself:
// diffs leave such changes out unless asked for everything.
func IsBookkeeping(path string) bool {
	p := strings.TrimPrefix(strings.TrimPrefix(path, "$"), ".")
	name := p
	if i := strings.IndexAny(p, ".["); i >= 0 {
		name = p[:i]
	}
	return slices.Contains(bookkeeping, name)
}

// Hidden is what HideNoise left out of a diff.
type Hidden struct {
	// Records counts the records left out, by change and kind:
	// "added progress" → 3.
	Records map[string]int
	// Paths counts the bookkeeping member paths left out; Members names
	// those members.
	Paths   int
	Members []string
}

// Empty reports whether nothing was left out.
func (h Hidden) Empty() bool { return len(h.Records) == 0 && h.Paths == 0 }

// String says what was left out, in one line without the advice:
// "1 record that is not conversation (added progress), 4 changed paths
// of git-snap's bookkeeping (transcript)".
func (h Hidden) String() string {
	var parts []string
	if n := sum(h.Records); n > 0 {
		var kinds []string
		for _, k := range sortedKeys(h.Records) {
			kinds = append(kinds, fmt.Sprintf("%s ×%d", k, h.Records[k]))
		}
		parts = append(parts, fmt.Sprintf("%d %s not conversation (%s)", n, plural(n, "record that is", "records that are"), strings.Join(kinds, ", ")))
	}
	if h.Paths > 0 {
		parts = append(parts, fmt.Sprintf("%d changed %s of git-snap's bookkeeping (%s)", h.Paths, plural(h.Paths, "path", "paths"), strings.Join(h.Members, ", ")))
	}
	return strings.Join(parts, ", ")
}

// HideNoise is d without the records that are not conversation and the
// changes of bookkeeping members, and what it left out. d is not
// changed. A diff may compare two sessions, so its records are read as
// ViewMessage reads them (the zero Reader).
func HideNoise(d *snapshot.Diff) (*snapshot.Diff, Hidden) {
	out := *d
	h := Hidden{Records: map[string]int{}}
	out.Messages = nil
	for _, c := range d.Messages {
		v := c.After
		if c.Op == snapshot.OpRemoved {
			v = c.Before
		}
		if rec := (Reader{}).Read(v); !rec.IsConversation() {
			h.Records[c.Op+" "+rec.Kind()]++
			continue
		}
		out.Messages = append(out.Messages, c)
	}
	out.Members = nil
	for _, m := range d.Members {
		if IsBookkeeping(m.Path) {
			h.Paths++
			name := strings.TrimPrefix(strings.TrimPrefix(m.Path, "$"), ".")
			if i := strings.IndexAny(name, ".["); i >= 0 {
				name = name[:i]
			}
			if !slices.Contains(h.Members, name) {
				h.Members = append(h.Members, name)
			}
			continue
		}
		out.Members = append(out.Members, m)
	}
	slices.Sort(h.Members)
	return &out, h
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
