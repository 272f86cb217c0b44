package gitstore

import (
	"context"
	"fmt"

	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/snapshot"
)

// opened is a snapshot read down to its snapshot.json, not its messages,
// events or files: what an append builds on and a diff starts from.
type opened struct {
	storage.Entry

	tree *layout.Tree
	rest map[string]any
}

// openSnapshot reads a snapshot's commit, root tree and snapshot.json.
func (s *Store) openSnapshot(ctx context.Context, id storage.ID) (opened, error) {
	e, err := s.Entry(ctx, id)
	if err != nil {
		return opened{}, err
	}
	tree, err := s.reader.Open(e.Tree)
	if err != nil {
		return opened{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	rest, err := s.reader.Document(tree)
	if err != nil {
		return opened{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return opened{Entry: e, tree: tree, rest: rest}, nil
}

// loadParts reads the rest of an opened snapshot: its messages, events
// and files.
func (s *Store) loadParts(o opened) (*snapshot.Parts, error) {
	p := &snapshot.Parts{Others: o.rest}
	var err error
	if p.Messages, err = s.reader.Load(o.tree.Messages); err != nil {
		return nil, err
	}
	if p.Events, err = s.reader.Load(o.tree.Events); err != nil {
		return nil, err
	}
	if p.Files, err = s.reader.Files(o.tree.Files); err != nil {
		return nil, err
	}
	return p, nil
}

// Diff compares two snapshots. It reads only what differs: chunks and
// elements whose stored objects are the same on both sides are skipped.
func (s *Store) Diff(ctx context.Context, a, b storage.ID) (*snapshot.Diff, error) {
	oa, err := s.openSnapshot(ctx, a)
	if err != nil {
		return nil, err
	}
	ob, err := s.openSnapshot(ctx, b)
	if err != nil {
		return nil, err
	}
	ta, tb := oa.tree, ob.tree
	pa, pb := &snapshot.Parts{Others: oa.rest}, &snapshot.Parts{Others: ob.rest}
	if pa.Messages, pb.Messages, err = s.reader.Sparse(ta.Messages, tb.Messages); err != nil {
		return nil, err
	}
	if pa.Events, pb.Events, err = s.reader.Sparse(ta.Events, tb.Events); err != nil {
		return nil, err
	}
	if ta.Files != tb.Files {
		if pa.Files, err = s.reader.Files(ta.Files); err != nil {
			return nil, err
		}
		if pb.Files, err = s.reader.Files(tb.Files); err != nil {
			return nil, err
		}
	}
	return snapshot.CompareParts(pa, pb, s.view), nil
}
