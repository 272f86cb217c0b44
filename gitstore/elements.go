package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// SessionTips lists every session's newest snapshot id by session name.
// It reads refs only, no commit: what changed since a cache was built
// is the sessions whose tip moved.
func (s *Store) SessionTips(ctx context.Context) (map[string]storage.ID, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	refs, err := s.refs.List(s.prefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]storage.ID, len(refs))
	for ref, h := range refs {
		out[strings.TrimPrefix(ref, s.prefix)] = h
	}
	return out, nil
}

// TipsStamp describes where the session refs are kept (the session refs'
// directory and packed-refs) by their file times and sizes: git moves a
// ref by renaming a lock file into place, which changes its directory,
// so while the stamp is the same, SessionTips is too and need not be
// read again. A stamp taken within a second of a change is "" (file
// systems with coarse times could miss the next one): never trusted.
func (s *Store) TipsStamp() string {
	now := s.opts.Now()
	var b strings.Builder
	for _, p := range []string{filepath.Join(s.paths.CommonDir, filepath.FromSlash(strings.TrimSuffix(s.prefix, "/"))), filepath.Join(s.paths.CommonDir, "packed-refs")} {
		fi, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(&b, "-;")
			continue
		}
		if now.Sub(fi.ModTime()) < time.Second {
			return ""
		}
		fmt.Fprintf(&b, "%d.%d;", fi.ModTime().UnixNano(), fi.Size())
	}
	return b.String()
}

// MessageBlocks lists the blocks that hold snapshot e's messages, in
// the order of their indexes, reading no message. e is as Entry, Walk or
// Read return it. A snapshot of another format is refused.
func (s *Store) MessageBlocks(ctx context.Context, e storage.Entry) ([]storage.BlockID, error) {
	msgs, _, err := s.snapshotTree(ctx, e.Tree)
	if err != nil || msgs.IsZero() {
		return nil, err
	}
	t, err := s.st.tree(msgs)
	if err != nil {
		return nil, fmt.Errorf("read messages of snapshot %s: %w", e.ID, err)
	}
	out := make([]storage.BlockID, len(t.Entries))
	for i, c := range t.Entries {
		out[i] = storage.BlockID(c.Hash)
	}
	return out, nil
}

// BlockMessages lists the messages of one block in order, reading none
// of them.
func (s *Store) BlockMessages(ctx context.Context, b storage.BlockID) ([]storage.MessageRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := s.st.tree(storage.ID(b))
	if err != nil {
		return nil, fmt.Errorf("read message block %s: %w", storage.ID(b), err)
	}
	out := make([]storage.MessageRef, 0, len(t.Entries))
	for _, e := range t.Entries {
		i, ok := layout.ElementIndex(e.Name)
		if !ok {
			return nil, fmt.Errorf("unexpected entry %s in message block %s", e.Name, storage.ID(b))
		}
		out = append(out, storage.MessageRef{Index: i, ID: storage.MessageID(e.Hash)})
	}
	return out, nil
}

// Message reads one stored message by its id.
func (s *Store) Message(ctx context.Context, id storage.MessageID) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := s.st.blobData(storage.ID(id))
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", storage.ID(id), err)
	}
	v, err := snapshot.Parse(data, snapshot.Limits{})
	if err != nil {
		return nil, fmt.Errorf("stored object %s: %w", storage.ID(id), err)
	}
	return v, nil
}

// snapshotTree reads a snapshot's root tree (a commit's Tree) and
// returns its messages and files trees, ZeroHash for a part it does not
// have. A tree of another format is refused.
func (s *Store) snapshotTree(ctx context.Context, tree storage.ID) (messages, files storage.ID, err error) {
	if err := ctx.Err(); err != nil {
		return storage.ID{}, storage.ID{}, err
	}
	root, err := s.st.tree(tree)
	if err != nil {
		return storage.ID{}, storage.ID{}, fmt.Errorf("read snapshot tree %s: %w", tree, err)
	}
	known := false
	for _, e := range root.Entries {
		switch e.Name {
		case layout.FormatFile:
			known = e.Hash == layout.MarkerBlob() // the marker's blob id says its content
		case layout.MessagesDir:
			messages = e.Hash
		case layout.FilesDir:
			files = e.Hash
		}
	}
	if !known { // read it as any snapshot is read, for the error
		t, err := s.reader.Open(tree)
		if err != nil {
			return storage.ID{}, storage.ID{}, fmt.Errorf("read snapshot tree %s: %w", tree, err)
		}
		return t.Messages, t.Files, nil
	}
	return messages, files, nil
}
