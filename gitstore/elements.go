package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/snapshot"
)

// ElementRef is one stored message of a snapshot: its position and the
// blob that holds it. Equal blobs hold equal messages, so a reader that
// remembers blobs reads each message once however many snapshots hold it.
type ElementRef struct {
	Index int
	Blob  plumbing.Hash
}

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

// SnapshotTree reads a snapshot's root tree (a commit's Tree) and
// returns its messages and files trees, ZeroHash for a part it does not
// have. A tree of another format is refused.
func (s *Store) SnapshotTree(ctx context.Context, tree plumbing.Hash) (messages, files plumbing.Hash, err error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, err
	}
	root, err := object.GetTree(s.st, tree)
	if err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, fmt.Errorf("read snapshot tree %s: %w", tree, err)
	}
	known := false
	for _, e := range root.Entries {
		switch e.Name {
		case layout.FormatFile:
			known = e.Hash == markerBlob() // the marker's blob id says its content
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

// markerBlob is the id of the format marker's blob, computed when first
// needed so that no command pays for it at start-up.
var markerBlob = sync.OnceValue(func() plumbing.Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, []byte(layout.Marker))
})

// Chunks lists the chunk trees of a messages (or events) tree, in
// order. Equal chunk trees hold equal elements, so a reader that
// remembers chunks reads each once.
func (s *Store) Chunks(ctx context.Context, dir plumbing.Hash) ([]plumbing.Hash, error) {
	if err := ctx.Err(); err != nil || dir.IsZero() {
		return nil, err
	}
	t, err := object.GetTree(s.st, dir)
	if err != nil {
		return nil, fmt.Errorf("read messages tree %s: %w", dir, err)
	}
	out := make([]plumbing.Hash, len(t.Entries))
	for i, e := range t.Entries {
		out[i] = e.Hash
	}
	return out, nil
}

// ChunkElements lists the elements of one chunk tree in order.
func (s *Store) ChunkElements(ctx context.Context, chunk plumbing.Hash) ([]ElementRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := object.GetTree(s.st, chunk)
	if err != nil {
		return nil, fmt.Errorf("read chunk tree %s: %w", chunk, err)
	}
	out := make([]ElementRef, 0, len(t.Entries))
	for _, e := range t.Entries {
		i, ok := layout.ElementIndex(e.Name)
		if !ok {
			return nil, fmt.Errorf("unexpected entry %s in chunk tree %s", e.Name, chunk)
		}
		out = append(out, ElementRef{Index: i, Blob: e.Hash})
	}
	return out, nil
}

// Element reads one stored message or event by its blob id.
func (s *Store) Element(ctx context.Context, blob plumbing.Hash) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := s.st.blobData(blob)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", blob, err)
	}
	v, err := snapshot.Parse(data, snapshot.Limits{})
	if err != nil {
		return nil, fmt.Errorf("stored object %s: %w", blob, err)
	}
	return v, nil
}

// FilePaths lists the paths of the files under a snapshot's files tree
// (see SnapshotTree), without reading their contents. Paths that could
// leave a work tree are refused, as when the files are read.
func (s *Store) FilePaths(ctx context.Context, files plumbing.Hash) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []string
	err := s.reader.WalkFiles(files, func(p string, _ object.TreeEntry) error {
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read files tree %s: %w", files, err)
	}
	return out, nil
}
