package layout

import (
	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Sparse loads two chunked directories for comparison, leaving
// snapshot.Unchanged where both hold the same blob at the same index.
func (r Reader) Sparse(da, db storage.ID) ([]any, []any, error) {
	if da == db {
		return nil, nil, nil
	}
	ta, err := r.dir(da)
	if err != nil {
		return nil, nil, err
	}
	tb, err := r.dir(db)
	if err != nil {
		return nil, nil, err
	}
	skip := sharedFullChunks(ta, tb)
	ra, err := r.elementsOf(ta, skip)
	if err != nil {
		return nil, nil, err
	}
	rb, err := r.elementsOf(tb, skip)
	if err != nil {
		return nil, nil, err
	}
	byIndex := func(refs []Element) map[int]storage.ID {
		m := make(map[int]storage.ID, len(refs))
		for _, e := range refs {
			m[e.Index] = e.Hash
		}
		return m
	}
	ma, mb := byIndex(ra), byIndex(rb)
	// Every element is Unchanged but those read whose blob differs from
	// the other side's at the same index: only the chunks read are
	// looked at, not every index of a long session.
	out := func(refs []Element, own, other map[int]storage.ID, n int) ([]any, error) {
		elems := make([]any, n)
		for i := range elems {
			elems[i] = snapshot.Unchanged{}
		}
		for _, e := range refs {
			if own[e.Index] != e.Hash || other[e.Index] == e.Hash {
				continue // an index named twice is read once, as the map keeps it
			}
			v, err := r.Parse(e.Hash)
			if err != nil {
				return nil, err
			}
			elems[e.Index] = v
		}
		return elems, nil
	}
	ea, err := out(ra, ma, mb, length(ra))
	if err != nil {
		return nil, nil, err
	}
	eb, err := out(rb, mb, ma, length(rb))
	return ea, eb, err
}

// length is the element count: the last chunk is never skipped, so the
// count is one past the last element read (0 for an empty directory).
func length(refs []Element) int {
	if len(refs) == 0 {
		return 0
	}
	return refs[len(refs)-1].Index + 1
}

// dir reads a chunked directory's tree; nil for none (ZeroHash).
func (r Reader) dir(h storage.ID) (*gitobj.Tree, error) {
	if h.IsZero() {
		return nil, nil
	}
	return r.GetTree(h)
}

// sharedFullChunks finds chunk trees that are the same at the same
// position on both sides and full (not the last of either side), so
// that they can be passed over unread.
func sharedFullChunks(ta, tb *gitobj.Tree) map[storage.ID]bool {
	if ta == nil || tb == nil {
		return nil
	}
	skip := map[storage.ID]bool{}
	for i := 0; i < len(ta.Entries)-1 && i < len(tb.Entries)-1; i++ {
		ea, eb := ta.Entries[i], tb.Entries[i]
		if ea.Name != chunkName(i) || eb.Name != ea.Name {
			break // not the layout this relies on: read everything
		}
		if ea.Hash == eb.Hash {
			skip[ea.Hash] = true
		}
	}
	return skip
}
