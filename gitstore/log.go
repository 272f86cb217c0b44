package gitstore

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrStop ends a Walk early without error.
var ErrStop = errors.New("stop walking")

// Walk visits the snapshots reachable from starts, newest first (by
// commit time, as git log orders them), each once. It reads commits
// only, never trees. fn may return ErrStop to end the walk.
func (s *Store) Walk(ctx context.Context, starts []plumbing.Hash, fn func(Entry) error) error {
	q := &commitQueue{}
	seen := map[plumbing.Hash]bool{}
	push := func(h plumbing.Hash) error {
		if h.IsZero() || seen[h] {
			return nil
		}
		seen[h] = true
		c, err := object.GetCommit(s.st, h)
		if err != nil {
			return fmt.Errorf("read snapshot %s: %w", h, err)
		}
		heap.Push(q, queued{c, len(seen)})
		return nil
	}
	for _, h := range starts {
		if err := push(h); err != nil {
			return err
		}
	}
	for q.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := heap.Pop(q).(queued).Commit
		e, err := entryOf(c)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
		for _, p := range c.ParentHashes {
			if err := push(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// queued is a commit waiting in the walk; order breaks ties in time, so
// that the output does not depend on the heap's whims.
type queued struct {
	*object.Commit
	order int
}

// commitQueue orders commits newest first, then first seen first.
type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	if ti, tj := q[i].Committer.When, q[j].Committer.When; !ti.Equal(tj) {
		return ti.After(tj)
	}
	return q[i].order < q[j].order
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

// Session is one session's branch and its latest snapshot.
type Session struct {
	Name string
	Ref  string
	Tip  Entry // Tip.Header.Seq counts the snapshots
}

// Sessions lists every session, most recently active first.
func (s *Store) Sessions(ctx context.Context) ([]Session, error) {
	refs, err := s.refs.List(s.prefix)
	if err != nil {
		return nil, err
	}
	var out []Session
	for ref, h := range refs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := s.Entry(ctx, h)
		if errors.Is(err, ErrNotSnapshot) {
			continue // a ref someone else put under the prefix
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Session{Name: strings.TrimPrefix(ref, s.prefix), Ref: ref, Tip: e})
	}
	slices.SortFunc(out, func(a, b Session) int {
		if c := b.Tip.Header.Time.Compare(a.Tip.Header.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// SessionTip returns a session's newest snapshot id, or ZeroHash.
func (s *Store) SessionTip(session string) (plumbing.Hash, error) {
	return s.refs.Read(s.SessionRef(session))
}
