package gitstore

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
)

// Delta is what a snapshot adds to its session's tip.
type Delta struct {
	Messages []any // appended to the tip's messages
	Events   []any // appended to the tip's events
	// Rest replaces every member other than messages, events and files.
	Rest map[string]any
	// Files replaces the captured files; nil keeps the tip's.
	Files []snapshot.File
	// Turn, when not 0, is the new snapshot's turn.
	Turn int
}

// Empty reports whether the delta adds nothing to a tip whose other
// members are tipRest.
func (d Delta) Empty(tipRest map[string]any) bool {
	return len(d.Messages) == 0 && len(d.Events) == 0 && d.Files == nil && snapshot.Equal(d.Rest, snapshot.Others(tipRest))
}

// Append records the next snapshot of a session as its tip plus a delta,
// without reading or writing what the tip already holds: appending one
// message writes one blob and the few trees above it. next is given the
// tip's members other than messages, events and files (snapshot.Others:
// no file notes, no empty arrays; nil for a new session), so that
// returning them as Delta.Rest keeps them. It is called again, on the
// new tip, when another writer moved the session meanwhile, so a delta
// computed from state kept in the document (a read position, say) is
// never applied twice. It returns false, and writes nothing, when the
// delta is empty.
func (s *Store) Append(ctx context.Context, o SaveOptions, next func(tipRest map[string]any) (Delta, error)) (Entry, bool, error) {
	if err := checkSession(o.Session); err != nil {
		return Entry{}, false, err
	}
	e, err := s.commitOnTip(ctx, s.header(o), func(tip plumbing.Hash, h *snapshot.Header, st tipState) (plumbing.Hash, []rawObject, error) {
		return s.buildAppend(ctx, tip, h, st, next)
	})
	if errors.Is(err, errNothingNew) {
		return Entry{}, false, nil
	}
	return e, err == nil, err
}

func (s *Store) buildAppend(ctx context.Context, tip plumbing.Hash, h *snapshot.Header, st tipState, next func(map[string]any) (Delta, error)) (plumbing.Hash, []rawObject, error) {
	var base *snapshotTree
	var tipRest map[string]any
	var tipHeader snapshot.Header
	if !tip.IsZero() {
		e, err := s.Entry(ctx, tip)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		tipHeader = e.Header
		if base, err = s.reader.open(e.Tree); err != nil {
			return plumbing.ZeroHash, nil, err
		}
		p, err := s.loadRest(base)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		tipRest = p.Rest
	}
	d, err := next(snapshot.Others(tipRest))
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if !tip.IsZero() && d.Empty(tipRest) {
		return plumbing.ZeroHash, nil, errNothingNew
	}
	if d.Turn > 0 {
		h.Turn = d.Turn
	}
	d, found := s.redactDelta(d)
	h.Redacted = len(found)
	rest, err := deltaRest(d, tipRest)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	var objs []rawObject
	root := newDraft()
	addBlob := func(path string, mode filemode.FileMode, data []byte) plumbing.Hash {
		o := newObject(plumbing.BlobObject, data)
		objs = append(objs, o)
		root.add(path, mode, o.hash)
		return o.hash
	}
	addBlob(formatFile, filemode.Regular, formatMarker)
	doc, err := snapshot.MarshalIndent(rest)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	addBlob(documentFile, filemode.Regular, doc)
	h.Messages, h.Events, h.Files = tipHeader.Messages, tipHeader.Events, tipHeader.Files
	for _, list := range []struct {
		dir   string
		elems []any
		count *int
		tip   plumbing.Hash
	}{{messagesDir, d.Messages, &h.Messages, treeOf(base, messagesDir)}, {eventsDir, d.Events, &h.Events, treeOf(base, eventsDir)}} {
		if err := s.appendElements(root, &objs, list.dir, list.tip, list.elems, list.count); err != nil {
			return plumbing.ZeroHash, nil, err
		}
	}
	if d.Files != nil {
		h.Files = len(d.Files)
		for _, f := range d.Files {
			mode, err := filemode.New(f.Mode)
			if err != nil {
				return plumbing.ZeroHash, nil, fmt.Errorf("file %s: %w", f.Path, err)
			}
			addBlob(filesDir+"/"+f.Path, mode, f.Content)
		}
	} else if t := treeOf(base, filesDir); !t.IsZero() {
		root.subtrees[filesDir] = t
	}
	rootHash, err := root.encode(&objs)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if err := s.writeObjects(objs, st.known); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	st.known.each(func(id plumbing.Hash) { objs = append(objs, rawObject{hash: id}) }) // for the tip cache
	return rootHash, objs, nil
}

func treeOf(t *snapshotTree, name string) plumbing.Hash {
	if t == nil {
		return plumbing.ZeroHash
	}
	switch name {
	case messagesDir:
		return t.messages
	case eventsDir:
		return t.events
	}
	return t.files
}

