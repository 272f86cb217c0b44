// Package session reads what a store keeps as the agent that recorded
// it means it: a snapshot's live records (those the agent still counts,
// read one at a time, LiveRecords), what they add up to (Counter, the
// storage.Counter a store is opened with, and CountRecords), a session's
// title and first prompt, and the pickaxe of log -S and -G. It is the
// layer above the store that knows agents; the store below knows none,
// and works the same on any storage.Storage.
package session

import (
	"context"
	"fmt"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Records are a snapshot's live records (agent.Session), read one at a
// time by their place among them: a session of 50,000 records is tens
// of MB of parsed records, more than a reader that shows one record or
// one turn at a time needs to hold.
type Records struct {
	s      storage.Contents
	ids    []storage.MessageID // by place; nil when all is set
	thread []string
	// all holds the records when which are live can only be read from
	// the records themselves (agent.LiveIndex).
	all []any
	// first is where FirstLiveRecords found them, nil for LiveRecords.
	first *firstListing
}

// LiveRecords lists the live records of the snapshot e whose other
// members are rest (ReadRest), reading none of them when it can: only
// when the records themselves say which are live (agent.LiveIndex) are
// they all read, and kept.
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

// Len is how many live records there are.
func (r *Records) Len() int {
	if r.all != nil || r.ids == nil {
		return len(r.all)
	}
	return len(r.ids)
}

// Thread is the file the live record at place k came from (see
// agent.Session's Thread).
func (r *Records) Thread(k int) string { return r.thread[k] }

// At reads the live record at place k.
func (r *Records) At(ctx context.Context, k int) (any, error) {
	if r.ids == nil {
		return r.all[k], nil
	}
	return r.s.Message(ctx, r.ids[k])
}

// same reports whether the records at place k of r and o are equal.
func (r *Records) same(ctx context.Context, o *Records, k int) (bool, error) {
	if r.ids != nil && o.ids != nil {
		return r.ids[k] == o.ids[k], nil // a message's id is its canonical bytes' hash
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

// SharedPrefix is how many live records r and o share from the start.
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

// CountRecords counts a snapshot's live records as agent.NumbersOf
// counts its document, reading one at a time (agent.Tally): its other
// members are rest (ReadRest).
func CountRecords(ctx context.Context, s storage.Contents, e storage.Entry, rest map[string]any) (agent.Numbers, error) {
	recs, err := LiveRecords(ctx, s, e, rest)
	if err != nil {
		return agent.Numbers{}, err
	}
	events, _ := rest[snapshot.MemberEvents].([]any)
	files, _ := rest[snapshot.MemberFiles].(map[string]any)
	return recs.Count(ctx, e.Header.Source, 0, events, len(files))
}

// Count counts the live records from place from on as agent.NumbersOf
// counts a document holding them, with events and files captured files,
// read a record at a time (agent.Tally) as source's agent reads them
// (agent.Reader).
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
