package gitobj

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/storage"
)

// ErrMalformedTree is a tree object whose entries cannot be read.
var ErrMalformedTree = errors.New("malformed tree")

// ParseTree reads a tree object's entries as go-git's Tree.Decode reads
// them ("<octal mode> <name>\x00<20-byte id>" each, modes made one of
// git's canonical ones), without the SHA-1 of the content it computes to
// name the tree and the buffered reader it allocates: a diff of two
// long sessions reads dozens of trees of a hundred entries.
func ParseTree(data []byte) ([]TreeEntry, error) {
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%w: missing mode terminator", ErrMalformedTree)
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: malformed mode", ErrMalformedTree)
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		switch {
		case nul < 0:
			return nil, fmt.Errorf("%w: missing filename terminator", ErrMalformedTree)
		case nul == 0:
			return nil, fmt.Errorf("%w: empty filename", ErrMalformedTree)
		case len(data) < nul+1+len(storage.ID{}):
			return nil, fmt.Errorf("%w: truncated object id", ErrMalformedTree)
		}
		e := TreeEntry{Name: string(data[:nul]), Mode: canonicalMode(filemode.FileMode(mode))}
		copy(e.Hash[:], data[nul+1:])
		out = append(out, e)
		data = data[nul+1+len(e.Hash):]
	}
	return out, nil
}

// canonicalMode is the mode git reads an entry's as: a directory, a
// regular or executable file, a symbolic link, else a submodule.
func canonicalMode(mode filemode.FileMode) filemode.FileMode {
	switch mode & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if mode&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	}
	return filemode.Submodule
}

// TreeEntry is one entry of a tree: a name, a mode and the object's id.
type TreeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash storage.ID
}

// NewTree encodes entries, already in git's order (see TreeOrder), as a
// tree object.
func NewTree(entries []TreeEntry) Object {
	data := make([]byte, 0, 64*len(entries))
	for _, e := range entries {
		data = strconv.AppendUint(data, uint64(e.Mode), 8)
		data = append(data, ' ')
		data = append(data, e.Name...)
		data = append(data, 0)
		data = append(data, e.Hash[:]...)
	}
	return New(plumbing.TreeObject, data)
}

// TreeOrder is the order of a tree's entries in git: by name, a
// directory's compared as if it ended in a slash (go-git's
// TreeEntrySorter, without making a string per comparison: a chunked
// directory of a long session has hundreds of entries).
func TreeOrder(a, b TreeEntry) int {
	n := min(len(a.Name), len(b.Name))
	if c := strings.Compare(a.Name[:n], b.Name[:n]); c != 0 {
		return c
	}
	next := func(e TreeEntry) byte {
		switch {
		case len(e.Name) > n:
			return e.Name[n]
		case e.Mode == filemode.Dir:
			return '/'
		}
		return 0
	}
	return cmp.Compare(next(a), next(b))
}

// Tree is a tree object read: its id and entries.
type Tree struct {
	Hash    storage.ID
	Entries []TreeEntry
}
