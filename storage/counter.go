package storage

import "github.com/git-snap/git-snap/snapshot"

// A Counter computes the totals stored in each snapshot's header
// (snapshot.Totals) from a session's records, interpreting them the way
// the agent that wrote them does. A store knows nothing about agents:
// whoever opens it passes in the Counter (package session provides one
// that reads every agent git-snap supports), and a store without a
// Counter writes no totals.
//
// A store keeps the Tally of each session's newest snapshot between
// writes, so that an append counts only the records it adds. A hook call
// on a session of 50,000 records reads none of the existing records.
type Counter interface {
	// NewTally starts a count for a session recorded by source (an
	// agent's name; "" or an unknown name for documents saved by hand).
	NewTally(source string) Tally
	// TallyOf counts a whole document.
	TallyOf(doc map[string]any, source string) Tally
	// StreamTally counts a document one record at a time, so that a long
	// session does not have to be held in memory in full. rest holds the
	// document's members other than messages and events, stored is the
	// number of messages it holds, and record(i) reads message i (it is
	// called only for live records). StreamTally returns false, having
	// read nothing, when only the whole document can tell which records
	// are live; the caller should then use TallyOf.
	StreamTally(rest map[string]any, stored int, events []any, source string, record func(i int) (any, error)) (Tally, bool, error)
	// LiveIndex determines from rest alone which of the stored messages
	// are live, in order, and the file each one came from. It returns
	// false when only the messages themselves can tell.
	LiveIndex(rest map[string]any, stored int) (index []int, thread []string, ok bool)
	// ResumeTally restores a tally written by Tally.Marshal.
	ResumeTally(base, state []byte) (Tally, error)
}

// A Tally is a count in progress.
type Tally interface {
	// Source returns the agent whose record format the tally reads.
	Source() string
	// Totals returns the numbers stored in a snapshot's header.
	Totals() snapshot.Totals
	// Record counts one live record; thread is the file it came from.
	Record(raw any, thread string)
	// Event counts one recorded event.
	Event(raw any)
	// Append continues the count from one snapshot to the next (see
	// Delta). parent holds the first snapshot's members other than
	// messages and events, and the first snapshot stores stored
	// messages. next holds the second snapshot's members, which stores
	// the messages in added after those, and events holds the events
	// added after the first snapshot's. Append returns false, having
	// counted nothing, when the second snapshot's live records are not
	// the first's followed by some of added; the second snapshot must
	// then be counted in full.
	Append(parent map[string]any, stored int, next map[string]any, added, events []any) bool
	// Marshal encodes the tally as a base, which seldom changes, and a
	// state, which holds the changes since the base and stays small.
	// newBase is false when base is the same one ResumeTally was given.
	Marshal() (base []byte, newBase bool, state []byte)
}
