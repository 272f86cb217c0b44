package gitstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/git-snap/git-snap/agent"
)

// firstListing is where FirstLiveRecords found a snapshot's first live
// records: their places among the stored messages, and the message
// blocks it listed for them, from the first on, with how many stored
// messages those blocks hold in all.
type firstListing struct {
	index  []int
	blocks []BlockID
	ends   []int // ends[j]: the messages blocks[:j+1] hold
}

// FirstLiveRecords is LiveRecords's first n live records (all, when
// fewer), reading only the message blocks that hold them: a reader of a
// session's first records (its title) need not list 50,000. It needs
// which records are live without reading them (agent.FirstLiveIndex),
// and the number of stored records from e's header; ok is false when
// either is not known, and the caller reads them with LiveRecords.
func FirstLiveRecords(ctx context.Context, s Contents, e Entry, rest map[string]any, n int) (r *Records, ok bool, err error) {
	index, thread, ok := agent.FirstLiveIndex(rest, e.Header.Messages, n)
	if !ok || len(thread) < len(index) {
		return nil, false, nil
	}
	need := -1 // the last stored record the first n live ones take
	for _, i := range index {
		need = max(need, i)
	}
	blocks, err := s.MessageBlocks(ctx, e)
	if err != nil {
		return nil, false, err
	}
	l := &firstListing{index: index}
	var refs []MessageRef
	for _, b := range blocks {
		if len(refs) > need {
			break
		}
		ms, err := s.BlockMessages(ctx, b)
		if err != nil {
			return nil, false, err
		}
		refs = append(refs, ms...)
		l.blocks, l.ends = append(l.blocks, b), append(l.ends, len(refs))
	}
	if len(refs) <= need || len(blocks) > 0 && len(refs) > e.Header.Messages {
		return nil, false, nil // the header's count is not the stored records'
	}
	r = &Records{s: s, thread: thread, ids: make([]MessageID, len(index)), first: l}
	for k, i := range index {
		if refs[i].Index != i {
			return nil, false, fmt.Errorf("snapshot %s: message %d is stored as %d", e.ID, i, refs[i].Index)
		}
		r.ids[k] = refs[i].ID
	}
	return r, true, nil
}

// FirstKey names a snapshot's first live records by what they are read
// from: which stored messages are live (from the snapshot's other
// members) and the message blocks that hold those, by id. Another
// snapshot whose first live records are the stored messages of the
// same places, in the same files, held in blocks of the same ids, has
// the same first records (a block's id is its contents' hash): a
// reader of them (a session's title) need not read them again after a
// hook call appended records, and must when a prune or a rewrite
// changed them.
type FirstKey struct {
	index  []int
	thread []string
	blocks []BlockID
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
	return FirstKey{index: slices.Clone(r.first.index[:k]), thread: slices.Clone(r.thread[:k]), blocks: slices.Clone(r.first.blocks[:j])}, true
}

// Holds reports whether snapshot e, whose other members are rest
// (ReadRest), has the first live records key names, reading only the
// listing of its message blocks: none of the blocks or records.
func (key FirstKey) Holds(ctx context.Context, s Contents, e Entry, rest map[string]any) (bool, error) {
	index, thread, ok := agent.FirstLiveIndex(rest, e.Header.Messages, len(key.index))
	if !ok || !slices.Equal(index, key.index) || !slices.Equal(thread, key.thread) {
		return false, nil
	}
	if len(key.blocks) == 0 {
		return true, nil // no record: e has none live either
	}
	blocks, err := s.MessageBlocks(ctx, e)
	if err != nil {
		return false, err
	}
	return len(blocks) >= len(key.blocks) && slices.Equal(blocks[:len(key.blocks)], key.blocks), nil
}
