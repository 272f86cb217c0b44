package gitstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

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

// ChangedMessages lists the messages of snapshot id whose blob differs
// from the one at the same position in snapshot base (every message when
// base is ZeroHash), in order. Chunks the two share are not read.
func (s *Store) ChangedMessages(ctx context.Context, base, id plumbing.Hash) ([]ElementRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir, err := s.messagesDir(ctx, id)
	if err != nil {
		return nil, err
	}
	var baseDir plumbing.Hash
	if !base.IsZero() {
		if baseDir, err = s.messagesDir(ctx, base); err != nil {
			return nil, err
		}
	}
	if dir == baseDir {
		return nil, nil
	}
	baseChunks, err := s.chunks(baseDir)
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", base, err)
	}
	elems, chunks, err := s.reader.Elements(dir, baseChunks)
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	old, _, err := s.reader.Elements(baseDir, chunks) // base's side of the chunks that differ
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", base, err)
	}
	had := make(map[int]plumbing.Hash, len(old))
	for _, e := range old {
		had[e.Index] = e.Hash
	}
	var out []ElementRef
	for _, e := range elems {
		if had[e.Index] != e.Hash {
			out = append(out, ElementRef{Index: e.Index, Blob: e.Hash})
		}
	}
	return out, nil
}

// chunks is the set of chunk trees of a chunked directory, read
// without reading the chunks.
func (s *Store) chunks(dir plumbing.Hash) (map[plumbing.Hash]bool, error) {
	out := map[plumbing.Hash]bool{}
	if dir.IsZero() {
		return out, nil
	}
	t, err := object.GetTree(s.st, dir)
	if err != nil {
		return nil, err
	}
	for _, e := range t.Entries {
		out[e.Hash] = true
	}
	return out, nil
}

// messagesDir is the messages tree of a snapshot, ZeroHash when it has
// none.
func (s *Store) messagesDir(ctx context.Context, id plumbing.Hash) (plumbing.Hash, error) {
	e, err := s.Entry(ctx, id)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	t, err := s.reader.Open(e.Tree)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return t.Messages, nil
}

// Element reads one stored message or event by its blob id.
func (s *Store) Element(ctx context.Context, blob plumbing.Hash) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.reader.Parse(blob)
}

// FilePaths lists the paths of the files a snapshot captured, without
// reading their contents. Paths that could leave a work tree are
// refused, as when the files are read.
func (s *Store) FilePaths(ctx context.Context, id plumbing.Hash) ([]string, error) {
	e, err := s.Entry(ctx, id)
	if err != nil {
		return nil, err
	}
	t, err := s.reader.Open(e.Tree)
	if err != nil || t.Files.IsZero() {
		return nil, err
	}
	var out []string
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		tree, err := object.GetTree(s.st, h)
		if err != nil {
			return err
		}
		for _, en := range tree.Entries {
			p := prefix + en.Name
			if err := snapshot.CheckPath(p); err != nil {
				return fmt.Errorf("the snapshot holds an unsafe file: %w", err)
			}
			if en.Mode == filemode.Dir {
				if err := walk(en.Hash, p+"/"); err != nil {
					return err
				}
				continue
			}
			out = append(out, p)
		}
		return nil
	}
	if err := walk(t.Files, ""); err != nil {
		return nil, fmt.Errorf("read files of %s: %w", id, err)
	}
	return out, nil
}
