package gitstore

import (
	"container/heap"
	"context"
	"errors"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/git-snap/git-snap/storage"
)

// Walk visits the snapshots reachable from starts, newest first (by
// commit time, as git log orders them), each once. It reads commits
// only, never trees. fn may return ErrStop to end the walk.
func (s *Store) Walk(ctx context.Context, starts []storage.ID, fn func(storage.Entry) error) error {
	return s.WalkRange(ctx, RevRange{Include: starts}, fn)
}

// WalkRange is Walk over what r selects: the snapshots reachable from
// r.Include and not from r.Exclude, as git log A..B and ^A B select, newest
// first. Without exclusions it streams in time order as Walk does. With
// them it walks by generation, so that excluded history hides what it
// reaches before that can be shown, and then gives what is left in time
// order; excluded history is walked only as far as it can still hide
// something.
func (s *Store) WalkRange(ctx context.Context, r RevRange, fn func(storage.Entry) error) error {
	ranged := len(r.Exclude) > 0
	w := &rangeWalk{s: s, seen: map[storage.ID]*queued{}, byGeneration: ranged}
	if !ranged {
		return w.walk(ctx, r, fn)
	}
	var shown []storage.Entry
	err := w.walk(ctx, r, func(e storage.Entry) error { shown = append(shown, e); return nil })
	if err != nil {
		return err
	}
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].Header.Time.After(shown[j].Header.Time) })
	for _, e := range shown {
		if err := fn(e); errors.Is(err, storage.ErrStop) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

func (w *rangeWalk) walk(ctx context.Context, r RevRange, fn func(storage.Entry) error) error {
	if err := w.pushAll(r.Exclude, true); err != nil {
		return err
	}
	if err := w.pushAll(r.Include, false); err != nil {
		return err
	}
	for _, e := range r.Read {
		w.push(e.ID, e, nil, false)
	}
	heap.Init(&w.q)
	w.started = true
	for w.q.Len() > 0 && w.visible > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		it := heap.Pop(&w.q).(*queued)
		it.popped = true
		if !it.hidden {
			w.visible--
			if it.notSnapshot != nil {
				return it.notSnapshot
			}
			if err := fn(it.Entry); errors.Is(err, storage.ErrStop) {
				return nil
			} else if err != nil {
				return err
			}
		}
		if err := w.pushAll(it.parents(), it.hidden); err != nil {
			return err
		}
	}
	return nil
}

// rangeWalk is the state of one WalkRange: the commits queued and seen,
// and how many queued ones are not hidden (the walk ends at none).
type rangeWalk struct {
	s            *Store
	q            commitQueue
	seen         map[storage.ID]*queued
	visible      int
	byGeneration bool // order by Snap-Seq: a range's exclusions must see children first
	started      bool // the queue is a heap: pushes go through heap.Push
}

// pushAll queues commits; hidden ones hide what they reach, also a
// commit queued before as visible and not yet shown.
func (w *rangeWalk) pushAll(hs []storage.ID, hidden bool) error {
	for _, h := range hs {
		if h.IsZero() {
			continue
		}
		if it, ok := w.seen[h]; ok {
			if hidden && !it.hidden && !it.popped {
				it.hidden = true
				w.visible--
			}
			continue
		}
		e, ok, err := w.s.commitEntry(h)
		if err != nil {
			return err
		}
		var notSnapshot error
		if !ok {
			notSnapshot = errNotSnapshot(h)
		}
		w.push(h, e, notSnapshot, hidden)
	}
	return nil
}

// push queues one commit not seen before. Before the walk starts the
// queue is filled as a list and made a heap once.
func (w *rangeWalk) push(h storage.ID, e storage.Entry, notSnapshot error, hidden bool) {
	if _, ok := w.seen[h]; ok {
		return
	}
	it := &queued{Entry: e, notSnapshot: notSnapshot, order: len(w.seen), hidden: hidden}
	if w.byGeneration {
		it.gen = e.Header.Seq
	}
	w.seen[h] = it
	if w.started {
		heap.Push(&w.q, it)
	} else {
		w.q = append(w.q, it)
	}
	if !hidden {
		w.visible++
	}
}

