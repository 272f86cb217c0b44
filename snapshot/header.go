package snapshot

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-snap/git-snap/internal/lazy"
)

// Header describes a snapshot: where it belongs and what happened. It is
// kept in the commit (subject and trailers), not in the tree, so that a
// log reads commits only.
type Header struct {
	Session string
	Seq     int    // 1 for a session's first snapshot, then 2, 3, …
	Turn    int    // the agent's turn, 0 when not known
	Label   string // what happened: "PostToolUse Edit", "Stop", …
	Source  string // what took it: "cli", "claude-code", "import", …
	Message string // free text, the commit subject when set
	Time    time.Time
	Started time.Time // time of the session's first snapshot
	Code    string    // commit of the work tree when taken, if any
	Dirty   bool      // the work tree had changes not in Code

	Messages int // counts of the document's members
	Events   int
	Files    int

	RollbackOf string // the snapshot this one restores, for rollback
	Redacted   int    // secrets replaced before the snapshot was written

	// Counted says that Totals were added up when the snapshot was
	// written; snapshots written before totals existed, or by a writer
	// that could not count them, have none, and a reader counts their
	// document instead.
	Counted bool
	Totals  Totals
}

// Totals are what a snapshot's records add up to, as the agent that
// recorded them reads them (agent.Numbers): model calls, tool calls,
// tokens of each kind, the span of the records' times. They are kept in
// the commit message, so that listing and summing sessions reads
// commits and never trees.
type Totals struct {
	// Messages are the conversation's messages as a person counts them
	// (prompts, answers, tool calls and results), not its records.
	Messages                                                     int
	ModelCalls, ToolCalls, ToolFailures, Turns, Compactions      int
	InputTokens, CacheReadTokens, CacheWriteTokens, OutputTokens int64
	Estimated                                                    bool // some token counts were estimated from text
	First, Last                                                  time.Time
	ByModel                                                      []ModelUsage // by model name, for a cost estimate
}

// ModelUsage is the tokens one model used.
type ModelUsage struct {
	Model string
	Usage
}

var namePattern = lazy.Regexp(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// CheckName accepts session and checkpoint names: letters, digits, '.',
// '_' and '-', not starting with '-' or '.', at most 200 characters.
// Such names are valid in every git ref and cannot be taken for an
// option or a path.
func CheckName(kind, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s name is empty", kind)
	case len(name) > 200:
		return fmt.Errorf("%s name is longer than 200 characters", kind)
	case !namePattern().MatchString(name):
		return fmt.Errorf("%s name %q may hold only letters, digits, '.', '_' and '-', and must start with a letter, digit or '_'", kind, name)
	case strings.HasSuffix(name, ".lock"), strings.HasSuffix(name, "."), strings.Contains(name, ".."):
		return fmt.Errorf("%s name %q must not contain '..', nor end in .lock or '.' (git refuses such ref names)", kind, name)
	}
	return nil
}
