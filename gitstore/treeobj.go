package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// errMalformedTree is a tree object whose entries cannot be read.
var errMalformedTree = errors.New("malformed tree")

// tree reads and parses a tree object; any other object is not found,
// as for go-git's GetTree. The tree holds its entries only: it has no
// storer to read files through.
func (r *objectReader) tree(h plumbing.Hash) (*object.Tree, error) {
	typ, data, err := r.read(h)
	if err != nil {
		return nil, err
	}
	if typ != plumbing.TreeObject {
		return nil, plumbing.ErrObjectNotFound
	}
	entries, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	return &object.Tree{Hash: h, Entries: entries}, nil
}

// parseTree reads a tree object's entries as go-git's Tree.Decode reads
// them ("<octal mode> <name>\x00<20-byte id>" each, modes made one of
// git's canonical ones), without the SHA-1 of the content it computes to
// name the tree and the buffered reader it allocates: a diff of two
// long sessions reads dozens of trees of a hundred entries.
func parseTree(data []byte) ([]object.TreeEntry, error) {
	var out []object.TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%w: missing mode terminator", errMalformedTree)
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: malformed mode", errMalformedTree)
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		switch {
		case nul < 0:
			return nil, fmt.Errorf("%w: missing filename terminator", errMalformedTree)
		case nul == 0:
			return nil, fmt.Errorf("%w: empty filename", errMalformedTree)
		case len(data) < nul+1+len(plumbing.ZeroHash):
			return nil, fmt.Errorf("%w: truncated object id", errMalformedTree)
		}
		e := object.TreeEntry{Name: string(data[:nul]), Mode: canonicalMode(filemode.FileMode(mode))}
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
