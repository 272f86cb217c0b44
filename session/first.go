package session

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/storage"
)

// firstListing is where FirstLiveRecords found a snapshot's first live
// records: their places among the stored messages, and the message
// blocks it listed for them, from the first on, with how many stored
// messages those blocks hold in all.
type firstListing struct {
	index  []int
	blocks []storage.BlockID
	ends   []int // ends[j]: the messages blocks[:j+1] hold
}

// FirstLiveRecords is LiveRecords's first n live records (all, when
// fewer), reading only the message blocks that hold them: a reader of a
// session's first records (its title) need not list 50,000. It needs
// which records are live without reading them (agent.FirstLiveIndex),
// and the number of stored records from e's header; ok is false when
// either is not known, and the caller reads them with LiveRecords.
func FirstLiveRecords(ctx context.Context, s storage.Contents, e storage.Entry, rest map[string]any, n int) (r *Records, ok bool, err error) {
	index, thread, ok := agent.FirstLiveIndex(rest, e.Header.Messages, n)
	if !ok || len(thread) < len(index) {
		return nil, false, nil
	}
	blocks, err := s.MessageBlocks(ctx, e)
	if err != nil {
		return nil, false, err
	}
	l := &firstListing{index: index}
	refs, err := l.list(ctx, s, blocks)
	if err != nil || refs == nil || len(blocks) > 0 && len(refs) > e.Header.Messages {
		return nil, false, err // the header's count is not the stored records'
	}
	r = &Records{s: s, thread: thread, ids: make([]storage.MessageID, len(index)), first: l}
	for k, i := range index {
		r.ids[k] = refs[i].ID
	}
	return r, true, nil
}

// list lists blocks, in order, as far as the last of l.index, noting
// them in l; nil when they end before it.
func (l *firstListing) list(ctx context.Context, s storage.Contents, blocks []storage.BlockID) ([]storage.MessageRef, error) {
	need := -1 // the last stored record the live ones take
	for _, i := range l.index {
		need = max(need, i)
	}
	var refs []storage.MessageRef
	for _, b := range blocks {
		if len(refs) > need {
			break
		}
		ms, err := s.BlockMessages(ctx, b)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ms...)
		l.blocks, l.ends = append(l.blocks, b), append(l.ends, len(refs))
	}
	if len(refs) <= need {
		return nil, nil
	}
	for _, i := range l.index {
		if refs[i].Index != i {
			return nil, fmt.Errorf("message %d is stored as %d", i, refs[i].Index)
		}
	}
	return refs, nil
}

// FirstKey names a snapshot's first live records by what they are read
// from: which stored messages are live (from the snapshot's other
// members) and their ids, with the ids of the message blocks that hold
// them. Another snapshot whose first live records are the stored
// messages of the same places, in the same files, with the same ids,
// has the same first records (an id is the content's hash): a reader of
// them (a session's title) need not read them again after a hook call
// appended records, and must when a rewrite changed them. The places,
// files and ids are kept as digests: a viewer keeps a key for each of
// 10k sessions, of up to 256 records each.
type FirstKey struct {
	n      int
	live   [sha256.Size]byte // of the records' places and files
	ids    [sha256.Size]byte // of the records' ids
	blocks []storage.BlockID
}

// Key is the FirstKey of r's first k live records; ok is false when r
// was not read by FirstLiveRecords or holds fewer than k.
func (r *Records) Key(k int) (key FirstKey, ok bool) {
	if r.first == nil || k < 0 || k > r.Len() {
		return FirstKey{}, false
	}
	need := -1
	for _, i := range r.first.index[:k] {
		need = max(need, i)
	}
	j := 0 // the blocks that hold the first k: up to the one holding need
	if need >= 0 {
		j = 1 + slices.IndexFunc(r.first.ends, func(end int) bool { return end > need })
	}
	return FirstKey{n: k, live: liveDigest(r.first.index[:k], r.thread[:k]), ids: idsDigest(r.ids[:k]),
		blocks: slices.Clone(r.first.blocks[:j])}, true
}

// liveDigest is the digest of live records' places and files.
func liveDigest(index []int, thread []string) [sha256.Size]byte {
	h := sha256.New()
	var b [8]byte
	for k, i := range index {
		binary.BigEndian.PutUint64(b[:], uint64(i))
		h.Write(b[:])
		binary.BigEndian.PutUint64(b[:], uint64(len(thread[k])))
		h.Write(b[:])
		h.Write([]byte(thread[k]))
	}
	return [sha256.Size]byte(h.Sum(nil))
}

// idsDigest is the digest of records' ids.
func idsDigest(ids []storage.MessageID) [sha256.Size]byte {
	h := sha256.New()
	for _, id := range ids {
		h.Write(id[:])
	}
	return [sha256.Size]byte(h.Sum(nil))
}

// HasFirstRecords reports whether snapshot e has the first live records
// key names, reading its other members and the first of its message
// blocks: none of the records, nor its events and files, nor the rest of
// the blocks (a session of 50k records lists 394 blocks, 13 KB that took
// 190 µs to inflate on every sessions page after a hook call, to compare
// the first one). Only where the blocks that held them are not the same
// (a block not yet full takes the records appended) are those listed.
func HasFirstRecords(ctx context.Context, s storage.Contents, e storage.Entry, key FirstKey) (bool, error) {
	rest, err := s.Rest(ctx, e.ID)
	if err != nil {
		return false, err
	}
	index, thread, ok := agent.FirstLiveIndex(rest, e.Header.Messages, key.n)
	if !ok || len(index) != key.n || len(thread) != key.n || liveDigest(index, thread) != key.live {
		return false, nil
	}
	if len(key.blocks) == 0 {
		return true, nil
	}
	blocks, err := s.FirstBlocks(ctx, e, len(key.blocks))
	if err != nil || len(blocks) == 0 {
		return false, err
	}
	if slices.Equal(blocks, key.blocks) {
		return true, nil
	}
	all, err := s.MessageBlocks(ctx, e)
	if err != nil {
		return false, err
	}
	refs, err := (&firstListing{index: index}).list(ctx, s, all)
	if err != nil || refs == nil {
		return false, err
	}
	ids := make([]storage.MessageID, len(index))
	for k, i := range index {
		ids[k] = refs[i].ID
	}
	return idsDigest(ids) == key.ids, nil
}
