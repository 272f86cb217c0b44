package gitstore

import (
	"context"
	"fmt"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// ScanFinding is a secret found in a stored snapshot.
type ScanFinding struct {
	Snapshot storage. // the newest snapshot found to hold it
			Entry
	redact.Finding
}

// Redactor returns the redactor saves use, or nil.
func (s *Store) Redactor() *redact.Redactor { return s.opts.Redactor }

// Scan audits history already saved: it reads every snapshot reachable
// from starts, each distinct stored object once, and reports what r finds.
func (s *Store) Scan(ctx context.Context, starts []storage.ID, r *redact.Redactor, fn func(ScanFinding) error) error {
	sc := &scanner{read: s.reader, r: r, fn: fn, seen: map[storage.ID]bool{}}
	return s.Walk(ctx, starts, sc.snapshot)
}

// scanner reports what a redactor finds in stored objects. Snapshots
// share most of their objects with the one before: seen, by object id,
// makes each read once.
type scanner struct {
	read layout.Reader
	r    *redact.Redactor
	fn   func(ScanFinding) error
	seen map[storage.ID]bool
}

func (sc *scanner) snapshot(e storage.Entry) error {
	st, err := sc.read.Open(e.Tree)
	if err != nil {
		return err
	}
	if !sc.seen[st.Document] {
		rest, err := sc.read.Parse(st.Document)
		if err != nil {
			return err
		}
		if err := sc.report(e, st.Document, nil, rest); err != nil {
			return err
		}
	}
	if err := sc.elements(e, snapshot.MemberMessages, st.Messages); err != nil {
		return err
	}
	if err := sc.elements(e, snapshot.MemberEvents, st.Events); err != nil {
		return err
	}
	return sc.files(e, st.Files)
}

// elements scans the elements of a chunked directory not seen before.
func (sc *scanner) elements(e storage.Entry, member string, dir storage.ID) error {
	refs, chunks, err := sc.read.Elements(dir, sc.seen)
	if err != nil {
		return err
	}
	for _, ref := range refs {
		if sc.seen[ref.Hash] {
			continue
		}
		v, err := sc.read.Parse(ref.Hash)
		if err != nil {
			return err
		}
		if err := sc.report(e, ref.Hash, []any{member, ref.Index}, v); err != nil {
			return err
		}
	}
	for c := range chunks { // every element of a chunk is seen now: skip it unread next time
		sc.seen[c] = true
	}
	return nil
}

// files scans the captured text files not seen before.
func (sc *scanner) files(e storage.Entry, tree storage.ID) error {
	files, err := sc.read.Files(tree)
	if err != nil {
		return fmt.Errorf("scan %s: %w", e.ID, err)
	}
	for _, f := range files {
		if h := layout.BlobHash(f.Content); !sc.seen[h] && redact.MostlyText(f.Content) { // as saves redact
			if err := sc.report(e, h, []any{snapshot.MemberFiles, f.Path}, string(f.Content)); err != nil {
				return err
			}
		}
	}
	return nil
}

// report passes on what the redactor finds in v, the object h at path in
// snapshot e, and marks h seen.
func (sc *scanner) report(e storage.Entry, h storage.ID, path []any, v any) error {
	sc.seen[h] = true
	_, found := sc.r.Document(map[string]any{"x": v})
	for _, f := range found {
		f.Path = snapshot.FormatPath(path) + f.Path[len("$.x"):]
		if err := sc.fn(ScanFinding{e, f}); err != nil {
			return err
		}
	}
	return nil
}
