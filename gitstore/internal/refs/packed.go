package refs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// readPacked looks one ref up in packed-refs. A save reads one ref on
// every call, and a repository may pack tens of thousands: like git, it
// bisects the file when its header says it is sorted, and scans it
// without building anything otherwise.
func (r *Store) readPacked(name string) (plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(r.dir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read packed-refs: %w", err)
	}
	sorted := false
	if bytes.HasPrefix(b, []byte("# pack-refs with:")) {
		header, rest, _ := bytes.Cut(b, []byte("\n"))
		sorted = bytes.Contains(append(header, ' '), []byte(" sorted "))
		b = rest
	}
	if sorted {
		return bisectPacked(b, []byte(name)), nil
	}
	return scanPacked(b, []byte(name)), nil
}

// packedRecord reads the record line starting at s: its name, its id,
// and where the next line starts.
func packedRecord(b []byte, s int) (name []byte, id plumbing.Hash, next int) {
	e := bytes.IndexByte(b[s:], '\n')
	if e < 0 {
		e = len(b) - s
	}
	line, next := b[s:s+e], s+e+1
	if len(line) > 41 && line[40] == ' ' && plumbing.IsHash(string(line[:40])) {
		return line[41:], plumbing.NewHash(string(line[:40])), next
	}
	return nil, plumbing.ZeroHash, next
}

// bisectPacked finds name among sorted records; lines starting with ^
// (a tag's peeled value) belong to the record before them.
func bisectPacked(b, name []byte) plumbing.Hash {
	lo, hi := 0, len(b)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := bytes.LastIndexByte(b[:mid], '\n') + 1
		for s > lo && b[s] == '^' {
			s = bytes.LastIndexByte(b[:s-1], '\n') + 1
		}
		rec, id, next := packedRecord(b, s)
		switch c := bytes.Compare(rec, name); {
		case c == 0:
			return id
		case c < 0:
			lo = next // a peeled line there reads as no record, and is passed
		default:
			hi = s
		}
	}
	return plumbing.ZeroHash
}

// scanPacked finds name in records in any order.
func scanPacked(b, name []byte) plumbing.Hash {
	for i := 0; i < len(b); {
		rec, id, next := packedRecord(b, i)
		if bytes.Equal(rec, name) {
			return id
		}
		i = next
	}
	return plumbing.ZeroHash
}
