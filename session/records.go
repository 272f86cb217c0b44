// Package session interprets what a store holds the way the agent that
// recorded it does. It provides a snapshot's live records (the records
// the agent still counts, read one at a time; see LiveRecords), their
// totals (Counter, the storage.Counter a store is opened with, and
// CountRecords), a session's title and first prompt, and the pickaxe of
// log -S and -G. It is the layer above the store that knows about
// agents; the store itself knows nothing about agents, and this package
// works the same on any storage.Storage.
package session

import (
	"context"
	"fmt"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Records holds a snapshot's live records (agent.Session), which are
// read one at a time by position. A session of 50,000 records takes tens
// of MB once parsed, more than a reader that shows one record or one
// turn at a time needs to hold.
type Records struct {
	s      storage.Contents
	ids    []storage.MessageID // by position; nil when all is set
	thread []string
	// all holds the records when only the records themselves can tell
	// which are live (agent.LiveIndex).
	all []any
	// first records where FirstLiveRecords found the records; nil for
	// LiveRecords.
	first *firstListing
}

// LiveRecords lists the live records of snapshot e, whose other members
// are rest (from ReadWithoutMessages). When possible it reads none of the records.
// Only when the records themselves say which are live
// (agent.LiveIndex) does it read them all and keep them in memory.
func LiveRecords(ctx context.Context, s storage.Contents, e storage.Entry, rest map[string]any) (*Records, error) {
	blocks, err := s.MessageBlocks(ctx, e)
	if err != nil {
		return nil, err
	}
	var refs []storage.MessageRef
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
	r := &Records{s: s, thread: thread}
	if !ok {
		return r.readAll(ctx, refs, rest)
	}
	r.ids = make([]storage.MessageID, len(index))
	for k, i := range index {
		r.ids[k] = refs[i].ID
	}
	return r, nil
}

// readAll reads every stored message and keeps the live ones.
func (r *Records) readAll(ctx context.Context, refs []storage.MessageRef, rest map[string]any) (*Records, error) {
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

// Len returns the number of live records.
func (r *Records) Len() int {
	if r.all != nil || r.ids == nil {
		return len(r.all)
	}
	return len(r.ids)
}

// Thread returns the file that the live record at position k came from
// (see agent.Session's Thread).
func (r *Records) Thread(k int) string { return r.thread[k] }

// At reads the live record at position k.
func (r *Records) At(ctx context.Context, k int) (any, error) {
	if r.ids == nil {
		return r.all[k], nil
	}
	return r.s.Message(ctx, r.ids[k])
}

// same reports whether the records at position k of r and o are equal.
func (r *Records) same(ctx context.Context, o *Records, k int) (bool, error) {
	if r.ids != nil && o.ids != nil {
		return r.ids[k] == o.ids[k], nil // a message's id is the hash of its canonical bytes
	}
	a, err := r.At(ctx, k)
	if err != nil {
		return false, err
	}
	b, err := o.At(ctx, k)
	if err != nil {
		return false, err
	}
	return snapshot.Equal(a, b), nil
}

// SharedPrefix returns the number of leading live records that r and o
// have in common.
func (r *Records) SharedPrefix(ctx context.Context, o *Records) (int, error) {
	n := 0
	for n < r.Len() && n < o.Len() {
		same, err := r.same(ctx, o, n)
		if err != nil || !same {
			return n, err
		}
		n++
	}
	return n, nil
}

// CountRecords counts a snapshot's live records the way agent.NumbersOf
// counts its document, reading one record at a time (agent.Tally). rest
// holds the snapshot's other members (from ReadWithoutMessages).
func CountRecords(ctx context.Context, s storage.Contents, e storage.Entry, rest map[string]any) (agent.Numbers, error) {
	recs, err := LiveRecords(ctx, s, e, rest)
	if err != nil {
		return agent.Numbers{}, err
	}
	events, _ := rest[snapshot.MemberEvents].([]any)
	files, _ := rest[snapshot.MemberFiles].(map[string]any)
	return recs.Count(ctx, e.Header.Source, 0, events, len(files))
}

// Count counts the live records from position from onwards, the way
// agent.NumbersOf counts a document that holds them along with events
// and files captured files. It reads one record at a time (agent.Tally)
// and interprets records as source's agent does (agent.Reader).
func (r *Records) Count(ctx context.Context, source string, from int, events []any, files int) (agent.Numbers, error) {
	t, rd := agent.NewTally(source), agent.ReaderFor(source)
	for k := from; k < r.Len(); k++ {
		raw, err := r.At(ctx, k)
		if err != nil {
			return agent.Numbers{}, err
		}
		t.Record(raw, rd.Read(raw).Message, r.thread[k])
	}
	for _, ev := range events {
		t.Event(ev)
	}
	n := t.Numbers()
	n.Records, n.Events, n.Files = r.Len()-from, len(events), files
	return n, nil
}
