package session

import (
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Counter counts records the way the agent that wrote them interprets
// them. It is the storage.Counter a store is opened with, so that each
// snapshot's header holds its totals (messages, turns, tool calls,
// tokens by model…).
type Counter struct{}

var _ storage.Counter = Counter{}

// View reads a record as a message, the way the agent that wrote it
// interprets it. It is the snapshot.Viewer a store is opened with.
func View(raw any) snapshot.Message { return agent.ViewMessage(raw) }

// NewTally starts a count for a session recorded by source.
func (Counter) NewTally(source string) storage.Tally { return tally{agent.NewTally(source)} }

// TallyOf counts a whole document.
func (Counter) TallyOf(doc map[string]any, source string) storage.Tally {
	return tally{agent.TallyOf(doc, source)}
}

// StreamTally counts a document one record at a time (agent.TallyStream).
func (Counter) StreamTally(rest map[string]any, stored int, events []any, source string, record func(i int) (any, error)) (storage.Tally, bool, error) {
	t, ok, err := agent.TallyStream(rest, stored, events, source, record)
	if !ok || err != nil {
		return nil, ok, err
	}
	return tally{t}, true, nil
}

// LiveIndex returns which stored messages are live (agent.LiveIndex).
func (Counter) LiveIndex(rest map[string]any, stored int) ([]int, []string, bool) {
	return agent.LiveIndex(rest, stored)
}

// ResumeTally restores a tally written by Marshal.
func (Counter) ResumeTally(base, state []byte) (storage.Tally, error) {
	t, err := agent.UnmarshalParts(base, state)
	if err != nil {
		return nil, err
	}
	return tally{t}, nil
}

// tally adapts an agent.Tally to the storage.Tally interface.
type tally struct{ *agent.Tally }

func (t tally) Record(raw any, thread string) { t.Tally.Record(raw, agent.ViewMessage(raw), thread) }

func (t tally) Marshal() (base []byte, newBase bool, state []byte) { return t.MarshalParts() }
