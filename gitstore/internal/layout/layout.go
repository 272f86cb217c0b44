// Package layout is the tree of a snapshot, format 1 (docs/design.md
// §4): how a document's parts are laid out as git trees and blobs, and
// how they are read back. It stores nothing. Build returns the encoded
// objects for the caller to write, and Reader takes the object getters
// as functions, so that the store alone decides where objects live, how
// they are cached and which are already written.
package layout

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Names in a snapshot's tree, format 1.
const (
	FormatFile   = ".git-snap"
	DocumentFile = "snapshot.json"
	MessagesDir  = "messages"
	EventsDir    = "events"
	FilesDir     = "files"
	// ChunkSize elements share one chunk tree, so that appending one
	// message rewrites a tree of at most ChunkSize entries.
	ChunkSize = 128
)

// Marker is the content of FormatFile. A tree with another marker is
// refused rather than misread: a later format may lay things out anew.
const Marker = "git-snap format 1\n"

// MarkerBlob is the id of Marker's blob, computed when first needed so
// that no command pays for it at start-up.
var MarkerBlob = sync.OnceValue(func() storage.ID {
	return storage.ID(plumbing.ComputeHash(plumbing.BlobObject, []byte(Marker)))
})

// Encoded is an element already in its canonical encoding
// (snapshot.MarshalIndent), which Build stores as it is: a full save
// passes the messages the tip already holds so as not to encode them
// twice.
type Encoded []byte

// BlobHash is the id of the blob that holds data.
func BlobHash(data []byte) storage.ID {
	return storage.ID(plumbing.ComputeHash(plumbing.BlobObject, data))
}

// treeDraft is a tree being built: entries by name, subtrees as drafts
// or, when kept as they are, by hash. kept are entries of a tree read
// back, in tree order, that the draft keeps as they are (the full chunks
// of a chunked directory): they are merged into the new tree, neither
// put in a map nor sorted again, so that appending to a long session
// costs no more than to a short one but for copying them.
type treeDraft struct {
	blobs    map[string]blobEntry
	dirs     map[string]*treeDraft
	subtrees map[string]storage.ID
	kept     []gitobj.TreeEntry
}

type blobEntry struct {
	mode filemode.FileMode
	hash storage.ID
}

