package gitsnap

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// SnapshotReader reads snapshots and their contents piece by piece: what
// ShowFrom needs of a store. A storage.Reader is one, and so is a reader
// that takes a lock for each call (the viewer's).
type SnapshotReader interface {
	storage.Snapshots
	storage.Contents
}

// Show reads the snapshot rev names as git snap show shows it (see
// session.Snapshot): what show, the export, the viewer and the MCP
// server read of a snapshot, read in one place.
func (r *Repository) Show(ctx context.Context, rev string) (*session.Snapshot, error) {
	return ShowFrom(ctx, r.store, rev)
}

// ShowFrom is Show on s: it resolves rev, reads the snapshot but for its
// messages, lists its session's checkpoints and its live records,
// listing the message blocks once and reading no record. Its Numbers
// are counted when asked for: a report counts its own range as it reads.
func ShowFrom(ctx context.Context, s SnapshotReader, rev string) (*session.Snapshot, error) {
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
	return &session.Snapshot{Rev: rev, Entry: e, Rest: rest, Checkpoints: namesOn(cps, e.ID), SessionCheckpoints: cps,
		Records: recs, Reader: agent.ReaderFor(e.Header.Source)}, nil
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
