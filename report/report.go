// Package report renders a stored session as a document for a person:
// CommonMark Markdown to paste into a pull request or an issue, or one
// self-contained HTML page. Load reads a session (or the part of it
// between two snapshots) into a Session; WriteMarkdown and WriteHTML
// render it. The web viewer renders its timeline with the same Session
// and WriteHTML, so there is one renderer of a session (docs/design.md §1).
//
// Everything read from a transcript is untrusted: the Markdown keeps it
// from opening HTML or headings of its own, the HTML escapes all of it
// and runs no script.
package report

import (
	"html/template"
	"time"

	"github.com/git-snap/git-snap/prices"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
)

// Session is a stored session read for a person: its header and its
// turns, in order.
type Session struct {
	Name     string // the session's name
	Agent    string // what recorded it: claude-code, codex, cli, …
	Models   []string
	Snapshot string // id of the snapshot read (the end of the range)
	Seq      int    // its place in the session
	From     string // id of the range's start snapshot, "" for the whole session
	FromSeq  int
	Code     string // the code commit of the snapshot read, when recorded
	Dirty    bool   // the work tree had changes not in Code
	// First and Last are the times of the records in the range, zero when
	// none has one.
	First, Last time.Time
	// Numbers are the range's statistics with a cost estimate.
	Numbers agent.Numbers
	Turns   []Turn
	// Other counts the records that are not conversation (progress lines,
	// events, file-history notes), by role; they are not shown.
	Other map[string]int
	// Events counts the lifecycle events a harness recorded in the range
	// (see capture.Recorder); they are not shown.
	Events int
	// Tools are the tools the range calls, in the order the document
	// first shows each, its subagents' among them.
	Tools       []string
	stream      *stream              // set by Open until EachTurn has read the turns
	threadTurns map[int]int          // see ThreadTurns
	calls       *snapshot.CallReader // see EachCall
}

// EachCall gives fn the model calls of the session up to the snapshot
// read, before a range's start too (snapshot.ModelCalls), in order;
// their Records are places among the session's live records, as
// Turn.Start and End are. Only a Session read with Options.Calls has
// them. They are kept compactly and made as they are given: a session
// of 200,000 records has 100,000 calls, over 50 MB as Call values.
func (s *Session) EachCall(fn func(c snapshot.Call)) {
	if s.calls != nil {
		s.calls.Each(fn)
	}
}

// Turn is one prompt and everything until the next: the answer, tool
// calls with their results, checkpoints set, the files it changed.
// Records before the first prompt make turn 0.
type Turn struct {
	N      int    // 1 for the session's first prompt, counted from the session's start
	ID     string // stable element id: "turn-N"
	Time   string // of the prompt, as recorded
	Prompt string
	// Continued is a turn a range starts inside: its prompt is before it.
	Continued bool
	Items     []Item
	// Files are the captured files that changed between the snapshots
	// around the turn (see Load).
	Files []snapshot.FileChange
	// Start and End are the places of the turn's records among the
	// session's live records: from Start up to, not with, End.
	Start, End int
}

// Item kinds.
const (
	KindText       = "text"       // the model's answer
	KindThinking   = "thinking"   // the model's reasoning, when recorded
	KindTool       = "tool"       // a tool call with its result
	KindContext    = "context"    // other input: system or developer text, injected user text
	KindResult     = "result"     // a tool result whose call is not in the range
	KindCompaction = "compaction" // the conversation was summarised here
	KindCheckpoint = "checkpoint" // a named snapshot was taken here
	KindSubagent   = "subagent"   // a subagent's thread that no tool call in the range started
)

// Item is one thing in a turn, in the order it happened.
type Item struct {
	Kind  string
	ID    string // stable element id: "msg-I" or, for tools, "tool-I-J"
	Index int    // the record's index in the session's messages
	Role  string
	Time  string
	Text  string // text, thinking, context, an orphan result; a checkpoint's name
	Tool  *ToolCall
	// Subagent is the thread of a KindSubagent item.
	Subagent *Subagent
	// HTML, when set on an answer, is shown by WriteHTML instead of Text:
	// the web viewer renders the model's Markdown into it (safely: no raw
	// HTML, no script URLs). Load leaves it empty.
	HTML template.HTML
}

// ToolCall is a tool the model called and what came back.
type ToolCall struct {
	Name    string
	CallID  string
	Summary string // one line of what the call is about: a command, a path, a pattern
	Input   string // indented JSON, or the text the model gave
	// Diff is the change an editing call asked for, as a diff, when its
	// input names one (old and new text of a file, a patch).
	Diff      string
	Result    string
	HasResult bool
	Failed    bool
	// Subagent is the thread of the subagent the call ran, when the
	// agent records one (Claude Code's Task).
	Subagent *Subagent

	at partKey // where the call is: its record and part
}

// Subagent is the thread of a subagent the session ran: what it was
// given, what it said and the tools it called, in order. Its records
// stay in the turn they arrived in (Turn.Start and End), but are shown
// here, not among the turn's items.
type Subagent struct {
	Name    string // the agent's name for it
	ID      string // stable element id: "subagent-NAME"
	Items   []Item
	Records []int // its records' places among the session's live records
}

// ToolCalls counts the subagent's tool calls.
func (s *Subagent) ToolCalls() int {
	n := 0
	for _, it := range s.Items {
		if it.Kind == KindTool {
			n++
		}
	}
	return n
}

// Options choose what Load reads.
type Options struct {
	// From is a revision: only what happened after it is read (the range
	// From..rev). Empty: the whole session up to rev.
	From string
	// Prices put the cost estimate on the tokens (prices.Load: the
	// dataset with the user's prices over it); nil: the embedded dataset.
	Prices *prices.Prices
	// NoFiles skips the diffs of captured files, which read the snapshots
	// at turn boundaries.
	NoFiles bool
	// Calls reads the whole session's model calls, for
	// Session.EachCall, which the viewer charts. Left unset, there are
	// none: a long session's are tens of bytes a call, more than its
	// outline needs.
	Calls bool
}