func newDraft() *treeDraft {
	return &treeDraft{blobs: map[string]blobEntry{}, dirs: map[string]*treeDraft{}, subtrees: map[string]storage.ID{}}
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
func (t *treeDraft) add(p string, mode filemode.FileMode, h storage.ID) {
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
func (t *treeDraft) encode(out *[]gitobj.Object) (storage.ID, error) {
	tree := &gitobj.Tree{}
	for name, b := range t.blobs {
		tree.Entries = append(tree.Entries, gitobj.TreeEntry{Name: name, Mode: b.mode, Hash: b.hash})
	}
	for name, d := range t.dirs {
		h, err := d.encode(out)
		if err != nil {
			return storage.ID{}, err
		}
		tree.Entries = append(tree.Entries, gitobj.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	for name, h := range t.subtrees {
		if _, drafted := t.dirs[name]; !drafted {
			tree.Entries = append(tree.Entries, gitobj.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
	}
	slices.SortFunc(tree.Entries, gitobj.TreeOrder)
	obj := gitobj.NewTree(mergeEntries(t.kept, tree.Entries))
	*out = append(*out, obj)
	return obj.Hash, nil
}

// mergeEntries merges two lists of tree entries, each in tree order and
// with no name in both, into one in tree order.
func mergeEntries(a, b []gitobj.TreeEntry) []gitobj.TreeEntry {
	if len(a) == 0 {
		return b
	}
	out := make([]gitobj.TreeEntry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if gitobj.TreeOrder(a[0], b[0]) < 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// treeBuild lays out a format-1 snapshot tree on top of a base tree. A
// full save builds on no base; an append builds on its tip's tree and
// reads and writes only what differs from it: new elements go into the
// base's last chunk, and what is not replaced is kept by its tree's hash.
type treeBuild struct {
	read Reader
	base *Tree // nil: build from nothing
	root *treeDraft
	objs []gitobj.Object
}

// Build lays out the next snapshot on base (nil for none): add.Others is
// its whole snapshot.json, add.Messages and add.Events follow the base's,
// and add.Files replaces the base's files unless nil. h holds the base's
// counts and gets the new snapshot's. It returns every object it made,
// the root tree last; r reads the base's chunks that it reopens.
func Build(r Reader, base *Tree, add *snapshot.Parts, h *snapshot.Header) ([]gitobj.Object, error) {
	b := &treeBuild{read: r, base: base, root: newDraft()}
	doc, err := snapshot.MarshalIndent(add.Others)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", DocumentFile, err)
	}
	b.blob(FormatFile, filemode.Regular, []byte(Marker))
	b.blob(DocumentFile, filemode.Regular, doc)
	if h.Messages, err = b.appendElements(MessagesDir, h.Messages, add.Messages); err != nil {
		return nil, err
	}
	if h.Events, err = b.appendElements(EventsDir, h.Events, add.Events); err != nil {
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

// BuildStored is Build on no base of parts whose messages and events are
// written already, as blobs whose ids are messages and events (in
// order): a save that writes each element as it reads it (gitstore's
// SaveScanned) keeps their ids alone. It makes the same tree as Build
// of the elements themselves, and returns its objects but those blobs.
func BuildStored(r Reader, add *snapshot.Parts, messages, events []storage.ID, h *snapshot.Header) ([]gitobj.Object, error) {
	b := &treeBuild{read: r, root: newDraft()}
	doc, err := snapshot.MarshalIndent(add.Others)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", DocumentFile, err)
	}
	b.blob(FormatFile, filemode.Regular, []byte(Marker))
	b.blob(DocumentFile, filemode.Regular, doc)
	h.Messages, h.Events = len(messages), len(events)
	b.storedElements(MessagesDir, messages)
	b.storedElements(EventsDir, events)
	if err := b.files(add.Files, &h.Files); err != nil {
		return nil, err
	}
	if _, err := b.root.encode(&b.objs); err != nil {
		return nil, err
	}
	return b.objs, nil
}

// storedElements lays out a chunked directory of blobs already written,
// by their ids in order: its chunk trees are encoded as they fill, with
// no draft of their entries (a long session's would hold a map entry
// an element).
func (b *treeBuild) storedElements(dir string, ids []storage.ID) {
	if len(ids) == 0 {
		return
	}
	var chunks []gitobj.TreeEntry
	for c := 0; c*ChunkSize < len(ids); c++ {
		part := ids[c*ChunkSize : min(len(ids), (c+1)*ChunkSize)]
		entries := make([]gitobj.TreeEntry, len(part))
		for i, id := range part {
			entries[i] = gitobj.TreeEntry{Name: path.Base(elementPath(dir, c*ChunkSize+i)), Mode: filemode.Regular, Hash: id}
		}
		slices.SortFunc(entries, gitobj.TreeOrder) // in order but where a name grows a digit
		chunk := gitobj.NewTree(entries)
		b.objs = append(b.objs, chunk)
		chunks = append(chunks, gitobj.TreeEntry{Name: chunkName(c), Mode: filemode.Dir, Hash: chunk.Hash})
	}
	slices.SortFunc(chunks, gitobj.TreeOrder)
	t := gitobj.NewTree(chunks)
	b.objs = append(b.objs, t)
	b.root.subtrees[dir] = t.Hash
}

func (b *treeBuild) blob(path string, mode filemode.FileMode, data []byte) {
	o := gitobj.New(plumbing.BlobObject, data)
	b.objs = append(b.objs, o)
	b.root.add(path, mode, o.Hash)
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
		b.keep(FilesDir)
		return nil
	}
	*count = len(files)
	for _, f := range files {
		mode, err := filemode.New(f.Mode)
		if err != nil {
			return fmt.Errorf("file %s: %w", f.Path, err)
		}
		b.blob(FilesDir+"/"+f.Path, mode, f.Content)
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
		data, ok := e.(Encoded)
		if !ok {
			var err error
			if data, err = snapshot.MarshalIndent(e); err != nil {
				return 0, fmt.Errorf("%s[%d]: %w", dir, n+i, err)
			}
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
	t, err := b.read.GetTree(tipDir)
	if err != nil {
		return 0, err
	}
	d := b.root.dir(dir)
	for i, c := range t.Entries {
		if !isChunk(c, i) {
			return 0, fmt.Errorf("%s/%s: not the layout git-snap writes", dir, c.Name)
		}
	}
	if len(t.Entries) == 0 {
		return 0, nil
	}
	// The chunks are in tree order as read: all but the last are kept.
	last := t.Entries[len(t.Entries)-1]
	d.kept = t.Entries[:len(t.Entries)-1]
	lt, err := b.read.GetTree(last.Hash)
	if err != nil {
		return 0, err
	}
	chunk := d.dir(last.Name)
	for _, e := range lt.Entries {
		chunk.blobs[e.Name] = blobEntry{e.Mode, e.Hash}
	}
	return (len(t.Entries)-1)*ChunkSize + len(lt.Entries), nil
}

// isChunk says whether e is chunk i of a chunked directory, as
// chunkName names it, without making the name.
func isChunk(e gitobj.TreeEntry, i int) bool {
	if len(e.Name) < 4 || len(e.Name) > 9 || e.Mode != filemode.Dir || len(e.Name) > 4 && e.Name[0] == '0' {
		return false
	}
	n := 0
	for _, c := range []byte(e.Name) {
		if c < '0' || c > '9' {
			return false
		}
		n = 10*n + int(c-'0')
	}
	return n == i
}

// chunkName names chunk i of a chunked directory: 0001 for i = 1.
func chunkName(i int) string { return fmt.Sprintf("%04d", i) }

// elementPath names element i of a chunked directory:
// messages/0001/000130.json for i = 130.
func elementPath(dir string, i int) string {
	return fmt.Sprintf("%s/%s/%06d.json", dir, chunkName(i/ChunkSize), i)
}

// elementIndex reads i back from an element's file name.
func ElementIndex(name string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSuffix(name, ".json"))
	return n, err == nil && n >= 0 && strings.HasSuffix(name, ".json")
}
