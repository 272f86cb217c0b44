package gitsnap

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// SnapshotReader reads snapshots and their contents piece by piece: what
// ShowFrom needs of a store. A storage.Reader is one, and so is a reader
// that takes a lock for each call (the viewer's).
type SnapshotReader interface {
	storage.Snapshots
	storage.Contents
}

// Snapshot is a snapshot as git snap show, the export, the viewer and
// the MCP server read it: its header, every member but its messages, its
// checkpoints, and its live records listed, to be read one at a time so
// that a session of any length is never held whole.
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
	// Records are its live records (session.LiveRecords).
	Records *session.Records
	// Reader reads the records as the agent its header names.
	Reader agent.Reader
}

// Show reads the snapshot rev names as git snap show shows it (see
// Snapshot).
func (r *Repository) Show(ctx context.Context, rev string) (*Snapshot, error) {
	return ShowFrom(ctx, r.store, rev)
}

// ShowFrom is Show on s: it resolves rev, reads the snapshot but for its
// messages, lists its session's checkpoints and its live records, listing
// the message blocks once and reading no record.
func ShowFrom(ctx context.Context, s SnapshotReader, rev string) (*Snapshot, error) {
	id, err := s.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	rest, e, err := s.ReadRest(ctx, id)
	if err != nil {
		return nil, err
	}
	cps, err := s.Checkpoints(ctx, e.Header.Session, false)
	if err != nil {
		return nil, err
	}
	recs, err := session.LiveRecords(ctx, s, e, rest)
	if err != nil {
		return nil, err
	}
	return &Snapshot{Rev: rev, Entry: e, Rest: rest, Checkpoints: namesOn(cps, e.ID), SessionCheckpoints: cps,
		Records: recs, Reader: agent.ReaderFor(e.Header.Source)}, nil
}

// Numbers counts the snapshot's live records, events and captured files
// as its agent counts them (agent.NumbersOf), reading each record once.
func (s *Snapshot) Numbers(ctx context.Context) (agent.Numbers, error) {
	events, _ := s.Rest[snapshot.MemberEvents].([]any)
	files, _ := s.Rest[snapshot.MemberFiles].(map[string]any)
	return s.Records.Count(ctx, s.Entry.Header.Source, 0, events, len(files))
}

// CheckpointsOn names the checkpoints set on snapshot e, oldest first,
// reading its session's checkpoints but no snapshot.
func CheckpointsOn(ctx context.Context, s storage.Snapshots, e storage.Entry) ([]string, error) {
	cps, err := s.Checkpoints(ctx, e.Header.Session, false)
	if err != nil {
		return nil, err
	}
	return namesOn(cps, e.ID), nil
}

// namesOn names those of cps set on snapshot id.
func namesOn(cps []storage.Checkpoint, id storage.ID) []string {
	var names []string
	for _, cp := range cps {
		if cp.Target == id {
			names = append(names, cp.Name)
		}
	}
	return names
}