// deltaRest makes the new snapshot.json: the delta's members and the
// file notes, of the captured files or, when the tip's files are kept,
// the tip's.
func deltaRest(d Delta, tipRest map[string]any) (map[string]any, error) {
	rest := make(map[string]any, len(d.Rest)+1)
	for k, v := range d.Rest {
		if snapshot.StoredApart(k) {
			return nil, &snapshot.InputError{Path: "$." + k, Msg: k + " is appended, not replaced"}
		}
		rest[k] = v
	}
	switch {
	case len(d.Files) > 0:
		meta := make(map[string]any, len(d.Files))
		for _, f := range d.Files {
			if err := snapshot.CheckPath(f.Path); err != nil {
				return nil, &snapshot.InputError{Path: "$.files", Msg: err.Error()}
			}
			m := map[string]any{}
			if f.Mode != snapshot.ModeRegular {
				m["mode"] = f.Mode
			}
			if !utf8.Valid(f.Content) {
				m["encoding"] = "base64"
			}
			meta[f.Path] = m
		}
		rest[snapshot.MemberFiles] = meta
	case d.Files == nil && tipRest[snapshot.MemberFiles] != nil:
		rest[snapshot.MemberFiles] = tipRest[snapshot.MemberFiles]
	}
	return rest, nil
}

// redactDelta replaces secrets in what the delta adds.
func (s *Store) redactDelta(d Delta) (Delta, []redact.Finding) {
	r := s.opts.Redactor
	if r == nil {
		return d, nil
	}
	doc := map[string]any{"rest": d.Rest, "messages": d.Messages, "events": d.Events}
	out, found := r.Document(doc)
	red := Delta{}
	red.Rest, _ = out["rest"].(map[string]any)
	red.Messages, _ = out["messages"].([]any)
	red.Events, _ = out["events"].([]any)
	if d.Files != nil {
		red.Files = make([]snapshot.File, len(d.Files))
		for i, f := range d.Files {
			red.Files[i] = f
			if utf8.Valid(f.Content) {
				text, ff := r.String(string(f.Content))
				red.Files[i].Content = []byte(text)
				for _, x := range ff {
					x.Path = snapshot.FormatPath([]any{snapshot.MemberFiles, f.Path, "content"})
					found = append(found, x)
				}
			}
		}
	}
	return red, found
}

// appendElements adds elems after the count already in the tip's chunked
// directory, rewriting only the last chunk and the directory tree.
func (s *Store) appendElements(root *treeDraft, objs *[]rawObject, dir string, tipDir plumbing.Hash, elems []any, count *int) error {
	if len(elems) == 0 {
		if !tipDir.IsZero() {
			root.subtrees[dir] = tipDir
		}
		return nil
	}
	d := root.dir(dir)
	n := 0
	if !tipDir.IsZero() {
		t, err := s.reader.getTree(tipDir)
		if err != nil {
			return err
		}
		for i, c := range t.Entries {
			if c.Name != fmt.Sprintf("%04d", i) {
				return fmt.Errorf("%s/%s: not the layout git-snap writes", dir, c.Name)
			}
			d.subtrees[c.Name] = c.Hash
		}
		if len(t.Entries) > 0 { // the last chunk may be partly filled: reopen it
			last := t.Entries[len(t.Entries)-1]
			lt, err := s.reader.getTree(last.Hash)
			if err != nil {
				return err
			}
			delete(d.subtrees, last.Name)
			chunk := d.dir(last.Name)
			for _, e := range lt.Entries {
				chunk.blobs[e.Name] = blobEntry{e.Mode, e.Hash}
			}
			n = (len(t.Entries)-1)*chunkSize + len(lt.Entries)
		}
	}
	if n != *count {
		return fmt.Errorf("%s: the tip holds %d elements, its header says %d", dir, n, *count)
	}
	for i, e := range elems {
		data, err := snapshot.MarshalIndent(e)
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", dir, n+i, err)
		}
		o := newObject(plumbing.BlobObject, data)
		*objs = append(*objs, o)
		root.add(elementPath(dir, n+i), filemode.Regular, o.hash)
	}
	*count = n + len(elems)
	return nil
}

// Mark records a new snapshot of a session with the tip's content and a
// new header, e.g. the code commit a git hook saw. It fails for a
// session with no snapshot yet.
func (s *Store) Mark(ctx context.Context, o SaveOptions) (Entry, error) {
	return s.commitOnTip(ctx, s.header(o), func(tip plumbing.Hash, h *snapshot.Header, st tipState) (plumbing.Hash, []rawObject, error) {
		if tip.IsZero() {
			return plumbing.ZeroHash, nil, &RevisionError{o.Session, "names no session"}
		}
		e, err := s.Entry(ctx, tip)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		h.Turn, h.Messages, h.Events, h.Files = e.Header.Turn, e.Header.Messages, e.Header.Events, e.Header.Files
		if o.Source == "" { // the tip's source, not the default: nothing new was taken
			h.Source = e.Header.Source
		}
		var same []rawObject // the same tree: the tip's objects stay known
		st.known.each(func(id plumbing.Hash) { same = append(same, rawObject{hash: id}) })
		return e.Tree, same, nil
	})
}

// Rest reads a snapshot's members other than messages, events and files
// (snapshot.Others), as Append's next is given them.
func (s *Store) Rest(ctx context.Context, id plumbing.Hash) (map[string]any, error) {
	e, err := s.Entry(ctx, id)
	if err != nil {
		return nil, err
	}
	st, err := s.reader.open(e.Tree)
	if err != nil {
		return nil, err
	}
	p, err := s.loadRest(st)
	if err != nil {
		return nil, err
	}
	return snapshot.Others(p.Rest), nil
}
