package gitstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// trailerSupersedes, on the tip a prune (or a pull that replayed local
// snapshots) wrote, names the tip that history replaced, and what that
// tip replaced in turn. It travels with the commit, so another clone
// that pulls the pruned history can tell it replaces the one it has,
// rather than merge the two and bring back what was pruned.
const trailerSupersedes = "Snap-Supersedes"

// trailerPrune, on a pruned tip, says which prune made it: the tip it
// pruned and the rules it kept snapshots by, at the time it ran. A claim
// to supersede is not taken on its word: a clone that holds the pruned
// tip applies the same rules to its own copy of that chain, and only
// snapshots the rules drop may be missing from the new history (see
// accounts).
const trailerPrune = "Snap-Prune"

// pruneRecord is one Snap-Prune trailer read back.
type pruneRecord struct {
	old  storage.ID
	opts PruneOptions
	at   time.Time
}

// String writes the record as a Snap-Prune value: the old tip, then the
// rules as prune's flags name them, then the time.
func (p pruneRecord) String() string {
	parts := []string{p.old.String()}
	if p.opts.KeepLast > 0 {
		parts = append(parts, "keep-last="+strconv.Itoa(p.opts.KeepLast))
	}
	if p.opts.KeepFirst {
		parts = append(parts, "keep-first")
	}
	if p.opts.KeepCheckpoints {
		parts = append(parts, "keep-checkpoints")
	}
	if p.opts.KeepLatestPerLabel {
		parts = append(parts, "keep-latest-per-label")
	}
	if p.opts.OlderThan > 0 {
		parts = append(parts, fmt.Sprintf("older-than=%ds", int64(p.opts.OlderThan/time.Second)))
	}
	return strings.Join(append(parts, "at="+p.at.UTC().Format(time.RFC3339)), " ")
}

// parsePruneRecord reads a Snap-Prune value; ok is false for anything
// that does not read whole, which then explains nothing.
func parsePruneRecord(v string) (pruneRecord, bool) {
	f := strings.Fields(v)
	if len(f) < 2 || !storage.IsID(f[0]) {
		return pruneRecord{}, false
	}
	p := pruneRecord{old: storage.NewID(f[0])}
	for _, w := range f[1:] {
		key, val, _ := strings.Cut(w, "=")
		var err error
		switch key {
		case "keep-last":
			p.opts.KeepLast, err = strconv.Atoi(val)
		case "keep-first":
			p.opts.KeepFirst = true
		case "keep-checkpoints":
			p.opts.KeepCheckpoints = true
		case "keep-latest-per-label":
			p.opts.KeepLatestPerLabel = true
		case "older-than":
			var n int64
			n, err = strconv.ParseInt(strings.TrimSuffix(val, "s"), 10, 64)
			p.opts.OlderThan = time.Duration(n) * time.Second
		case "at":
			p.at, err = time.Parse(time.RFC3339, val)
		default:
			return pruneRecord{}, false
		}
		if err != nil || p.opts.KeepLast < 0 || p.opts.OlderThan < 0 {
			return pruneRecord{}, false
		}
	}
	return p, !p.at.IsZero()
}

// supersedesTrailers are the trailers that make a new tip supersede old:
// old itself, everything old's chain superseded, and also (shared) the
// tips remotes were last seen at, which other clones may have built on;
// then the prune that made it (rule, when this is a prune) and the
// prunes old's chain records, so that a clone holding any of the tips
// those pruned can check what was dropped.
func (s *Store) supersedesTrailers(ctx context.Context, old storage.ID, shared []storage.ID, rule *pruneRecord) (string, error) {
	if old.IsZero() {
		return "", nil
	}
	sup, prunes, err := s.chainRecords(ctx, old)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	seen := map[storage.ID]bool{}
	for _, id := range append(append([]storage.ID{old}, shared...), sup...) {
		if !seen[id] {
			seen[id] = true
			b.WriteString(trailerSupersedes + ": " + id.String() + "\n")
		}
	}
	if rule != nil {
		prunes = append([]pruneRecord{*rule}, prunes...)
	}
	for _, p := range prunes {
		b.WriteString(trailerPrune + ": " + p.String() + "\n")
	}
	return b.String(), nil
}

// chainRecords reads the Snap-Supersedes and Snap-Prune trailers of the
// first-parent chain of tip, newest first, each once.
func (s *Store) chainRecords(ctx context.Context, tip storage.ID) (sup []storage.ID, prunes []pruneRecord, err error) {
	seenSup, seenPrune := map[storage.ID]bool{}, map[string]bool{}
	for id := tip; !id.IsZero(); {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		c, err := s.st.commit(id)
		if err != nil {
			return nil, nil, err
		}
		for _, line := range strings.Split(c.Message, "\n") {
			if v, ok := strings.CutPrefix(line, trailerSupersedes+": "); ok && storage.IsID(v) && !seenSup[storage.NewID(v)] {
				seenSup[storage.NewID(v)] = true
				sup = append(sup, storage.NewID(v))
			}
			if v, ok := strings.CutPrefix(line, trailerPrune+": "); ok && !seenPrune[v] {
				if p, ok := parsePruneRecord(v); ok {
					seenPrune[v] = true
					prunes = append(prunes, p)
				}
			}
		}
		id = storage.ID{}
		if len(c.Parents) > 0 {
			id = c.Parents[0]
		}
	}
	return sup, prunes, nil
}

