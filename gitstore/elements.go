package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/snapshot"
)

// SessionTips lists every session's newest snapshot id by session name.
// It reads refs only, no commit: what changed since a cache was built
// is the sessions whose tip moved.
func (s *Store) SessionTips(ctx context.Context) (map[string]plumbing.Hash, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	refs, err := s.refs.List(s.prefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]plumbing.Hash, len(refs))
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

// BlockID names a block of a snapshot's messages, stored together,
// without saying how: two blocks with equal BlockIDs hold the same
// messages at the same indexes, so a reader that remembers the blocks it
// has read (a search index) reads each once however many snapshots hold
// it. It is comparable and serves as a map key.
type BlockID struct{ h plumbing.Hash }

// MessageID names one stored message the same way: equal MessageIDs
// hold equal messages.
type MessageID struct{ h plumbing.Hash }

// MessageRef is one message of a block, not yet read: its index among
// the snapshot's messages and its id.
type MessageRef struct {
	Index int
	ID    MessageID
}

// MessageBlocks lists the blocks that hold snapshot e's messages, in
// the order of their indexes, reading no message. e is as Entry, Walk or
// Read return it. A snapshot of another format is refused.
func (s *Store) MessageBlocks(ctx context.Context, e Entry) ([]BlockID, error) {
	msgs, _, err := s.snapshotTree(ctx, e.Tree)
	if err != nil || msgs.IsZero() {
		return nil, err
	}
	t, err := s.st.tree(msgs)
	if err != nil {
		return nil, fmt.Errorf("read messages of snapshot %s: %w", e.ID, err)
	}
	out := make([]BlockID, len(t.Entries))
	for i, c := range t.Entries {
		out[i] = BlockID{c.Hash}
	}
	return out, nil
}

// BlockMessages lists the messages of one block in order, reading none
// of them.
func (s *Store) BlockMessages(ctx context.Context, b BlockID) ([]MessageRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := s.st.tree(b.h)
	if err != nil {
		return nil, fmt.Errorf("read message block %s: %w", b.h, err)
	}
	out := make([]MessageRef, 0, len(t.Entries))
	for _, e := range t.Entries {
		i, ok := layout.ElementIndex(e.Name)
		if !ok {
			return nil, fmt.Errorf("unexpected entry %s in message block %s", e.Name, b.h)
		}
		out = append(out, MessageRef{Index: i, ID: MessageID{e.Hash}})
	}
	return out, nil
}

// Message reads one stored message by its id.
func (s *Store) Message(ctx context.Context, id MessageID) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := s.st.blobData(id.h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", id.h, err)
	}
	v, err := snapshot.Parse(data, snapshot.Limits{})
	if err != nil {
		return nil, fmt.Errorf("stored object %s: %w", id.h, err)
	}
	return v, nil
}

// snapshotTree reads a snapshot's root tree (a commit's Tree) and
// returns its messages and files trees, ZeroHash for a part it does not
// have. A tree of another format is refused.
func (s *Store) snapshotTree(ctx context.Context, tree plumbing.Hash) (messages, files plumbing.Hash, err error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, err
	}
	root, err := s.st.tree(tree)
	if err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, fmt.Errorf("read snapshot tree %s: %w", tree, err)
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
			return plumbing.ZeroHash, plumbing.ZeroHash, fmt.Errorf("read snapshot tree %s: %w", tree, err)
		}
		return t.Messages, t.Files, nil
	}
	return messages, files, nil
}
