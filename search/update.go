package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/storage"
)

// maxPaths bounds the paths remembered per session for --file and path
// hits.
const maxPaths = 10000

// update brings the index up to date with every session's newest
// snapshot, holding the index's lock. A session whose newest snapshot is
// unchanged costs one ref read. A session with new snapshots is read
// from the last snapshot indexed. A session whose history was rewritten
// is read again in full.
func (x *Index) update(ctx context.Context) (*manifest, error) {
	if err := os.MkdirAll(x.dir, 0o777); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	unlock, err := lock(ctx, filepath.Join(x.dir, "lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	m, err := readManifest(x.dir)
	if errors.Is(err, errCorrupt) {
		m = newManifest() // rebuild from scratch; the cleanup below removes the old files
	} else if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	stamp := x.store.TipsStamp()
	if stamp != "" && stamp == m.stamp {
		return m, nil // no ref under the prefix changed since the sessions were read
	}
	tips, err := x.store.SessionTips(ctx)
	if err != nil {
		return nil, err
	}
	b := &builder{x: x, m: m, w: newSegWriter(x.segmentBytes), ex: newExtractor()}
	changed := false
	for name := range m.sessions {
		if _, ok := tips[name]; !ok {
			delete(m.sessions, name) // the session was dropped, so its docs no longer count
			changed = true
		}
	}
	names := make([]string, 0, len(tips))
	for name := range tips {
		names = append(names, name)
	}
	slices.Sort(names)
	var damaged storage.DamagedSessions
	for _, name := range names {
		if st := m.sessions[name]; st != nil && st.tip == tips[name] {
			continue
		}
		err := b.session(ctx, name, tips[name])
		var skip *unreadableTip
		if errors.As(err, &skip) {
			damaged.Sessions = append(damaged.Sessions, storage.DamagedSession{Name: name, Tip: tips[name], Err: skip.err})
			continue
		}
		if err != nil {
			return nil, err
		}
		changed = true
	}
	x.damaged = nil
	if len(damaged.Sessions) > 0 {
		// Clear the stamp so that the next update checks these sessions
		// again even if no ref changed: a pull may restore the missing
		// objects without changing a ref.
		x.damaged, stamp = &damaged, ""
	}
	if !changed && stamp == m.stamp {
		return m, nil
	}
	m.stamp = stamp
	if err := b.flush(); err != nil {
		return nil, err
	}
	if err := x.mergeSmallest(ctx, b); err != nil {
		return nil, err
	}
	if err := writeAtomic(filepath.Join(x.dir, "manifest"), m.encode); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	x.removeUnlisted(m)
	return m, nil
}

// rebuild discards the index and builds it again.
func (x *Index) rebuild(ctx context.Context) (*manifest, error) {
	if err := os.Remove(filepath.Join(x.dir, "manifest")); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("search index: %w", err)
	}
	return x.update(ctx)
}

// removeUnlisted removes segments that the manifest no longer lists, and
// temporary files left by writers that died. It runs while holding the
// lock, so no writer is active. A reader that still has a removed
// segment open can keep reading it, and a reader that has not opened it
// yet gets errStale and reads the manifest again.
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
	x    *Index
	m    *manifest
	w    *segWriter
	ex   *extractor
	prev blockState // the previous snapshot of the session being read
}

