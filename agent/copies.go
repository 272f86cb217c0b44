package agent

import (
	"path"
)

// Mirrorer is a Threads whose agent copies each record of a running
// subagent into its parent's transcript (Claude Code's agent_progress
// records), so that a parent whose subagents' own files are gone still
// holds their work.
//
// A subagent's work counts once: from its own file when the session
// holds it, else from the copies. Counting (Tally) reads it by record:
// each record of a subagent counts once by its id, whether it comes from
// the file or from a copy (the file holds every record copied from it).
// Readers that show the work (Session, the report) read the copies of a
// subagent whose file the session's layout lists as the mirrors they
// are, and the others as that subagent's records, in a thread of its
// own (Copies.Place).
type Mirrorer interface {
	Threads
	// Mirrored reads a record that copies one of a subagent's: the
	// subagent, and the record as its own file holds it, marked as that
	// subagent's (so Thread names it); ok is false for any other record.
	Mirrored(record any) (subagent string, copied map[string]any, ok bool)
	// SubagentFile is the base name of a subagent's own transcript.
	SubagentFile(subagent string) string
}

// Copies says how the copies of a session's subagents' records read:
// which subagents' own files the session holds.
type Copies struct {
	m   Mirrorer
	own map[string]bool // base names of the files the layout lists
}

// CopiesIn reads, of a document's members (rest: its layout), how the
// copies of its subagents' records read, for agent a (nil, or an agent
// that makes no copies: every record reads as it is).
func CopiesIn(a Adapter, rest map[string]any) Copies {
	m, ok := a.(Mirrorer)
	if !ok {
		return Copies{}
	}
	c := Copies{m: m, own: map[string]bool{}}
	l, _ := LayoutFrom(rest)
	for _, f := range l.Files {
		if f.Name != "" {
			c.own[path.Base(f.Name)] = true
		}
	}
	return c
}

// Place reads one live record of the file thread: a copy of a record of
// a subagent whose own file the session does not hold reads as that
// record (rec), in the subagent's thread, named as its file would be;
// placed says so. Any other record reads as it is.
func (c Copies) Place(raw any, thread string) (rec any, th string, placed bool) {
	if c.m == nil {
		return raw, thread, false
	}
	sub, copied, ok := c.m.Mirrored(raw)
	if !ok || c.own[c.m.SubagentFile(sub)] {
		return raw, thread, false
	}
	return copied, c.m.SubagentFile(sub), true
}