// queued is a commit waiting in the walk; order breaks ties in time, so
// that the output does not depend on the heap's whims. A hidden commit is
// reachable from an excluded one: it is not shown, and hides its parents.
// A commit that is not a snapshot (notSnapshot) is an error once it is
// to be shown, not when it is only passed through hidden.
type queued struct {
	storage.Entry

	notSnapshot error
	order       int
	// gen is a range walk's generation, the snapshot's sequence number,
	// which is higher than each of its parents' (save, merge and prune
	// all number so); 0 in a plain walk. Ordered by it, a walk pops every
	// child before its parents, so a hidden commit hides its ancestors
	// before they can be shown, whatever the commit dates say. Dates
	// alone are not enough: a snapshot is dated by its records, and an
	// imported or forked session's records can be older than its
	// parents'.
	gen            int
	hidden, popped bool
}

// parents are the commit's parents, first parent first.
func (it *queued) parents() []storage.ID {
	if it.Merged == nil {
		return []storage.ID{it.Parent}
	}
	return append([]storage.ID{it.Parent}, it.Merged...)
}

// commitQueue orders commits by generation, then newest first, then first
// seen first.
type commitQueue []*queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	if q[i].gen != q[j].gen {
		return q[i].gen > q[j].gen
	}
	if ti, tj := q[i].Header.Time, q[j].Header.Time; !ti.Equal(tj) {
		return ti.After(tj)
	}
	return q[i].order < q[j].order
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(*queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

// Sessions lists every session, most recently active first. Sessions
// whose newest snapshot cannot be read are left out and named by a
// *DamagedSessions error returned with the others.
func (s *Store) Sessions(ctx context.Context) ([]storage.Session, error) {
	var out []storage.Session
	err := s.EachSession(ctx, func(sess storage.Session) error {
		out = append(out, sess)
		return nil
	})
	var damaged *storage.DamagedSessions
	if err != nil && !errors.As(err, &damaged) {
		return nil, err
	}
	slices.SortFunc(out, func(a, b storage.Session) int {
		if c := b.Tip.Header.Time.Compare(a.Tip.Header.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if out == nil {
		out = []storage.Session{}
	}
	return out, err
}

// sessionBatch is how many sessions' tips EachSession reads before it
// hands them on: enough to keep every core busy, few enough that a
// listing of 100k sessions never holds all their full headers at once.
const sessionBatch = 1024

// EachSession calls keep with every session whose newest snapshot can be
// read, in the order of their names, and then returns a
// *DamagedSessions error naming those that could not be read, if any;
// an error from keep ends it. A command listing 100k sessions keeps only
// what it shows of each (Sessions keeps them all).
func (s *Store) EachSession(ctx context.Context, keep func(storage.Session) error) error {
	refs, err := s.refs.List(s.prefix)
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(refs))
	ids := make([]storage.ID, len(names))
	for i, ref := range names {
		ids[i] = refs[ref]
	}
	var damaged storage.DamagedSessions
	for start := 0; start < len(names); start += sessionBatch {
		end := min(start+sessionBatch, len(names))
		tips, errs := s.entries(ctx, ids[start:end])
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, ref := range names[start:end] {
			name := strings.TrimPrefix(ref, s.prefix)
			switch {
			case errors.Is(errs[i], storage.ErrNotSnapshot):
				continue // a ref someone else put under the prefix
			case errs[i] != nil:
				damaged.Sessions = append(damaged.Sessions, storage.DamagedSession{Name: name, Tip: ids[start+i], Err: errs[i]})
				continue
			}
			if err := keep(storage.Session{Name: name, Ref: ref, Tip: tips[i]}); err != nil {
				return err
			}
		}
	}
	if len(damaged.Sessions) > 0 {
		return &damaged
	}
	return nil
}

// entries reads many snapshots' commits, each with its error. A list of
// sessions reads one commit per session, and little else: with more than
// a few dozen they are read on as many goroutines as the process may run
// at once (the object reader is safe for that), where git for-each-ref
// reads them on one.
func (s *Store) entries(ctx context.Context, ids []storage.ID) ([]storage.Entry, []error) {
	const perWorker = 32 // fewer reads than this do not pay for a goroutine
	out, errs := make([]storage.Entry, len(ids)), make([]error, len(ids))
	var next atomic.Int64
	read := func() {
		for i := int(next.Add(1) - 1); i < len(ids); i = int(next.Add(1) - 1) {
			if errs[i] = ctx.Err(); errs[i] == nil {
				out[i], errs[i] = s.uncachedEntry(ids[i])
			}
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ids)/perWorker) - 1 {
		wg.Go(read)
	}
	read()
	wg.Wait()
	return out, errs
}

// SessionTip returns a session's newest snapshot id, or ZeroHash.
func (s *Store) SessionTip(session string) (storage.ID, error) {
	return s.refs.Read(s.SessionRef(session))
}
