package gitstore

import (
	"bufio"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
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
	max                 int64 // bytes of one object
}

func newObjectReader(st *filesystem.Storage, dir string, max int64) *objectReader {
	if max <= 0 {
		max = DefaultMaxObjectBytes
	}
	return &objectReader{Storage: st, dir: dir, max: max, packs: pack.Open(filepath.Join(dir, "objects", "pack"), pack.Options{MaxObjectBytes: max})}
}

// ObjectTooLargeError is an object bigger than Options.MaxObjectBytes.
type ObjectTooLargeError struct {
	ID        plumbing.Hash
	Size, Max int64
}

func (e *ObjectTooLargeError) Error() string {
	return fmt.Sprintf("object %s is %d bytes, more than the %d read at most (limits.max_document_bytes); it was not read", e.ID, e.Size, e.Max)
}

// UserError marks it as the input's fault: exit status 2.
func (e *ObjectTooLargeError) UserError() {}

// looseSize reads the size a loose object's header gives, inflating
// only the header.
func looseSize(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	z, err := zlib.NewReader(bufio.NewReaderSize(f, 512))
	if err != nil {
		return 0, err
	}
	defer z.Close()
	hdr := make([]byte, 0, 32)
	one := make([]byte, 1)
	for len(hdr) < 32 {
		if _, err := io.ReadFull(z, one); err != nil {
			return 0, err
		}
		if one[0] == 0 {
			_, size, ok := strings.Cut(string(hdr), " ")
			n, err := strconv.ParseInt(size, 10, 64)
			if !ok || err != nil || n < 0 {
				return 0, fmt.Errorf("loose object %s: bad header %q", path, hdr)
			}
			return n, nil
		}
		hdr = append(hdr, one[0])
	}
	return 0, fmt.Errorf("loose object %s: bad header %q", path, hdr)
}

// EncodedObject finds an object: loose first, then in the packs, then
// wherever go-git looks (alternates).
func (r *objectReader) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	hex := h.String()
	if size, err := looseSize(filepath.Join(r.dir, "objects", hex[:2], hex[2:])); err == nil {
		if size > r.max {
			return nil, &ObjectTooLargeError{ID: h, Size: size, Max: r.max}
		}
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
	if tl := (*pack.TooLargeError)(nil); errors.As(err, &tl) {
		return nil, &ObjectTooLargeError{ID: h, Size: tl.Size, Max: tl.Limit}
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
