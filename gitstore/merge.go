package gitstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/snapshot"
)

// What Pull did to a session.
const (
	PullCreated     = "created"
	PullFastForward = "fast-forward"
	PullUpToDate    = "up to date"
	PullAhead       = "ahead" // the local session has all the remote's and more
	PullMerged      = "merged"
)

// PullResult says what Pull did to one session.
type PullResult struct {
	Session string
	Action  string
	Result  plumbing.Hash // the session's tip afterwards
	// Conflicts are JSON paths both sides changed differently since they
	// parted; the local value was kept, and the remote's stays in history.
	Conflicts []string
}

// Pull fetches a remote's sessions and brings each into the local one:
// a new session is created, one behind is fast-forwarded, and one that
// diverged gets a merge snapshot whose parents are both tips, so that
// neither side is ever lost. Checkpoints the remote has and this
// repository does not are added.
func (s *Store) Pull(ctx context.Context, o RemoteOptions) ([]PullResult, error) {
	if err := s.Fetch(ctx, o); err != nil {
		return nil, err
	}
	tips, err := s.RemoteTips(o.remote())
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(tips))
	for name := range tips {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []PullResult
	for _, name := range names {
		if len(o.Sessions) > 0 && !contains(o.Sessions, name) {
			continue
		}
		r, err := s.Integrate(ctx, name, tips[name], "pull "+o.remote())
		if err != nil {
			return out, fmt.Errorf("pull %s: %w", name, err)
		}
		out = append(out, r)
	}
	return out, s.adoptCheckpoints(ctx, "refs/remotes/"+trackingName(o.remote())+"/snap-checkpoints/")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// adoptCheckpoints adds the checkpoint tags found under prefix that this
// repository lacks; a name it has already is kept as it is.
func (s *Store) adoptCheckpoints(ctx context.Context, prefix string) error {
	refs, err := s.refs.List(prefix)
	if err != nil {
		return err
	}
	for ref, h := range refs {
		if err := s.adoptTag(ctx, TagPrefix+strings.TrimPrefix(ref, prefix), h); err != nil {
			return err
		}
	}
	return nil
}

// adoptTag creates a checkpoint tag another clone made, unless the name
// is taken here: the local one is kept.
func (s *Store) adoptTag(ctx context.Context, ref string, tag plumbing.Hash) error {
	if err := s.refs.Update(ctx, ref, plumbing.ZeroHash, tag); err != nil && !errors.Is(err, refs.ErrChanged) {
		return err
	}
	return nil
}

// Integrate brings a snapshot (another clone's tip of a session) into
// the local session, as Pull does.
func (s *Store) Integrate(ctx context.Context, session string, remote plumbing.Hash, label string) (PullResult, error) {
	ref := s.SessionRef(session)
	for {
		local, err := s.refs.Read(ref)
		if err != nil {
			return PullResult{}, err
		}
		r := PullResult{Session: session, Result: local}
		switch {
		case local.IsZero():
			r.Action, r.Result = PullCreated, remote
			err = s.refs.Update(ctx, ref, local, remote)
		case local == remote:
			r.Action = PullUpToDate
			return r, nil
		default:
			behind, err2 := s.isAncestor(ctx, local, remote) // the usual case, found in a step or two
			if err2 != nil {
				return r, err2
			}
			if behind {
				r.Action, r.Result = PullFastForward, remote
				err = s.refs.Update(ctx, ref, local, remote)
				break
			}
			var base plumbing.Hash
			if base, err = s.mergeBase(ctx, local, remote); err != nil {
				return r, err
			}
			if base == remote {
				r.Action = PullAhead
				return r, nil
			}
			r.Action = PullMerged
			r.Result, r.Conflicts, err = s.merge(ctx, ref, base, local, remote, label)
		}
		if errors.Is(err, refs.ErrChanged) {
			continue // the local session moved meanwhile: look again
		}
		if err == nil && r.Action != PullMerged {
			s.dropTipState(ref)
		}
		return r, err
	}
}

// isAncestor reports whether anc is desc or comes before it, walking back
// from desc only as far as it must.
func (s *Store) isAncestor(ctx context.Context, anc, desc plumbing.Hash) (bool, error) {
	found := false
	err := s.Walk(ctx, []plumbing.Hash{desc}, func(e Entry) error {
		if e.ID == anc {
			found = true
			return ErrStop
		}
		return nil
	})
	return found, err
}

// ancestors lists every snapshot reachable from id, id included.
func (s *Store) ancestors(ctx context.Context, id plumbing.Hash) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{}
	err := s.Walk(ctx, []plumbing.Hash{id}, func(e Entry) error {
		seen[e.ID] = true
		return nil
	})
	return seen, err
}

// mergeBase finds the newest snapshot both a and b descend from, or
// ZeroHash when they share none.
func (s *Store) mergeBase(ctx context.Context, a, b plumbing.Hash) (plumbing.Hash, error) {
	inA, err := s.ancestors(ctx, a)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var base plumbing.Hash
	err = s.Walk(ctx, []plumbing.Hash{b}, func(e Entry) error {
		if inA[e.ID] {
			base = e.ID
			return ErrStop
		}
		return nil
	})
	return base, err
}