// session indexes a session's snapshots up to tip, its newest snapshot.
func (b *builder) session(ctx context.Context, name string, tip storage.ID) error {
	st := b.m.sessions[name]
	var chain []storage.Entry
	found := false
	for id := tip; !id.IsZero(); {
		if st != nil && id == st.tip {
			found = true
			break
		}
		e, err := b.x.store.Entry(ctx, id)
		if errors.Is(err, storage.ErrNotSnapshot) && id == tip {
			return nil // a ref that something else created under the prefix
		}
		if id == tip && gitstore.IsDamaged(err) {
			return &unreadableTip{err} // nothing indexed yet, so skip the session
		}
		if err != nil {
			return fmt.Errorf("index session %s: %w", name, err)
		}
		chain = append(chain, e)
		id = e.Parent
	}
	b.prev = blockState{msgs: map[storage.BlockID][]storage.MessageRef{}}
	if found && len(chain) > 0 { // continue from the messages of the last snapshot indexed
		if err := b.startAt(ctx, chain[len(chain)-1].Parent); err != nil {
			return fmt.Errorf("index session %s: %w", name, err)
		}
	}
	if !found { // a new session, or its history was rewritten: read it in full
		st = &sessionState{gen: b.m.nextGen}
		b.m.nextGen++
	}
	st.initMaps()
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

// unreadableTip reports a session whose newest snapshot cannot be read
// because an object is missing or damaged. The index skips the session,
// as git snap sessions does, and reports its name.
type unreadableTip struct{ err error }

func (e *unreadableTip) Error() string { return e.err.Error() }

// startAt makes snapshot id the one that the next snapshot is compared
// with.
func (b *builder) startAt(ctx context.Context, id storage.ID) error {
	e, err := b.x.store.Entry(ctx, id)
	if err != nil {
		return err
	}
	b.prev.blocks, err = b.x.store.MessageBlocks(ctx, e)
	return err
}

// snapshot indexes what snapshot e added to its session: the messages
// that differ from the message at the same index in the previous
// snapshot, and file paths the session had not named before. Messages
// are read block by block, and blocks shared with the previous snapshot
// are skipped.
func (b *builder) snapshot(ctx context.Context, name string, st *sessionState, e storage.Entry) error {
	s := b.x.store
	blocks, err := s.MessageBlocks(ctx, e)
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
	for k, c := range blocks {
		changed, err := b.prev.changed(ctx, s, k, c)
		if err != nil {
			return err
		}
		for _, r := range changed {
			v, err := s.Message(ctx, r.ID)
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
	}
	b.prev.blocks = blocks
	if e.Header.Files > 0 {
		captured, err := s.Files(ctx, e)
		if err != nil {
			return err
		}
		for _, f := range captured.Files {
			paths = append(paths, f.Path)
		}
	}
	for _, p := range paths {
		if p == "" || st.paths[p] || len(st.paths) >= maxPaths {
			continue
		}
		st.paths[p] = true
		b.w.add(row(), -1, "", e.Header.Time, []field{{kind: kindPath, text: p}})
	}
	if b.w.full() {
		return b.flush()
	}
	return nil
}

// blockState holds the previous snapshot's messages: its list of blocks,
// and the messages of the blocks read so far.
type blockState struct {
	blocks []storage.BlockID
	msgs   map[storage.BlockID][]storage.MessageRef
}

// changed returns the messages of block c, at position k, that differ
// from the previous snapshot's at their index.
func (p *blockState) changed(ctx context.Context, s storage.Contents, k int, c storage.BlockID) ([]storage.MessageRef, error) {
	if k < len(p.blocks) && p.blocks[k] == c {
		return nil, nil
	}
	now, err := p.read(ctx, s, c)
	if err != nil || k >= len(p.blocks) {
		return now, err
	}
	before, err := p.read(ctx, s, p.blocks[k])
	if err != nil {
		return nil, err
	}
	had := make(map[int]storage.MessageID, len(before))
	for _, m := range before {
		had[m.Index] = m.ID
	}
	var out []storage.MessageRef
	for _, m := range now {
		if had[m.Index] != m.ID {
			out = append(out, m)
		}
	}
	return out, nil
}

// read returns a block's messages and caches the most recent blocks
// read, because successive snapshots of a session keep changing their
// last block.
func (p *blockState) read(ctx context.Context, s storage.Contents, c storage.BlockID) ([]storage.MessageRef, error) {
	if m, ok := p.msgs[c]; ok {
		return m, nil
	}
	m, err := s.BlockMessages(ctx, c)
	if err != nil {
		return nil, err
	}
	if len(p.msgs) >= 64 {
		clear(p.msgs)
	}
	p.msgs[c] = m
	return m, nil
}

// flush writes the segment collected so far.
func (b *builder) flush() error {
	if b.w.empty() {
		return nil
	}
	name := newSegmentName()
	if err := writeAtomic(filepath.Join(b.x.dir, name), b.w.write); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	b.m.segments = append(b.m.segments, name)
	b.w = newSegWriter(b.x.segmentBytes)
	return nil
}
