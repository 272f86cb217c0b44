// Package agent is everything one agent is to git-snap, one file per
// agent: what its hooks send, where its transcripts and settings live,
// how its records read as messages, and how its files are imported; plus
// the Recorder and Replay that any harness uses, Ingest that records an
// agent's transcript as it grows, and Trace that reads a session back.
package agent

import (
	"fmt"
	"sort"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Payload is what an agent's hook call says, decoded.
type Payload struct {
	Agent          string // adapter name
	Event          string // SessionStart, PostToolUse, Stop, …
	SessionID      string
	TranscriptPath string // the main transcript; "" when the agent gives none
	CWD            string
	Tool           string         // the tool of a tool event
	ToolInput      map[string]any // its input, when given
	// Subagent names a subagent transcript the event gives (SubagentStop).
	Subagent string
	Raw      map[string]any
}

// Label says what happened, for the snapshot's header: "PostToolUse Edit".
func (p Payload) Label() string {
	if p.Tool != "" {
		return p.Event + " " + p.Tool
	}
	return p.Event
}

// Adapter is one agent's side of git-snap. Adding an agent is one file
// with one of these.
type Adapter interface {
	// Name is the agent's name on the command line: claude-code, codex.
	Name() string
	// Decode reads a hook call: the payload on stdin and the arguments
	// after `git snap hook <agent>` (Codex's notify passes its payload as
	// the last argument).
	Decode(stdin []byte, args []string) (Payload, error)
	// Transcripts lists the files of a session's transcript beside the
	// main one (subagents), as name → path; names are relative to the
	// main transcript's directory.
	Transcripts(p Payload) (map[string]string, error)
	// IsPrompt reports whether a transcript record is a prompt the user
	// typed: turns are counted by them.
	IsPrompt(record any) bool
	// CompactEvent is the hook event that comes before a compaction.
	CompactEvent() string
	// TouchedFiles lists the paths a record's tool calls wrote.
	TouchedFiles(record any) []string
	// Check tells whether a transcript's first records are of this
	// agent, so that a file given with the wrong --from is refused.
	Check(records []any) error
	// View reads a record of this agent's transcript as a message for
	// show, diff, stats, trace and replay; ok is false for a record not
	// of its shape.
	View(record any) (m snapshot.Message, ok bool)
	// IsCompaction reports whether a record marks where the agent
	// compacted the conversation.
	IsCompaction(record any) bool
}

// Adapters lists the agents git-snap knows, in the order their records
// are told apart by ViewMessage: Codex's envelope first.
func Adapters() []Adapter {
	return []Adapter{Codex{}, ClaudeCode{}}
}

// ViewMessage reads a stored record with the view of the agent whose
// shape it has, else with snapshot.ViewMessage. It is the
// snapshot.Viewer for stats, diffs and merges of agents' sessions.
func ViewMessage(v any) snapshot.Message {
	for _, a := range Adapters() {
		if m, ok := a.View(v); ok {
			return m
		}
	}
	return snapshot.ViewMessage(v)
}

// isCompaction reports whether any agent reads a record as a compaction:
// a session recorded from a harness has no adapter to ask.
func isCompaction(record any) bool {
	for _, a := range Adapters() {
		if a.IsCompaction(record) {
			return true
		}
	}
	return false
}

// Lookup finds an adapter by name.
func Lookup(name string) (Adapter, error) {
	var names []string
	for _, a := range Adapters() {
		if a.Name() == name {
			return a, nil
		}
		names = append(names, a.Name())
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown agent %q: git-snap knows %s", name, strings.Join(names, ", "))
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
