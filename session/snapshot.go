package session

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Snapshot is a snapshot as git snap show, the export, the viewer and
// the MCP server read it (gitsnap.Show): its header, every member except
// its messages, its checkpoints, and the list of its live records. The
// records are read one at a time, so that a session of any length is
// never held in memory in full.
type Snapshot struct {
	// Rev is the revision that was requested.
	Rev   string
	Entry storage.Entry
	// Others is the snapshot's document except for its messages (from
	// ReadWithoutMessages): the other members, the events and the captured files.
	Others map[string]any
	// Checkpoints lists the names of the checkpoints set on this
	// snapshot, oldest first. SessionCheckpoints lists every checkpoint
	// of its session.
	Checkpoints        []string
	SessionCheckpoints []storage.Checkpoint
	// Records holds the live records (see LiveRecords).
	Records *Records
	// Reader reads the records as the agent named in the header does.
	Reader agent.Reader
}

// Numbers counts the snapshot's live records, events and captured files
// the way its agent counts them (agent.NumbersOf), reading each record
// once.
func (s *Snapshot) Numbers(ctx context.Context) (agent.Numbers, error) {
	events, _ := s.Others[snapshot.MemberEvents].([]any)
	files, _ := s.Others[snapshot.MemberFiles].(map[string]any)
	return s.Records.Count(ctx, s.Entry.Header.Source, 0, events, len(files))
}
