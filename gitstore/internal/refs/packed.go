package refs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/git-snap/git-snap/storage"
)

// listPacked returns the refs of packed-refs under prefix. A sorted
// file (git's, since 2.15) is bisected to the first name at or after
// prefix and read from there while names start with it, so that listing
// one kind of ref (checkpoints) does not read every session's line; an
// unsorted one is scanned.
func (r *Store) listPacked(prefix string) (map[string]storage.ID, error) {
	out := map[string]storage.ID{}
	b, sorted, err := r.packedFile()
	if b == nil || err != nil {
		return out, err
	}
	eachPacked(b, sorted, []byte(prefix), func(rec []byte, id storage.ID) { out[string(rec)] = id })
	return out, nil
}

// eachPacked calls f with each record of packed-refs bytes b under
// prefix: from the first at or after it when b is sorted, stopping past
// the last; over all of b otherwise.
func eachPacked(b []byte, sorted bool, prefix []byte, f func(name []byte, id storage.ID)) {
	i := 0
	if sorted {
		i = lowerPacked(b, prefix)
	}
	for i < len(b) {
		rec, id, next := packedRecord(b, i)
		i = next
		switch {
		case rec == nil: // a peeled value, or a comment
		case bytes.HasPrefix(rec, prefix):
			f(rec, id)
		case sorted && bytes.Compare(rec, prefix) > 0:
			return
		}
	}
}

// packedFile reads packed-refs without its header line, and whether the
// header says it is sorted; no bytes and no error when there is none.
// What was read is kept while the file's stat stays the same, as git
// keeps it (packed-refs is only ever replaced, by a rename): an import
// looks up a few refs per session, and a repository may pack 100k.
func (r *Store) packedFile() (b []byte, sorted bool, err error) {
	name := filepath.Join(r.dir, "packed-refs")
	fi, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read packed-refs: %w", err)
	}
	r.packed.mu.Lock()
	defer r.packed.mu.Unlock()
	if c := &r.packed; c.fi != nil && os.SameFile(c.fi, fi) && c.fi.Size() == fi.Size() && c.fi.ModTime().Equal(fi.ModTime()) {
		return c.b, c.sorted, nil
	}
	b, err = os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read packed-refs: %w", err)
	}
	if bytes.HasPrefix(b, []byte("# pack-refs with:")) {
		header, rest, _ := bytes.Cut(b, []byte("\n"))
		sorted = bytes.Contains(append(header, ' '), []byte(" sorted "))
		b = rest
	}
	// The stat taken before the read: a file replaced in between is
	// read again next time.
	r.packed.fi, r.packed.b, r.packed.sorted = fi, b, sorted
	r.packed.fold, r.packed.folds = nil, 0
	return b, sorted, nil
}

// packedCache is packed-refs as last read, and the stat it was read at.
type packedCache struct {
	mu     sync.Mutex
	fi     os.FileInfo
	b      []byte
	sorted bool
	// fold is the sorted hashes of the lower-cased names under
	// foldPrefix in b, for FoldTwin; folds counts its calls on b.
	fold       []uint64
	foldPrefix string
	folds      int
}

// lowerPacked is where the first record at or after name starts among
// sorted records (len(b) when there is none); lines starting with ^ (a
// tag's peeled value) belong to the record before them.
func lowerPacked(b, name []byte) int {
	lo, hi := 0, len(b)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := bytes.LastIndexByte(b[:mid], '\n') + 1
		for s > lo && b[s] == '^' {
			s = bytes.LastIndexByte(b[:s-1], '\n') + 1
		}
		if rec, _, next := packedRecord(b, s); rec != nil && bytes.Compare(rec, name) >= 0 {
			hi = s
		} else {
			lo = next // a peeled line there reads as no record, and is passed
		}
	}
	return lo
}

// readPacked looks one ref up in packed-refs. A save reads one ref on
// every call, and a repository may pack tens of thousands: like git, it
// bisects the file when its header says it is sorted, and scans it
// without building anything otherwise.
func (r *Store) readPacked(name string) (storage.ID, error) {
	b, sorted, err := r.packedFile()
	if b == nil || err != nil {
		return storage.ID{}, err
	}
	if sorted {
		return bisectPacked(b, []byte(name)), nil
	}
	return scanPacked(b, []byte(name)), nil
}

// packedRecord reads the record line starting at s: its name, its id,
// and where the next line starts.
func packedRecord(b []byte, s int) (name []byte, id storage.ID, next int) {
	e := bytes.IndexByte(b[s:], '\n')
	if e < 0 {
		e = len(b) - s
	}
	line, next := b[s:s+e], s+e+1
	if len(line) > 41 && line[40] == ' ' && storage.IsID(string(line[:40])) {
		return line[41:], storage.NewID(string(line[:40])), next
	}
	return nil, storage.ID{}, next
}

// bisectPacked finds name among sorted records.
func bisectPacked(b, name []byte) storage.ID {
	for i := lowerPacked(b, name); i < len(b); {
		rec, id, next := packedRecord(b, i)
		if rec != nil {
			if bytes.Equal(rec, name) {
				return id
			}
			break
		}
		i = next
	}
	return storage.ID{}
}

// scanPacked finds name in records in any order.
func scanPacked(b, name []byte) storage.ID {
	for i := 0; i < len(b); {
		rec, id, next := packedRecord(b, i)
		if bytes.Equal(rec, name) {
			return id
		}
		i = next
	}
	return storage.ID{}
}

// packedFoldTwin is FoldTwin of packed-refs. Its first call on a file
// scans the records under prefix; later ones, as an import of many new
// sessions makes, look the name up first in an index built on the
// second: the sorted hashes of the lower-cased names, which hold no
// pointer for the garbage collector to follow, and scan only on a hit.
func (r *Store) packedFoldTwin(prefix, name string) (string, error) {
	b, sorted, err := r.packedFile()
	if b == nil || err != nil {
		return "", err
	}
	r.packed.mu.Lock()
	defer r.packed.mu.Unlock()
	c := &r.packed
	if c.fold != nil && c.foldPrefix == prefix {
		if _, hit := slices.BinarySearch(c.fold, foldHash([]byte(name))); !hit {
			return "", nil
		}
	}
	c.folds++
	build := c.folds == 2
	var fold []uint64
	want := []byte(name)
	twin := ""
	eachPacked(b, sorted, []byte(prefix), func(rec []byte, _ storage.ID) {
		n := rec[len(prefix):]
		if twin == "" && !bytes.Equal(n, want) && bytes.EqualFold(n, want) {
			twin = string(n)
		}
		if build {
			fold = append(fold, foldHash(n))
		}
	})
	if build {
		slices.Sort(fold)
		c.fold, c.foldPrefix = fold, prefix
	}
	return twin, nil
}

// foldHash is the FNV-1a hash of a name in lower case (ASCII: names
// git-snap writes are ASCII, and others only ever miss).
func foldHash(name []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}
