package layout

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/snapshot"
)

// Sparse loads two chunked directories for comparison, leaving
// snapshot.Unchanged where both hold the same blob at the same index.
func (r Reader) Sparse(da, db plumbing.Hash) ([]any, []any, error) {
	if da == db {
		return nil, nil, nil
	}
	skip, err := r.sharedFullChunks(da, db)
	if err != nil {
		return nil, nil, err
	}
	ra, _, err := r.Elements(da, skip)
	if err != nil {
		return nil, nil, err
	}
	rb, _, err := r.Elements(db, skip)
	if err != nil {
		return nil, nil, err
	}
	byIndex := func(refs []Element) map[int]plumbing.Hash {
		m := make(map[int]plumbing.Hash, len(refs))
		for _, e := range refs {
			m[e.Index] = e.Hash
		}
		return m
	}
	ma, mb := byIndex(ra), byIndex(rb)
	la, lb := length(ra), length(rb)
	out := func(m, other map[int]plumbing.Hash, n int) ([]any, error) {
		elems := make([]any, n)
		for i := range elems {
			h, ok := m[i]
			if !ok || other[i] == h {
				elems[i] = snapshot.Unchanged{}
				continue
			}
			v, err := r.Parse(h)
			if err != nil {
				return nil, err
			}
			elems[i] = v
		}
		return elems, nil
	}
	ea, err := out(ma, mb, la)
	if err != nil {
		return nil, nil, err
	}
	eb, err := out(mb, ma, lb)
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

// sharedFullChunks finds chunk trees that are the same at the same
// position on both sides and full (not the last of either side), so
// that they can be passed over unread.
func (r Reader) sharedFullChunks(da, db plumbing.Hash) (map[plumbing.Hash]bool, error) {
	if da.IsZero() || db.IsZero() {
		return nil, nil
	}
	ta, err := r.GetTree(da)
	if err != nil {
		return nil, err
	}
	tb, err := r.GetTree(db)
	if err != nil {
		return nil, err
	}
	skip := map[plumbing.Hash]bool{}
	for i := 0; i < len(ta.Entries)-1 && i < len(tb.Entries)-1; i++ {
		ea, eb := ta.Entries[i], tb.Entries[i]
		if ea.Name != chunkName(i) || eb.Name != ea.Name {
			break // not the layout this relies on: read everything
		}
		if ea.Hash == eb.Hash {
			skip[ea.Hash] = true
		}
	}
	return skip, nil
}
