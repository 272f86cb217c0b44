package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore"
)

// maxPaths bounds the paths remembered per session for --file and path
// hits.
const maxPaths = 10000

// update brings the index up to every session's tip, under the index's
// lock: sessions whose tip is unchanged cost a ref read; a session that
// moved on is read from its last indexed tip; one whose history was
// rewritten is read again whole.
func (x *Index) update(ctx context.Context) error {
	if err := os.MkdirAll(x.dir, 0o777); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	unlock, err := lock(ctx, filepath.Join(x.dir, "lock"))
	if err != nil {
		return err
	}
	defer unlock()
	m, err := readManifest(x.dir)
	if errors.Is(err, errCorrupt) {
		m = newManifest() // rebuilt from nothing; the cleanup below removes the old files
	} else if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	tips, err := x.store.SessionTips(ctx)
	if err != nil {
		return err
	}
	b := &builder{x: x, m: m, w: newSegWriter(), ex: newExtractor()}
	changed := false
	for name := range m.sessions {
		if _, ok := tips[name]; !ok {
			delete(m.sessions, name) // dropped: its docs no longer count
			changed = true
		}
	}
	names := make([]string, 0, len(tips))
	for name := range tips {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if st := m.sessions[name]; st != nil && st.tip == tips[name] {
			continue
		}
		if err := b.session(ctx, name, tips[name]); err != nil {
			return err
		}
		changed = true
	}
	if !changed {
		return nil
	}
	if err := b.flush(); err != nil {
		return err
	}
	if err := x.mergeSmallest(ctx, b); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(x.dir, "manifest"), m.encode()); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	x.removeUnlisted(m)
	return nil
}

// rebuild drops the index and builds it again.
func (x *Index) rebuild(ctx context.Context) error {
	if err := os.Remove(filepath.Join(x.dir, "manifest")); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("search index: %w", err)
	}
	return x.update(ctx)
}

// removeUnlisted removes segments the manifest no longer names and
// temporary files of writers that died. It runs under the lock, so no
// writer is at work; a reader that still maps a removed segment keeps
// reading it, and one that has yet to open it reads the manifest again.
func (x *Index) removeUnlisted(m *manifest) {
	entries, err := os.ReadDir(x.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if (strings.HasPrefix(n, "seg-") && !slices.Contains(m.segments, n)) || strings.HasPrefix(n, ".tmp-") {
			os.Remove(filepath.Join(x.dir, n))
		}
	}
}

// builder reads sessions into segments.
type builder struct {
	x  *Index
	m  *manifest
	w  *segWriter
	ex *extractor
}

// session indexes a session's snapshots up to tip.
func (b *builder) session(ctx context.Context, name string, tip plumbing.Hash) error {
	st := b.m.sessions[name]
	var chain []gitstore.Entry
	found := false
	for id := tip; !id.IsZero(); {
		if st != nil && id == st.tip {
			found = true
			break
		}
		e, err := b.x.store.Entry(ctx, id)
		if errors.Is(err, gitstore.ErrNotSnapshot) && id == tip {
			return nil // a ref someone else put under the prefix
		}
		if err != nil {
			return fmt.Errorf("index session %s: %w", name, err)
		}
		chain = append(chain, e)
		id = e.Parent
	}
	if !found { // new, or its history was rewritten: read it whole
		st = &sessionState{gen: b.m.nextGen, paths: map[string]bool{}, calls: map[string]string{}}
		b.m.nextGen++
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if err := b.snapshot(ctx, name, st, chain[i]); err != nil {
			return fmt.Errorf("index session %s: %w", name, err)
		}
	}
	st.tip = tip
	if len(chain) > 0 {
		st.time = chain[0].Header.Time.UnixNano()
		st.source = chain[0].Header.Source
	}
	b.m.sessions[name] = st
	return nil
}

// snapshot indexes what snapshot e added to its session: the messages
// whose blob differs from its parent's at their place, and file paths
// the session had not yet named.
func (b *builder) snapshot(ctx context.Context, name string, st *sessionState, e gitstore.Entry) error {
	s := b.x.store
	refs, err := s.ChangedMessages(ctx, e.Parent, e.ID)
	if err != nil {
		return err
	}
	snap, have := uint32(0), false
	row := func() uint32 {
		if !have {
			snap = b.w.snapshot(b.w.session(name, st.gen), e.ID, e.Header.Seq, e.Header.Time, e.Header.Label)
			have = true
		}
		return snap
	}
	var paths []string
	for _, r := range refs {
		v, err := s.Element(ctx, r.Blob)
		if err != nil {
			return err
		}
		ex := b.ex.extract(v, st.calls)
		if st.agent == "" {
			st.agent = ex.agent
		}
		paths = append(paths, ex.touched...)
		t := ex.time
		if t.IsZero() {
			t = e.Header.Time
		}
		b.w.add(row(), r.Index, ex.role, t, ex.fields)
	}
	if e.Header.Files > 0 {
		captured, err := s.FilePaths(ctx, e.ID)
		if err != nil {
			return err
		}
		paths = append(paths, captured...)
	}
	for _, p := range paths {
		if p == "" || st.paths[p] || len(st.paths) >= maxPaths {
			continue
		}
		st.paths[p] = true
		b.w.add(row(), -1, "", e.Header.Time, []field{{kind: kindPath, text: p}})
	}
	if b.w.size() >= b.x.segmentBytes {
		return b.flush()
	}
	return nil
}

// flush writes the segment gathered so far.
func (b *builder) flush() error {
	if b.w.empty() {
		return nil
	}
	name := newSegmentName()
	if err := writeAtomic(filepath.Join(b.x.dir, name), b.w.bytes()); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	b.m.segments = append(b.m.segments, name)
	b.w = newSegWriter()
	return nil
}