// merge writes a snapshot uniting local and remote, with both as parents.
func (s *Store) merge(ctx context.Context, ref string, base, local, remote plumbing.Hash, label string) (plumbing.Hash, []string, error) {
	dl, el, err := s.Read(ctx, local)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	dr, er, err := s.Read(ctx, remote)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	db := map[string]any{}
	if !base.IsZero() {
		if db, _, err = s.Read(ctx, base); err != nil {
			return plumbing.ZeroHash, nil, err
		}
	}
	merged, conflicts := MergeDocuments(db, dl, dr)
	h, objs, err := s.prepare(merged, SaveOptions{Session: el.Header.Session, Label: label, Source: "pull", Time: s.opts.Now()})
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	tip, _ := s.tipState(ref, local)
	if err := s.writeObjects(objs, tip.known); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	h.Seq = max(el.Header.Seq, er.Header.Seq) + 1
	h.Started = el.Header.Started
	if er.Header.Started.Before(h.Started) {
		h.Started = er.Header.Started
	}
	sig := s.identity(h.Time)
	c := &object.Commit{Author: sig, Committer: sig, Message: commitMessage(h), TreeHash: objs[len(objs)-1].hash, ParentHashes: []plumbing.Hash{local, remote}}
	mem := &plumbing.MemoryObject{}
	if err := c.Encode(mem); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if err := s.setObject(mem); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if err := s.refs.Update(ctx, ref, local, mem.Hash()); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	s.saveTipState(ref, tipState{commit: mem.Hash(), seq: h.Seq, started: h.Started}, objs)
	return mem.Hash(), conflicts, nil
}

// MergeDocuments unites two documents that parted at base. Messages and
// events are united by id: the local ones in their order, then the
// remote's that the local side lacks. Files and other members merge three
// ways: a side's change is taken where the other kept base's value. Where
// both changed differently, the local value stays and its path is listed.
func MergeDocuments(base, local, remote map[string]any) (map[string]any, []string) {
	out := map[string]any{}
	var conflicts []string
	for _, k := range unionKeys(base, local, remote) {
		vb, inB := base[k]
		vl, inL := local[k]
		vr, inR := remote[k]
		switch k {
		case snapshot.MemberMessages, snapshot.MemberEvents:
			al, _ := vl.([]any)
			ar, _ := vr.([]any)
			merged, c := uniteByID(k, al, ar)
			conflicts = append(conflicts, c...)
			if inL || inR {
				out[k] = merged
			}
			continue
		case snapshot.MemberFiles:
			fb, _ := vb.(map[string]any)
			fl, _ := vl.(map[string]any)
			fr, _ := vr.(map[string]any)
			if inL || inR {
				merged := map[string]any{}
				for _, p := range unionKeys(fb, fl, fr) {
					if v, ok, c := threeWay(fb[p], fl[p], fr[p], hasKey(fb, p), hasKey(fl, p), hasKey(fr, p)); ok {
						merged[p] = v
						if c {
							conflicts = append(conflicts, snapshot.FormatPath([]any{k, p}))
						}
					}
				}
				out[k] = merged
			}
			continue
		}
		if v, ok, c := threeWay(vb, vl, vr, inB, inL, inR); ok {
			out[k] = v
			if c {
				conflicts = append(conflicts, snapshot.FormatPath([]any{k}))
			}
		}
	}
	return out, conflicts
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// threeWay picks a member's merged value; ok is false when it is gone.
func threeWay(vb, vl, vr any, inB, inL, inR bool) (v any, ok, conflict bool) {
	same := func(a, b any, inA, inB bool) bool { return inA == inB && (!inA || snapshot.Equal(a, b)) }
	switch {
	case same(vl, vr, inL, inR):
		return vl, inL, false
	case same(vb, vl, inB, inL): // only the remote changed it
		return vr, inR, false
	case same(vb, vr, inB, inR): // only the local side changed it
		return vl, inL, false
	}
	return vl, inL, true
}

func unionKeys(ms ...map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// uniteByID keeps the local elements and appends the remote's the local
// side lacks, matching by id (or, without one, by content).
func uniteByID(member string, local, remote []any) ([]any, []string) {
	key := func(e any) string {
		if m := snapshot.ViewMessage(e); m.ID != "" {
			return "id:" + m.ID
		}
		b, _ := snapshot.Marshal(e)
		return "json:" + string(b)
	}
	have := map[string]any{}
	out := append([]any{}, local...)
	for _, e := range local {
		have[key(e)] = e
	}
	var conflicts []string
	for _, e := range remote {
		k := key(e)
		mine, ok := have[k]
		switch {
		case !ok:
			out = append(out, e)
			have[k] = e
		case !snapshot.Equal(mine, e):
			conflicts = append(conflicts, fmt.Sprintf("$.%s[%s]", member, strings.TrimPrefix(k, "id:")))
		}
	}
	return out, conflicts
}
