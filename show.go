package gitsnap

import (
	"context"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// SnapshotReader reads snapshots and their contents piece by piece,
// which is what ShowFrom needs from a store. A storage.Reader implements
// it, and so does a reader that takes a lock for each call (such as the
// viewer's).
type SnapshotReader interface {
	storage.Snapshots
	storage.Contents
}

// Show reads the snapshot that rev names, as git snap show displays it
// (see session.Snapshot). It is the single place that reads what show,
// the export, the viewer and the MCP server need from a snapshot.
func (r *Repository) Show(ctx context.Context, rev string) (*session.Snapshot, error) {
	return ShowFrom(ctx, r.store, rev)
}

// ShowFrom is like Show, but reads from s. It resolves rev, reads the
// snapshot except for its messages, and lists its session's checkpoints
// and its live records, listing the message blocks once and reading no
// record. The snapshot's Numbers are computed only on request, because
// a report counts its own range as it reads.
func ShowFrom(ctx context.Context, s SnapshotReader, rev string) (*session.Snapshot, error) {
	id, err := s.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	rest, e, err := s.ReadWithoutMessages(ctx, id)
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
	return &session.Snapshot{Rev: rev, Entry: e, Others: rest, Checkpoints: namesOn(cps, e.ID), SessionCheckpoints: cps,
		Records: recs, Reader: agent.ReaderFor(e.Header.Source)}, nil
}

// CheckpointsOn returns the names of the checkpoints set on snapshot e,
// oldest first. It reads the session's checkpoints but no snapshot.
func CheckpointsOn(ctx context.Context, s storage.Snapshots, e storage.Entry) ([]string, error) {
	cps, err := s.Checkpoints(ctx, e.Header.Session, false)
	if err != nil {
		return nil, err
	}
	return namesOn(cps, e.ID), nil
}

// namesOn returns the names of the checkpoints in cps that are set on
// snapshot id.
func namesOn(cps []storage.Checkpoint, id storage.ID) []string {
	var names []string
	for _, cp := range cps {
		if cp.Target == id {
			names = append(names, cp.Name)
		}
	}
	return names
}
