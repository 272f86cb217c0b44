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

// firstListing records where FirstLiveRecords found a snapshot's first
// live records: their positions among the stored messages, the message
// blocks it listed for them starting from the first, and the total
// number of stored messages in those blocks.
type firstListing struct {
	index  []int
	blocks []storage.BlockID
	ends   []int // ends[j] is the number of messages blocks[:j+1] hold
}

// FirstLiveRecords returns the first n live records that LiveRecords
// would return (all of them, when there are fewer), reading only the
// message blocks that hold them, so that a reader of a session's first
// records (such as its title) does not list 50,000. It needs to know
// which records are live without reading them (agent.FirstLiveIndex),
// and the number of stored records from e's header. ok is false when
// either is unknown; the caller should then use LiveRecords.
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
		return nil, false, err // the header's count does not match the stored records
	}
	r = &Records{s: s, thread: thread, ids: make([]storage.MessageID, len(index)), first: l}
	for k, i := range index {
		r.ids[k] = refs[i].ID
	}
	return r, true, nil
}

// list lists the messages of blocks, in order, up to the last position
// in l.index, and records the blocks in l. It returns nil when the
// blocks end before that position.
func (l *firstListing) list(ctx context.Context, s storage.Contents, blocks []storage.BlockID) ([]storage.MessageRef, error) {
	need := -1 // the last stored record that the live records use
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

// FirstKey identifies a snapshot's first live records by what they are
// read from: which stored messages are live (from the snapshot's other
// members), their ids, and the ids of the message blocks that hold
// them. Another snapshot whose first live records are stored at the same
// positions, come from the same files and have the same ids has the same
// first records, since an id is a hash of the content. So a reader of
// those records (such as a session's title) does not need to read them
// again after a hook call appended records, but must after a rewrite
// changed them. The positions, files and ids are stored as digests,
// because a viewer keeps a key for each of 10k sessions, covering up to
// 256 records each.
type FirstKey struct {
	n      int
	live   [sha256.Size]byte // digest of the records' positions and files
	ids    [sha256.Size]byte // digest of the records' ids
	blocks []storage.BlockID
}

// Key returns the FirstKey of r's first k live records. ok is false when
// r was not returned by FirstLiveRecords or holds fewer than k records.
func (r *Records) Key(k int) (key FirstKey, ok bool) {
	if r.first == nil || k < 0 || k > r.Len() {
		return FirstKey{}, false
	}
	need := -1
	for _, i := range r.first.index[:k] {
		need = max(need, i)
	}
	j := 0 // the number of blocks that hold the first k: up to the one holding need
	if need >= 0 {
		j = 1 + slices.IndexFunc(r.first.ends, func(end int) bool { return end > need })
	}
	return FirstKey{n: k, live: liveDigest(r.first.index[:k], r.thread[:k]), ids: idsDigest(r.ids[:k]),
		blocks: slices.Clone(r.first.blocks[:j])}, true
}

// liveDigest returns the digest of live records' positions and files.
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

// idsDigest returns the digest of records' ids.
func idsDigest(ids []storage.MessageID) [sha256.Size]byte {
	h := sha256.New()
	for _, id := range ids {
		h.Write(id[:])
	}
	return [sha256.Size]byte(h.Sum(nil))
}

// HasFirstRecords reports whether snapshot e has the first live records
// that key identifies. It reads e's other members and its first message
// blocks, but none of the records, events or files, and not the other
// blocks. (A session of 50k records lists 394 blocks: 13 KB that took
// 190 µs to inflate on every sessions page after a hook call, just to
// compare the first block.) Only when the blocks that held the records
// have changed (a block that is not yet full receives appended records)
// are their messages listed.
func HasFirstRecords(ctx context.Context, s storage.Contents, e storage.Entry, key FirstKey) (bool, error) {
	rest, err := s.Others(ctx, e.ID)
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
