package storage

import "github.com/git-snap/git-snap/snapshot"

// A Counter counts a session's records into the totals each snapshot's
// header keeps (snapshot.Totals), the way the agent that wrote them
// reads them. A store knows no agent: whoever opens it gives it the
// Counter (package session's reads every agent git-snap knows), and a
// store given none writes no totals.
//
// A store keeps the Tally of each session's tip between writes, so that
// an append counts only the records it adds: a hook call on a session
// of 50,000 records reads none of them.
type Counter interface {
	// NewTally begins a count of a session recorded by source (an
	// agent's name; "" or an unknown name for documents saved by hand).
	NewTally(source string) Tally
	// TallyOf counts a whole document.
	TallyOf(doc map[string]any, source string) Tally
	// StreamTally counts a document one record at a time, so that a
	// long session need not be held whole: rest are its members but
	// messages and events, stored how many messages it holds, record(i)
	// reads message i (asked only for live ones). It returns false,
	// having read nothing, when only the whole document tells which
	// records are live: then TallyOf counts it.
	StreamTally(rest map[string]any, stored int, events []any, source string, record func(i int) (any, error)) (Tally, bool, error)
	// LiveIndex lists which of stored messages are live, in order, and
	// the file each came from, from rest alone; false when only the
	// messages themselves tell.
	LiveIndex(rest map[string]any, stored int) (index []int, thread []string, ok bool)
	// ResumeTally reads a tally Tally.Marshal wrote.
	ResumeTally(base, state []byte) (Tally, error)
}

// A Tally is a count in progress.
type Tally interface {
	// Source is the agent the tally reads records as.
	Source() string
	// Totals are the numbers a snapshot's header keeps.
	Totals() snapshot.Totals
	// Record counts one live record; thread is the file it is from.
	Record(raw any, thread string)
	// Event counts one recorded event.
	Event(raw any)
	// Append goes on counting from one snapshot to the next (see
	// Delta): parent is the first's members but messages and events,
	// holding stored messages; next is the second's, which stores added
	// after them, and events after the first's. It returns false, having
	// counted nothing, when the second's live records are not the
	// first's followed by some of added: the second must be counted
	// whole.
	Append(parent map[string]any, stored int, next map[string]any, added, events []any) bool
	// Marshal writes the tally as a base, which changes seldom, and a
	// state, which holds what changed since the base and stays small;
	// newBase is false when base is the one ResumeTally read it with.
	Marshal() (base []byte, newBase bool, state []byte)
}
