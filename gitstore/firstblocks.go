package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/storage"
)

// FirstBlocks is MessageBlocks's first n blocks (all, when fewer):
// reading a session's first records (its title) after a hook call
// appended some need not list 394 blocks of a 50k-record session.
func (s *Store) FirstBlocks(ctx context.Context, e storage.Entry, n int) ([]storage.BlockID, error) {
	msgs, _, err := s.snapshotTree(ctx, e.Tree)
	if err != nil || msgs.IsZero() {
		return nil, err
	}
	ids, err := s.st.firstTreeIDs(msgs, n)
	if err != nil {
		return nil, fmt.Errorf("read messages of snapshot %s: %w", e.ID, err)
	}
	out := make([]storage.BlockID, len(ids))
	for i, id := range ids {
		out[i] = storage.BlockID(id)
	}
	return out, nil
}

// treeEntryMax is the most bytes a tree entry of the store's own takes:
// an octal mode, a short name (an index or a member's), its id.
const treeEntryMax = 128

// firstTreeIDs is the ids of tree h's first n entries (all, when
// fewer): of a loose tree only the bytes that hold them are inflated,
// else (packed, a batch's, names longer than the store writes) it is
// read whole.
func (r *objectReader) firstTreeIDs(h storage.ID, n int) ([]storage.ID, error) {
	if r.batch == nil {
		hex := h.String()
		typ, data, size, err := r.readLoosePrefix(filepath.Join(r.dir, "objects", hex[:2], hex[2:]), r.max, int64(n)*treeEntryMax)
		if err == nil && typ != plumbing.TreeObject {
			return nil, plumbing.ErrObjectNotFound
		}
		if err == nil {
			if end, ok := treeEntriesEnd(data, n, int64(len(data)) == size); ok {
				return entryIDs(data[:end])
			}
		}
	}
	t, err := r.tree(h) // as any tree is read, for its errors too
	if err != nil {
		return nil, err
	}
	out := make([]storage.ID, 0, min(n, len(t.Entries)))
	for _, e := range t.Entries[:min(n, len(t.Entries))] {
		out = append(out, e.Hash)
	}
	return out, nil
}

// treeEntriesEnd is where the first n entries of a tree's content end
// in data, its first bytes (all of them when whole); ok is false when
// data ends before them.
func treeEntriesEnd(data []byte, n int, whole bool) (end int, ok bool) {
	for range n {
		nul := bytes.IndexByte(data[end:], 0)
		if nul < 0 || end+nul+1+len(storage.ID{}) > len(data) {
			return len(data), whole // a truncated entry is gitobj.ParseTree's to refuse
		}
		end += nul + 1 + len(storage.ID{})
	}
	return end, true
}

// entryIDs is the ids of the entries of a tree's content.
func entryIDs(data []byte) ([]storage.ID, error) {
	entries, err := gitobj.ParseTree(data)
	if err != nil {
		return nil, err
	}
	out := make([]storage.ID, len(entries))
	for i, e := range entries {
		out[i] = e.Hash
	}
	return out, nil
}
