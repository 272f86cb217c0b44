package gitstore

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-snap/git-snap/snapshot"
)

// Names in a snapshot's tree, format 1 (see the README's on-disk format).
const (
	formatFile   = ".git-snap"
	documentFile = "snapshot.json"
	messagesDir  = "messages"
	eventsDir    = "events"
	filesDir     = "files"
	// chunkSize elements share one chunk tree, so that appending one
	// message rewrites a tree of at most chunkSize entries.
	chunkSize = 128
)

var formatMarker = []byte("git-snap format 1\n")

// rawObject is an encoded git object not yet known to be stored.
type rawObject struct {
	typ  plumbing.ObjectType
	data []byte
	hash plumbing.Hash
}

func newObject(typ plumbing.ObjectType, data []byte) rawObject {
	return rawObject{typ: typ, data: data, hash: plumbing.ComputeHash(typ, data)}
}

// Encode makes a rawObject storable like go-git's objects (see
// storeObject).
func (o rawObject) Encode(to plumbing.EncodedObject) error {
	to.SetType(o.typ)
	w, err := to.Writer()
	if err != nil {
		return err
	}
	if _, err := w.Write(o.data); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// treeDraft is a tree being built: entries by name, subtrees as drafts
// or, when kept as they are, by hash.
type treeDraft struct {
	blobs    map[string]blobEntry
	dirs     map[string]*treeDraft
	subtrees map[string]plumbing.Hash
}

type blobEntry struct {
	mode filemode.FileMode
	hash plumbing.Hash
}

func newDraft() *treeDraft {
	return &treeDraft{blobs: map[string]blobEntry{}, dirs: map[string]*treeDraft{}, subtrees: map[string]plumbing.Hash{}}
}

func (t *treeDraft) dir(name string) *treeDraft {
	d, ok := t.dirs[name]
	if !ok {
		d = newDraft()
		t.dirs[name] = d
	}
	return d
}

// add puts a blob at a slash-separated path.
func (t *treeDraft) add(p string, mode filemode.FileMode, h plumbing.Hash) {
	dir, name := path.Split(p)
	d := t
	for _, seg := range strings.Split(strings.Trim(dir, "/"), "/") {
		if seg != "" {
			d = d.dir(seg)
		}
	}
	d.blobs[name] = blobEntry{mode, h}
}

// encode writes the draft and its subtrees as tree objects, appending
// them to out, and returns the root's hash.
func (t *treeDraft) encode(out *[]rawObject) (plumbing.Hash, error) {
	tree := &object.Tree{}
	for name, b := range t.blobs {
		tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: b.mode, Hash: b.hash})
	}
	for name, d := range t.dirs {
		h, err := d.encode(out)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	for name, h := range t.subtrees {
		if _, drafted := t.dirs[name]; !drafted {
			tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
	}
	sort.Sort(object.TreeEntrySorter(tree.Entries))
	var data bytes.Buffer
	for _, e := range tree.Entries {
		fmt.Fprintf(&data, "%o %s\x00", uint32(e.Mode), e.Name)
		data.Write(e.Hash[:])
	}
	obj := newObject(plumbing.TreeObject, data.Bytes())
	*out = append(*out, obj)
	return obj.hash, nil
}

// treeBuild lays out a format-1 snapshot tree on top of a base tree. A
// full save builds on no base; an append builds on its tip's tree and
// reads and writes only what differs from it: new elements go into the
// base's last chunk, and what is not replaced is kept by its tree's hash.
type treeBuild struct {
	read treeReader
	base *snapshotTree // nil: build from nothing
	root *treeDraft
	objs []rawObject
}

// buildTree lays out the next snapshot on base (nil for none): add.Rest
// is its whole snapshot.json, add.Messages and add.Events follow the
// base's, and add.Files replaces the base's files unless nil. h holds
// the base's counts and gets the new snapshot's. It returns every object
// it made, root last.
func buildTree(r treeReader, base *snapshotTree, add *snapshot.Parts, h *snapshot.Header) ([]rawObject, error) {
	b := &treeBuild{read: r, base: base, root: newDraft()}
	doc, err := snapshot.MarshalIndent(add.Rest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", documentFile, err)
	}
	b.blob(formatFile, filemode.Regular, formatMarker)
	b.blob(documentFile, filemode.Regular, doc)
	if h.Messages, err = b.appendElements(messagesDir, h.Messages, add.Messages); err != nil {
		return nil, err
	}
	if h.Events, err = b.appendElements(eventsDir, h.Events, add.Events); err != nil {
		return nil, err
	}
	if err := b.files(add.Files, &h.Files); err != nil {
		return nil, err
	}
	if _, err := b.root.encode(&b.objs); err != nil {
		return nil, err
	}
	return b.objs, nil
}

func (b *treeBuild) blob(path string, mode filemode.FileMode, data []byte) {
	o := newObject(plumbing.BlobObject, data)
	b.objs = append(b.objs, o)
	b.root.add(path, mode, o.hash)
}

// keep puts the base's subtree name, if any, into the new tree as it is.
func (b *treeBuild) keep(name string) {
	if h := b.base.subtree(name); !h.IsZero() {
		b.root.subtrees[name] = h
	}
}

// files replaces the base's captured files, or keeps them when files is
// nil, and sets count to the new snapshot's number of files.
func (b *treeBuild) files(files []snapshot.File, count *int) error {
	if files == nil {
		b.keep(filesDir)
		return nil
	}
	*count = len(files)
	for _, f := range files {
		mode, err := filemode.New(f.Mode)
		if err != nil {
			return fmt.Errorf("file %s: %w", f.Path, err)
		}
		b.blob(filesDir+"/"+f.Path, mode, f.Content)
	}
	return nil
}

// appendElements adds elems after the have elements already in the
// base's chunked directory, reopening only its last chunk, and returns
// the new count.
func (b *treeBuild) appendElements(dir string, have int, elems []any) (int, error) {
	if len(elems) == 0 {
		b.keep(dir)
		return have, nil
	}
	n, err := b.reopen(dir)
	if err != nil {
		return 0, err
	}
	if n != have {
		return 0, fmt.Errorf("%s: the tip holds %d elements, its header says %d", dir, n, have)
	}
	for i, e := range elems {
		data, err := snapshot.MarshalIndent(e)
		if err != nil {
			return 0, fmt.Errorf("%s[%d]: %w", dir, n+i, err)
		}
		b.blob(elementPath(dir, n+i), filemode.Regular, data)
	}
	return n + len(elems), nil
}

// reopen drafts the base's chunked directory: its full chunks kept by
// hash, its last chunk (maybe partly filled) opened to take more. It
// returns how many elements the directory holds.
func (b *treeBuild) reopen(dir string) (int, error) {
	tipDir := b.base.subtree(dir)
	if tipDir.IsZero() {
		return 0, nil
	}
	t, err := b.read.getTree(tipDir)
	if err != nil {
		return 0, err
	}
	d := b.root.dir(dir)
	for i, c := range t.Entries {
		if c.Name != fmt.Sprintf("%04d", i) {
			return 0, fmt.Errorf("%s/%s: not the layout git-snap writes", dir, c.Name)
		}
		d.subtrees[c.Name] = c.Hash
	}
	if len(t.Entries) == 0 {
		return 0, nil
	}
	last := t.Entries[len(t.Entries)-1]
	lt, err := b.read.getTree(last.Hash)
	if err != nil {
		return 0, err
	}
	delete(d.subtrees, last.Name)
	chunk := d.dir(last.Name)
	for _, e := range lt.Entries {
		chunk.blobs[e.Name] = blobEntry{e.Mode, e.Hash}
	}
	return (len(t.Entries)-1)*chunkSize + len(lt.Entries), nil
}

// elementPath names element i of a chunked directory:
// messages/0001/000130.json for i = 130.
func elementPath(dir string, i int) string {
	return fmt.Sprintf("%s/%04d/%06d.json", dir, i/chunkSize, i)
}

// elementIndex reads i back from an element's file name.
func elementIndex(name string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSuffix(name, ".json"))
	return n, err == nil && n >= 0 && strings.HasSuffix(name, ".json")
}

