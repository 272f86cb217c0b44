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

// update brings the index up to every session's tip, under the index's
// lock: sessions whose tip is unchanged cost a ref read; a session that
// moved on is read from its last indexed tip; one whose history was
// rewritten is read again whole.
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
		m = newManifest() // rebuilt from nothing; the cleanup below removes the old files
	} else if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	stamp := x.store.TipsStamp()
	if stamp != "" && stamp == m.stamp {
		return m, nil // no ref under the prefix moved since the sessions were read
	}
	tips, err := x.store.SessionTips(ctx)
	if err != nil {
		return nil, err
	}
	b := &builder{x: x, m: m, w: newSegWriter(x.segmentBytes), ex: newExtractor()}
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
	var damaged storage.DamagedSessions
	for _, name := range names {
		if st := m.sessions[name]; st != nil && st.tip == tips[name] {
			continue
		}
		err := b.session(ctx, name, tips[name])
		var skip *unreadTip
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
		// Looked at again by the next update, refs moved or not: a pull
		// may bring the objects back without moving a ref.
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

// rebuild drops the index and builds it again.
func (x *Index) rebuild(ctx context.Context) (*manifest, error) {
	if err := os.Remove(filepath.Join(x.dir, "manifest")); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("search index: %w", err)
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
	x    *Index
	m    *manifest
	w    *segWriter
	ex   *extractor
	prev blockState // of the session being read
}

// session indexes a session's snapshots up to tip.
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
			return nil // a ref someone else put under the prefix
		}
		if id == tip && gitstore.IsDamaged(err) {
			return &unreadTip{err} // nothing of it written yet: left out
		}
		if err != nil {
			return fmt.Errorf("index session %s: %w", name, err)
		}
		chain = append(chain, e)
		id = e.Parent
	}
	b.prev = blockState{msgs: map[storage.BlockID][]storage.MessageRef{}}
	if found && len(chain) > 0 { // read on from the indexed tip's messages
		if err := b.startAt(ctx, chain[len(chain)-1].Parent); err != nil {
			return fmt.Errorf("index session %s: %w", name, err)
		}
	}
	if !found { // new, or its history was rewritten: read it whole
		st = &sessionState{gen: b.m.nextGen}
		b.m.nextGen++
	}
	st.ready()
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

// unreadTip is a session whose newest snapshot does not read (an object
// missing or damaged): the index leaves it out, as git snap sessions
// does, and names it.
type unreadTip struct{ err error }

func (e *unreadTip) Error() string { return e.err.Error() }

// startAt makes snapshot id the one the next is compared with.
func (b *builder) startAt(ctx context.Context, id storage.ID) error {
	e, err := b.x.store.Entry(ctx, id)
	if err != nil {
		return err
	}
	b.prev.blocks, err = b.x.store.MessageBlocks(ctx, e)
	return err
}

// snapshot indexes what snapshot e added to its session: the messages
// that differ from the one at their place in the snapshot before (read
// block by block: blocks it shares with that one are skipped), and file
// paths the session had not yet named.
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

// blockState is the messages of the snapshot before the one being read,
// as blocks and the messages of those read.
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

// read lists a block's messages, remembering the last few blocks read:
// a session's snapshots change their last block one after another.
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

// flush writes the segment gathered so far.
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
