package layout

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Reader reads snapshot trees from an object store. The getters come in
// as functions so that the caller keeps its own object lookup and
// caches.
type Reader struct {
	GetTree func(storage.ID) (*gitobj.Tree, error)
	GetBlob func(storage.ID) ([]byte, error)
}

// Tree is a snapshot's root tree, read but not yet loaded: the hashes of
// its parts, ZeroHash for a part the snapshot does not have.
type Tree struct {
	Document storage.ID
	Messages storage.ID
	Events   storage.ID
	Files    storage.ID
}

// Element is one stored element of a chunked directory: its position
// and blob.
type Element struct {
	Index int
	Hash  storage.ID
}

// subtree is the hash of the messages, events or files tree, ZeroHash
// when the snapshot has none or there is no snapshot (t is nil).
func (t *Tree) subtree(name string) storage.ID {
	if t == nil {
		return storage.ID{}
	}
	switch name {
	case MessagesDir:
		return t.Messages
	case EventsDir:
		return t.Events
	case FilesDir:
		return t.Files
	}
	return storage.ID{}
}

// Open reads a snapshot's root tree. A tree without the format marker
// and snapshot.json, or with another format's marker, is refused.
func (r Reader) Open(h storage.ID) (*Tree, error) {
	root, err := r.GetTree(h)
	if err != nil {
		return nil, fmt.Errorf("read snapshot tree %s: %w", h, err)
	}
	st := &Tree{}
	var marker storage.ID
	for _, e := range root.Entries {
		switch e.Name {
		case FormatFile:
			marker = e.Hash
		case DocumentFile:
			st.Document = e.Hash
		case MessagesDir:
			st.Messages = e.Hash
		case EventsDir:
			st.Events = e.Hash
		case FilesDir:
			st.Files = e.Hash
		}
	}
	if marker.IsZero() || st.Document.IsZero() {
		return nil, fmt.Errorf("tree %s is not a git-snap snapshot (no %s or %s)", h, FormatFile, DocumentFile)
	}
	if marker == MarkerBlob() { // the marker's blob id says its content
		return st, nil
	}
	if m, err := r.GetBlob(marker); err != nil || string(m) != Marker {
		return nil, fmt.Errorf("tree %s: unknown snapshot format %q; a newer git-snap may read it", h, bytes.TrimSpace(m))
	}
	return st, nil
}

// Document reads a snapshot's snapshot.json: every member but the
// messages, events and files.
func (r Reader) Document(t *Tree) (map[string]any, error) {
	v, err := r.Parse(t.Document)
	if err != nil {
		return nil, err
	}
	rest, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a JSON object", DocumentFile)
	}
	return rest, nil
}

// Elements lists a chunked directory's blobs in order, and returns the
// hashes of its chunk trees. Chunks whose tree hash is in skip are left
// out (their contents are known to be equal).
func (r Reader) Elements(dir storage.ID, skip map[storage.ID]bool) ([]Element, map[storage.ID]bool, error) {
	chunks := map[storage.ID]bool{}
	if dir.IsZero() {
		return nil, chunks, nil
	}
	t, err := r.GetTree(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range t.Entries {
		chunks[c.Hash] = true
	}
	out, err := r.elementsOf(t, skip)
	return out, chunks, err
}

// elementsOf is Elements of a directory already read.
func (r Reader) elementsOf(t *gitobj.Tree, skip map[storage.ID]bool) ([]Element, error) {
	var out []Element
	if t == nil {
		return nil, nil
	}
	for _, c := range t.Entries {
		if skip[c.Hash] {
			continue
		}
		ct, err := r.GetTree(c.Hash)
		if err != nil {
			return nil, err
		}
		for _, e := range ct.Entries {
			i, ok := ElementIndex(e.Name)
			if !ok {
				return nil, fmt.Errorf("unexpected entry %s/%s in snapshot tree", c.Name, e.Name)
			}
			out = append(out, Element{i, e.Hash})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Index < out[b].Index })
	return out, nil
}

// Load reads every element of a chunked directory, refusing a directory
// with a gap.
func (r Reader) Load(dir storage.ID) ([]any, error) {
	refs, _, err := r.Elements(dir, nil)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(refs))
	for i, e := range refs {
		if e.Index != i {
			return nil, fmt.Errorf("element %d is missing from the snapshot tree", i)
		}
		if out[i], err = r.Parse(e.Hash); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Parse reads and parses one element blob.
func (r Reader) Parse(h storage.ID) (any, error) {
	data, err := r.GetBlob(h)
	if err != nil {
		return nil, err
	}
	v, err := snapshot.Parse(data, snapshot.Limits{})
	if err != nil {
		return nil, fmt.Errorf("stored object %s: %w", h, err)
	}
	return v, nil
}

// Files reads every captured file under the files/ tree h. Trees may
// come from anyone (a fetch, a bundle): a path that could leave a work
// tree, or an entry that is not a file, is refused.
func (r Reader) Files(h storage.ID) ([]snapshot.File, error) {
	var out []snapshot.File
	err := r.WalkFiles(h, func(p string, e gitobj.TreeEntry) error {
		if e.Mode != filemode.Regular && e.Mode != filemode.Executable && e.Mode != filemode.Symlink {
			return fmt.Errorf("the snapshot holds %s with mode %o, which is not a file", p, uint32(e.Mode))
		}
		data, err := r.GetBlob(e.Hash)
		if err != nil {
			return err
		}
		out = append(out, snapshot.File{Path: p, Mode: fmt.Sprintf("%06o", uint32(e.Mode)), Content: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read files: %w", err)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out, nil
}

// WalkFiles calls fn for each entry under the files/ tree h that is not
// a directory, with its path; a path that could leave a work tree is
// refused before fn sees it.
func (r Reader) WalkFiles(h storage.ID, fn func(path string, e gitobj.TreeEntry) error) error {
	if h.IsZero() {
		return nil
	}
	var walk func(h storage.ID, prefix string) error
	walk = func(h storage.ID, prefix string) error {
		t, err := r.GetTree(h)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			p := prefix + e.Name
			if err := snapshot.CheckPath(p); err != nil {
				return fmt.Errorf("the snapshot holds an unsafe file: %w", err)
			}
			if e.Mode == filemode.Dir {
				err = walk(e.Hash, p+"/")
			} else {
				err = fn(p, e)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return walk(h, "")
}
