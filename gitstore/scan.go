package gitstore

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
)

// ScanFinding is a secret found in a stored snapshot.
type ScanFinding struct {
	Snapshot Entry // the newest snapshot found to hold it
	redact.Finding
}

// Redactor returns the redactor saves use, or nil.
func (s *Store) Redactor() *redact.Redactor { return s.opts.Redactor }

// Scan audits history already saved: it reads every snapshot reachable
// from starts, each distinct stored object once, and reports what r finds.
func (s *Store) Scan(ctx context.Context, starts []plumbing.Hash, r *redact.Redactor, fn func(ScanFinding) error) error {
	seen := map[plumbing.Hash]bool{}
	return s.Walk(ctx, starts, func(e Entry) error {
		st, err := s.reader.open(e.Tree)
		if err != nil {
			return err
		}
		report := func(h plumbing.Hash, path []any, v any) error {
			if seen[h] {
				return nil
			}
			seen[h] = true
			doc := map[string]any{"x": v}
			_, found := r.Document(doc)
			for _, f := range found {
				f.Path = snapshot.FormatPath(path) + f.Path[len("$.x"):]
				if err := fn(ScanFinding{e, f}); err != nil {
					return err
				}
			}
			return nil
		}
		rest, err := s.reader.parse(st.document)
		if err != nil {
			return err
		}
		if err := report(st.document, nil, rest); err != nil {
			return err
		}
		for _, dir := range []struct {
			name string
			hash plumbing.Hash
		}{{snapshot.MemberMessages, st.messages}, {snapshot.MemberEvents, st.events}} {
			refs, chunks, err := s.reader.elements(dir.hash, seen)
			if err != nil {
				return err
			}
			defer func() { // a chunk read once need not be read again
				for c := range chunks {
					seen[c] = true
				}
			}()
			for _, ref := range refs {
				if seen[ref.hash] {
					continue
				}
				v, err := s.reader.parse(ref.hash)
				if err != nil {
					return err
				}
				if err := report(ref.hash, []any{dir.name, ref.index}, v); err != nil {
					return err
				}
			}
		}
		files, err := s.reader.files(st.files)
		if err != nil {
			return fmt.Errorf("scan %s: %w", e.ID, err)
		}
		for _, f := range files {
			if h := plumbing.ComputeHash(plumbing.BlobObject, f.Content); !seen[h] && !isBinary(f.Content) {
				if err := report(h, []any{snapshot.MemberFiles, f.Path}, string(f.Content)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func isBinary(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}