// elementRef is one stored element: its position and blob.
type elementRef struct {
	index int
	hash  plumbing.Hash
}

// treeReader reads snapshot trees from an object store.
type treeReader struct {
	getTree func(plumbing.Hash) (*object.Tree, error)
	getBlob func(plumbing.Hash) ([]byte, error)
}

// snapshotTree is a snapshot's root tree, read but not yet loaded.
type snapshotTree struct {
	root     *object.Tree
	document plumbing.Hash
	messages plumbing.Hash // ZeroHash: none
	events   plumbing.Hash
	files    plumbing.Hash
}

// subtree is the hash of the messages, events or files tree, ZeroHash
// when the snapshot has none or there is no snapshot (t is nil).
func (t *snapshotTree) subtree(name string) plumbing.Hash {
	if t == nil {
		return plumbing.ZeroHash
	}
	switch name {
	case messagesDir:
		return t.messages
	case eventsDir:
		return t.events
	case filesDir:
		return t.files
	}
	return plumbing.ZeroHash
}

func (r treeReader) open(h plumbing.Hash) (*snapshotTree, error) {
	root, err := r.getTree(h)
	if err != nil {
		return nil, fmt.Errorf("read snapshot tree %s: %w", h, err)
	}
	st := &snapshotTree{root: root}
	var marker plumbing.Hash
	for _, e := range root.Entries {
		switch e.Name {
		case formatFile:
			marker = e.Hash
		case documentFile:
			st.document = e.Hash
		case messagesDir:
			st.messages = e.Hash
		case eventsDir:
			st.events = e.Hash
		case filesDir:
			st.files = e.Hash
		}
	}
	if marker.IsZero() || st.document.IsZero() {
		return nil, fmt.Errorf("tree %s is not a git-snap snapshot (no %s or %s)", h, formatFile, documentFile)
	}
	if m, err := r.getBlob(marker); err != nil || !bytes.Equal(m, formatMarker) {
		return nil, fmt.Errorf("tree %s: unknown snapshot format %q; a newer git-snap may read it", h, bytes.TrimSpace(m))
	}
	return st, nil
}

