package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// mergeSmallest keeps the number of segments bounded. Every update that
// finds something new writes a segment, usually a small one. When there
// are more than maxSegments small segments (under a quarter of a full
// one), they are merged into one, leaving out the docs of sessions that
// were dropped or rewritten since. Full segments, such as the first
// build writes, are left as they are.
func (x *Index) mergeSmallest(ctx context.Context, b *builder) error {
	m := b.m
	var small []string
	for _, n := range m.segments {
		if fi, err := os.Stat(filepath.Join(x.dir, n)); err == nil && fi.Size() < int64(x.segmentBytes/4) {
			small = append(small, n)
		}
	}
	if len(small) <= x.maxSegments {
		return nil
	}
	for _, name := range small {
		if err := b.copyLive(ctx, name); err != nil {
			return err
		}
	}
	m.segments = slices.DeleteFunc(m.segments, func(n string) bool { return slices.Contains(small, n) })
	return b.flush()
}

// copyLive adds to the builder the docs of a segment that still count.
func (b *builder) copyLive(ctx context.Context, name string) error {
	s, err := openSegment(b.x.dir, name)
	if errors.Is(err, errStale) { // we hold the lock, so a listed segment that is missing is damage
		err = fmt.Errorf("%w: %w", err, errCorrupt)
	}
	if err != nil {
		return err
	}
	defer s.close()
	snaps := map[uint32]uint32{} // maps the segment's snapshot rows to rows in the current writer
	w := b.w
	for blk := range s.nBlocks() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err := s.docs(blk)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if b.w != w { // flushed: the new writer needs its own snapshot rows
				snaps, w = map[uint32]uint32{}, b.w
			}
			if err := b.copyDoc(s, row, snaps); err != nil {
				return err
			}
		}
		if b.w.full() {
			if err := b.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyDoc adds a doc of s to the builder if its session still counts.
func (b *builder) copyDoc(s *segment, row docRow, snaps map[uint32]uint32) error {
	sr, err := s.snap(row.snap)
	if err != nil {
		return err
	}
	sess, gen, err := s.session(sr.session)
	if err != nil {
		return err
	}
	if st := b.m.sessions[sess]; st == nil || st.gen != gen {
		return nil
	}
	fields, err := s.fields(row)
	if err != nil {
		return err
	}
	role, err := s.str(row.role)
	if err != nil {
		return err
	}
	n, ok := snaps[row.snap]
	if !ok {
		label, err := s.str(sr.label)
		if err != nil {
			return err
		}
		n = b.w.snapshot(b.w.session(sess, gen), sr.commit, int(sr.seq), time.Unix(0, sr.time), label)
		snaps[row.snap] = n
	}
	var t time.Time
	if row.time != 0 {
		t = time.Unix(0, row.time)
	}
	b.w.add(n, int(row.message), role, t, fields)
	return nil
}
