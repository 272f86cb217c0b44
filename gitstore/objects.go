package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/git-snap/git-snap/gitstore/internal/pack"
)

// objectReader reads objects the way a short-lived process should: loose
// objects through go-git, packed ones through package pack, whose first
// read costs a binary search in a mapped index rather than the decoding
// of whole indexes go-git does first.
type objectReader struct {
	*filesystem.Storage // writes, loose objects, alternates, iteration
	dir                 string
	packs               *pack.Set
}

func newObjectReader(st *filesystem.Storage, dir string) *objectReader {
	return &objectReader{Storage: st, dir: dir, packs: pack.Open(filepath.Join(dir, "objects", "pack"), pack.Options{})}
}

// EncodedObject finds an object: loose first, then in the packs, then
// wherever go-git looks (alternates).
func (r *objectReader) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	hex := h.String()
	if _, err := os.Stat(filepath.Join(r.dir, "objects", hex[:2], hex[2:])); err == nil {
		obj, err := r.Storage.EncodedObject(t, h)
		if !errors.Is(err, plumbing.ErrObjectNotFound) {
			return obj, err
		}
		// Packed and pruned by git gc since the Stat, or not of type t.
	}
	typ, data, err := r.packs.Find(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return r.Storage.EncodedObject(t, h)
	}
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && t != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(typ)
	if _, err := obj.Write(data); err != nil {
		return nil, err
	}
	return obj, nil
}

// Close releases the mapped indexes and open packs.
func (r *objectReader) Close() error {
	return errors.Join(r.packs.Close(), r.Storage.Close())
}

// withPrefix lists the objects, loose and packed, whose id starts with
// the hex prefix (at least two digits). Loose ones are listed first: git
// gc writes a pack before it prunes what it packed.
func (r *objectReader) withPrefix(prefix string) []plumbing.Hash {
	var out []plumbing.Hash
	if entries, err := os.ReadDir(filepath.Join(r.dir, "objects", prefix[:2])); err == nil {
		for _, e := range entries {
			if id := prefix[:2] + e.Name(); len(id) == 40 && strings.HasPrefix(id, prefix) && plumbing.IsHash(id) {
				out = append(out, plumbing.NewHash(id))
			}
		}
	}
	return append(out, r.packs.WithPrefix(prefix)...)
}

// reload takes in the packs a fetch or bundle import just wrote, for
// go-git as well. A pack directory that cannot be listed keeps the packs
// known so far; reads fall back to go-git, which reports the trouble.
func (r *objectReader) reload() {
	_ = r.packs.Refresh()
	r.Reindex()
}