// accounts reports whether the history of tip accounts for every
// snapshot of old's history it does not reach, so that tip may take
// old's place (docs/design.md §5): each such snapshot's tree is the tree
// of a snapshot tip reaches (a prune and a replay keep trees as they
// are), or a prune recorded on tip's chain, applied here to this
// repository's own copy of the chain it pruned, drops it. A Snap-Supersedes
// trailer alone proves nothing: anyone can write one.
func (s *Store) accounts(ctx context.Context, session string, tip, old storage.ID) (bool, error) {
	trees := map[storage.ID]bool{}
	err := s.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error {
		trees[e.Tree] = true
		return nil
	})
	if err != nil {
		return false, err
	}
	dropped, err := s.droppedByPrunes(ctx, session, tip)
	if err != nil {
		return false, err
	}
	ok := true
	err = s.WalkRange(ctx, RevRange{Include: []storage.ID{old}, Exclude: []storage.ID{tip}}, func(e storage.Entry) error {
		if trees[e.Tree] || dropped[e.ID] {
			return nil
		}
		ok = false
		return storage.ErrStop
	})
	return ok && err == nil, err
}

// droppedByPrunes is what the prunes recorded on tip's chain dropped, as
// far as this repository can check: for each prune of a tip it holds,
// the snapshots of that tip's chain its rules do not keep, with the
// checkpoints this repository has marking what keep-checkpoints keeps.
// A prune of a tip never seen here explains nothing.
func (s *Store) droppedByPrunes(ctx context.Context, session string, tip storage.ID) (map[storage.ID]bool, error) {
	_, prunes, err := s.chainRecords(ctx, tip)
	if err != nil || len(prunes) == 0 {
		return nil, err
	}
	cps, err := s.Checkpoints(ctx, session, true)
	if err != nil {
		return nil, err
	}
	marked := map[storage.ID]bool{}
	for _, cp := range cps {
		marked[cp.Target] = true
	}
	out := map[storage.ID]bool{}
	for _, p := range prunes {
		if e, err := s.Entry(ctx, p.old); err != nil || e.Header.Session != session {
			continue
		}
		chain, err := s.firstParentChain(ctx, p.old)
		if err != nil {
			return nil, err
		}
		for i, k := range p.opts.Select(chain, marked, p.at) {
			if !k {
				out[chain[i].ID] = true
			}
		}
	}
	return out, nil
}

// sharedTips are the tips of session that remotes were last seen at and
// that tip descends from: what other clones may hold and build on, which
// a prune of tip replaces too.
func (s *Store) sharedTips(ctx context.Context, session string, tip storage.ID) ([]storage.ID, error) {
	tracked, err := s.refs.List("refs/remotes/")
	if err != nil {
		return nil, err
	}
	var out []storage.ID
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

// superseded is every id the first-parent chain of tip says it
// supersedes: a prune's new tip names the tip it replaced, and snapshots
// added on top of it keep that. It is a claim, checked by accounts
// before anything is dropped for it.
func (s *Store) superseded(ctx context.Context, tip storage.ID) (map[storage.ID]bool, error) {
	sup, _, err := s.chainRecords(ctx, tip)
	if err != nil {
		return nil, err
	}
	out := map[storage.ID]bool{}
	for _, id := range sup {
		out[id] = true
	}
	return out, nil
}

// covers reports whether the history of tip replaced old: old is a tip it
// supersedes, or comes before one that is here to look at.
func (s *Store) covers(ctx context.Context, tip, old storage.ID) (bool, error) {
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
func (s *Store) replayBase(ctx context.Context, local, remote storage.ID) (base storage.ID, after []storage.Entry, err error) {
	sup, err := s.superseded(ctx, remote)
	if err != nil || len(sup) == 0 {
		return storage.ID{}, nil, err
	}
	chain, err := s.firstParentChain(ctx, local)
	if err != nil {
		return storage.ID{}, nil, err
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if sup[chain[i].ID] {
			return chain[i].ID, chain[i+1:], nil
		}
	}
	return storage.ID{}, nil, nil
}

// Prune is a prune a snapshot's commit records (its Snap-Prune
// trailer): the tip it pruned, the rules it kept snapshots by, and when
// it ran.
type Prune struct {
	Old     storage.ID
	Options PruneOptions
	At      time.Time
}

// PrunesOn reads the prunes snapshot id's commit records: on the tip a
// prune wrote, that prune first, then those of the chain it pruned;
// none on any other snapshot.
func (s *Store) PrunesOn(ctx context.Context, id storage.ID) ([]Prune, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := s.st.commit(id)
	if err != nil {
		return nil, err
	}
	var out []Prune
	for _, line := range strings.Split(c.Message, "\n") {
		if v, ok := strings.CutPrefix(line, trailerPrune+": "); ok {
			if p, ok := parsePruneRecord(v); ok {
				out = append(out, Prune{Old: p.old, Options: p.opts, At: p.at})
			}
		}
	}
	return out, nil
}
