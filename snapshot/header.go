package snapshot

import (
	"fmt"
	"strings"
	"time"
)

// Header describes a snapshot: which session it belongs to and what
// happened. It is stored in the commit message (subject and trailers),
// not in the tree, so that a log needs to read only commits.
type Header struct {
	Session string
	Seq     int    // 1 for a session's first snapshot, then 2, 3, …
	Turn    int    // the agent's turn, 0 when not known
	Label   string // what happened: "PostToolUse Edit", "Stop", …
	Source  string // what saved it: "cli", "claude-code", "import", …
	Message string // free text; when set, it is the commit subject
	Time    time.Time
	Started time.Time // time of the session's first snapshot
	Code    string    // commit checked out in the work tree when saved, if any
	Dirty   bool      // the work tree had changes not in Code

	Messages int // counts of the document's members
	Events   int
	Files    int

	RollbackOf string // the snapshot this one restores, for rollback
	Redacted   int    // secrets replaced before the snapshot was written

	// Counted reports whether Totals were computed when the snapshot was
	// written. Snapshots written before totals existed, or by a writer
	// that could not compute them, have none; a reader computes them from
	// the document instead.
	Counted bool
	Totals  Totals
}

// Totals sums up a snapshot's records as the agent that recorded them
// interprets them (agent.Numbers): model calls, tool calls, tokens of
// each kind, and the time range of the records. Totals are stored in
// the commit message, so that listing and summing sessions reads only
// commits, never trees.
type Totals struct {
	// Messages counts the conversation's messages as a person would
	// (prompts, answers, tool calls and results), not its records.
	Messages                                                     int
	ModelCalls, ToolCalls, ToolFailures, Turns, Compactions      int
	InputTokens, CacheReadTokens, CacheWriteTokens, OutputTokens int64
	Estimated                                                    bool // some token counts were estimated from text
	First, Last                                                  time.Time
	ByModel                                                      []ModelUsage // by model name, for a cost estimate
}

// ModelUsage is the token usage of one model.
type ModelUsage struct {
	Model string
	Usage
}

// plainName reports whether name holds only ASCII letters, digits, '.',
// '_' and '-', and starts with none of '.' and '-'. A pull checks the
// name of every session a remote holds, 100k of them: a loop, not a
// regular expression.
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		case (c == '.' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// CheckName accepts session and checkpoint names: letters, digits, '.',
// '_' and '-', not starting with '-' or '.', at most 200 characters.
// Such names are valid in every git ref and cannot be mistaken for an
// option or a path.
func CheckName(kind, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s name is empty", kind)
	case len(name) > 200:
		return fmt.Errorf("%s name is longer than 200 characters", kind)
	case !plainName(name):
		return fmt.Errorf("%s name %q may hold only letters, digits, '.', '_' and '-', and must start with a letter, digit or '_'", kind, name)
	case strings.HasSuffix(name, ".lock"), strings.HasSuffix(name, "."), strings.Contains(name, ".."):
		return fmt.Errorf("%s name %q must not contain '..', nor end in .lock or '.' (git refuses such ref names)", kind, name)
	}
	return nil
}
