package report

import (
	"context"
	"fmt"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// Store is what a report reads a session from: snapshots with their
// history and checkpoints, and their contents piece by piece, so that
// a long session is read one record at a time.
type Store interface {
	gitstore.Snapshots
	gitstore.Contents
}

// records are a snapshot's live records (agent.Session), read one at a
// time by their place among them: a session of 50,000 records is tens
// of MB of parsed records, more than a reader that renders one turn at
// a time needs to hold.
type records struct {
	s      Store
	ids    []gitstore.MessageID // by place; nil when all is set
	thread []string
	// all holds the records when which are live can only be read from
	// the records themselves (agent.LiveIndex).
	all []any
}

// readRecords lists the live records of the snapshot e whose other
// members are rest, reading none of them when it can.
func readRecords(ctx context.Context, s Store, e gitstore.Entry, rest map[string]any) (*records, error) {
	blocks, err := s.MessageBlocks(ctx, e)
	if err != nil {
		return nil, err
	}
	var refs []gitstore.MessageRef
	for _, b := range blocks {
		ms, err := s.BlockMessages(ctx, b)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ms...)
	}
	for i, r := range refs {
		if r.Index != i {
			return nil, fmt.Errorf("snapshot %s: message %d is stored as %d", e.ID, i, r.Index)
		}
	}
	index, thread, ok := agent.LiveIndex(rest, len(refs))
	r := &records{s: s, thread: thread}
	if !ok {
		return r.readAll(ctx, refs, rest)
	}
	r.ids = make([]gitstore.MessageID, len(index))
	for k, i := range index {
		r.ids[k] = refs[i].ID
	}
	return r, nil
}

// readAll reads every stored message and keeps the live ones.
func (r *records) readAll(ctx context.Context, refs []gitstore.MessageRef, rest map[string]any) (*records, error) {
	msgs := make([]any, len(refs))
	for i, ref := range refs {
		m, err := r.s.Message(ctx, ref.ID)
		if err != nil {
			return nil, err
		}
		msgs[i] = m
	}
	doc := map[string]any{snapshot.MemberMessages: msgs}
	for k, v := range rest {
		doc[k] = v
	}
	r.all = agent.LiveMessages(doc)
	r.thread = make([]string, len(r.all))
	return r, nil
}

// len is how many live records there are.
func (r *records) len() int {
	if r.all != nil || r.ids == nil {
		return len(r.all)
	}
	return len(r.ids)
}

// at reads the live record at place k.
func (r *records) at(ctx context.Context, k int) (any, error) {
	if r.ids == nil {
		return r.all[k], nil
	}
	return r.s.Message(ctx, r.ids[k])
}

// same reports whether the records at place k of r and o are equal.
func (r *records) same(ctx context.Context, o *records, k int) (bool, error) {
	if r.ids != nil && o.ids != nil {
		return r.ids[k] == o.ids[k], nil // a message's id is its canonical bytes' hash
	}
	a, err := r.at(ctx, k)
	if err != nil {
		return false, err
	}
	b, err := o.at(ctx, k)
	if err != nil {
		return false, err
	}
	return snapshot.Equal(a, b), nil
}

// sharedPrefix is how many live records r and o share from the start.
func (r *records) sharedPrefix(ctx context.Context, o *records) (int, error) {
	n := 0
	for n < r.len() && n < o.len() {
		same, err := r.same(ctx, o, n)
		if err != nil || !same {
			return n, err
		}
		n++
	}
	return n, nil
}
