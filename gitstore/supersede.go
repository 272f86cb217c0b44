package gitstore

import (
	"context"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// trailerSupersedes, on the tip a prune (or a pull that replayed local
// snapshots) wrote, names the tip that history replaced, and what that
// tip replaced in turn. It travels with the commit, so another clone
// that pulls the pruned history can tell it replaces the one it has,
// rather than merge the two and bring back what was pruned.
const trailerSupersedes = "Snap-Supersedes"

// supersedesTrailers are the trailers that make a new tip supersede old:
// old itself, everything old superseded, and also (shared) the tips
// remotes were last seen at, which other clones may have built on.
func (s *Store) supersedesTrailers(old plumbing.Hash, shared []plumbing.Hash) string {
	if old.IsZero() {
		return ""
	}
	var b strings.Builder
	for _, id := range append(append([]plumbing.Hash{old}, shared...), s.supersededBy(old)...) {
		b.WriteString(trailerSupersedes + ": " + id.String() + "\n")
	}
	return b.String()
}

// sharedTips are the tips of session that remotes were last seen at and
// that tip descends from: what other clones may hold and build on, which
// a prune of tip replaces too.
func (s *Store) sharedTips(ctx context.Context, session string, tip plumbing.Hash) ([]plumbing.Hash, error) {
	tracked, err := s.refs.List("refs/remotes/")
	if err != nil {
		return nil, err
	}
	var out []plumbing.Hash
	for ref, id := range tracked {
		if !strings.HasSuffix(ref, "/snap/"+session) || id == tip {
			continue
		}
		if ok, err := s.isAncestor(ctx, id, tip); err != nil {
			return nil, err
		} else if ok {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// supersededBy lists the ids a commit's trailers say it supersedes.
func (s *Store) supersededBy(id plumbing.Hash) []plumbing.Hash {
	c, err := object.GetCommit(s.st, id)
	if err != nil {
		return nil
	}
	var out []plumbing.Hash
	for _, line := range strings.Split(c.Message, "\n") {
		if v, ok := strings.CutPrefix(line, trailerSupersedes+": "); ok && plumbing.IsHash(v) {
			out = append(out, plumbing.NewHash(v))
		}
	}
	return out
}

// superseded is every id the first-parent chain of tip says it
// supersedes: a prune's new tip names the tip it replaced, and snapshots
// added on top of it keep that.
func (s *Store) superseded(ctx context.Context, tip plumbing.Hash) (map[plumbing.Hash]bool, error) {
	chain, err := s.firstParentChain(ctx, tip)
	if err != nil {
		return nil, err
	}
	out := map[plumbing.Hash]bool{}
	for _, e := range chain {
		for _, id := range s.supersededBy(e.ID) {
			out[id] = true
		}
	}
	return out, nil
}

// covers reports whether the history of tip replaced old: old is a tip it
// supersedes, or comes before one that is here to look at.
func (s *Store) covers(ctx context.Context, tip, old plumbing.Hash) (bool, error) {
	sup, err := s.superseded(ctx, tip)
	if err != nil || len(sup) == 0 {
		return false, err
	}
	if sup[old] {
		return true, nil
	}
	for w := range sup {
		if _, err := s.Entry(ctx, w); err != nil {
			continue // never fetched here
		}
		if ok, err := s.isAncestor(ctx, old, w); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// replayBase finds where local left the history remote superseded: the
// newest snapshot of local's first-parent chain that remote supersedes,
// and the local snapshots after it, oldest first. base is zero when
// local has none of it.
func (s *Store) replayBase(ctx context.Context, local, remote plumbing.Hash) (base plumbing.Hash, after []Entry, err error) {
	sup, err := s.superseded(ctx, remote)
	if err != nil || len(sup) == 0 {
		return plumbing.ZeroHash, nil, err
	}
	chain, err := s.firstParentChain(ctx, local)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if sup[chain[i].ID] {
			return chain[i].ID, chain[i+1:], nil
		}
	}
	return plumbing.ZeroHash, nil, nil
}