// elements lists a chunked directory's blobs in order. Chunks whose tree
// hash is in skip are left out (their contents are known to be equal).
func (r treeReader) elements(dir plumbing.Hash, skip map[plumbing.Hash]bool) ([]elementRef, map[plumbing.Hash]bool, error) {
	var out []elementRef
	chunks := map[plumbing.Hash]bool{}
	if dir.IsZero() {
		return nil, chunks, nil
	}
	t, err := r.getTree(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range t.Entries {
		chunks[c.Hash] = true
		if skip[c.Hash] {
			continue
		}
		ct, err := r.getTree(c.Hash)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range ct.Entries {
			i, ok := elementIndex(e.Name)
			if !ok {
				return nil, nil, fmt.Errorf("unexpected entry %s/%s in snapshot tree", c.Name, e.Name)
			}
			out = append(out, elementRef{i, e.Hash})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].index < out[b].index })
	return out, chunks, nil
}

// parse reads and parses one element blob.
func (r treeReader) parse(h plumbing.Hash) (any, error) {
	data, err := r.getBlob(h)
	if err != nil {
		return nil, err
	}
	v, err := snapshot.Parse(data, snapshot.Limits{})
	if err != nil {
		return nil, fmt.Errorf("stored object %s: %w", h, err)
	}
	return v, nil
}

// files reads every captured file under the files/ tree.
func (r treeReader) files(h plumbing.Hash) ([]snapshot.File, error) {
	if h.IsZero() {
		return nil, nil
	}
	var out []snapshot.File
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		t, err := r.getTree(h)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			p := prefix + e.Name
			if err := snapshot.CheckPath(p); err != nil { // trees may come from anyone
				return fmt.Errorf("the snapshot holds an unsafe file: %w", err)
			}
			if e.Mode == filemode.Dir {
				if err := walk(e.Hash, p+"/"); err != nil {
					return err
				}
				continue
			}
			if e.Mode != filemode.Regular && e.Mode != filemode.Executable && e.Mode != filemode.Symlink {
				return fmt.Errorf("the snapshot holds %s with mode %o, which is not a file", p, uint32(e.Mode))
			}
			data, err := r.getBlob(e.Hash)
			if err != nil {
				return err
			}
			out = append(out, snapshot.File{Path: p, Mode: fmt.Sprintf("%06o", uint32(e.Mode)), Content: data})
		}
		return nil
	}
	if err := walk(h, ""); err != nil {
		return nil, fmt.Errorf("read files: %w", err)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out, nil
}
