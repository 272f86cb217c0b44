package session

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Snapshot is a snapshot as git snap show, the export, the viewer and
// the MCP server read it (gitsnap.Show): its header, every member but
// its messages, its checkpoints, and its live records listed, to be
// read one at a time so that a session of any length is never held
// whole.
type Snapshot struct {
	// Rev is the revision it was asked for by.
	Rev   string
	Entry storage.Entry
	// Rest is its document but for its messages (ReadRest): the other
	// members, the events and the captured files.
	Rest map[string]any
	// Checkpoints names the checkpoints set on it, oldest first;
	// SessionCheckpoints are every checkpoint of its session.
	Checkpoints        []string
	SessionCheckpoints []storage.Checkpoint
	// Records are its live records (LiveRecords).
	Records *Records
	// Reader reads the records as the agent its header names.
	Reader agent.Reader
}

// Numbers counts the snapshot's live records, events and captured files
// as its agent counts them (agent.NumbersOf), reading each record once.
func (s *Snapshot) Numbers(ctx context.Context) (agent.Numbers, error) {
	events, _ := s.Rest[snapshot.MemberEvents].([]any)
	files, _ := s.Rest[snapshot.MemberFiles].(map[string]any)
	return s.Records.Count(ctx, s.Entry.Header.Source, 0, events, len(files))
}
