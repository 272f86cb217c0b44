package provenance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// attributor decides who wrote each line, from the sessions whose
// captures gained lines in the paths blamed.
type attributor struct {
	ix       *index
	sessions []*sessionLines
	// links maps, per session, each code commit its snapshots named,
	// and each commit a rewrite made of one, to the first snapshot that
	// named it (or the commit it was made of).
	links []map[storage.ID]link
	// exact and norm map a path and a line's hash to the captures that
	// introduced it; contexts to where each that proves nothing by
	// itself was introduced.
	exact, norm map[string]map[uint64][]hit
	contexts    map[string]map[uint64][]contextHit
	pruned      []int // sessions that lost snapshots to a prune
	edits       map[*edit]*Edit
}

// link is how a session reaches a commit.
type link struct {
	// seq is the first snapshot that named the commit; 0 when none did.
	// An edit before it is in the commit.
	seq int
	// rewrite says an amend or a rebase made the commit of one the
	// session named. When it did is not known: an edit made before the
	// commit was (its committer time) may be in it.
	rewrite bool
}

// hit is a capture that introduced a line.
type hit struct {
	si int   // into sessions
	ed *edit // the snapshot
}

// contextHit is a capture that introduced a line that proves nothing by
// itself, between the lines prev and next.
type contextHit struct {
	ed         *edit
	prev, next uint64
}

// newAttributor reads the sessions whose captures gained lines in one
// of paths, and those that lost snapshots to a prune.
func newAttributor(ctx context.Context, ix *index, o Options, paths []string) (*attributor, error) {
	a := &attributor{ix: ix, exact: map[string]map[uint64][]hit{}, norm: map[string]map[uint64][]hit{},
		contexts: map[string]map[uint64][]contextHit{}, edits: map[*edit]*Edit{}}
	refs := ix.touching(paths)
	for _, ref := range ix.pruned() {
		if !slices.Contains(refs, ref) {
			refs = append(refs, ref)
		}
	}
	for _, ref := range refs {
		sl, err := ix.session(ctx, ref)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, err
		case err != nil:
			ix.leaveOut(ref, ix.entries[ref].Tip, err)
		default:
			a.add(sl, o, paths)
		}
	}
	return a, nil
}

// add takes in one session: its links to code commits and the lines
// its captures of paths introduced.
func (a *attributor) add(sl *sessionLines, o Options, paths []string) {
	si := len(a.sessions)
	a.sessions = append(a.sessions, sl)
	links := map[storage.ID]link{}
	for _, c := range sl.Codes {
		l := links[c.Code]
		if l.seq == 0 || c.Seq < l.seq {
			l.seq = c.Seq
		}
		links[c.Code] = l
	}
	for _, c := range sl.Codes {
		for _, d := range o.Rewrites.Descendants(c.Code)[1:] {
			l := links[d]
			l.rewrite = true
			links[d] = l
		}
	}
	a.links = append(a.links, links)
	if pruned, _ := sl.pruned(); pruned {
		a.pruned = append(a.pruned, si)
	}
	for _, p := range paths {
		for _, c := range sl.Files[p] {
			ed := &sl.Edits[c.Edit]
			for _, set := range []struct {
				hashes []uint64
				into   map[string]map[uint64][]hit
			}{{c.Exact, a.exact}, {c.Norm, a.norm}} {
				m := set.into[p]
				if m == nil {
					m = map[uint64][]hit{}
					set.into[p] = m
				}
				for _, h := range set.hashes {
					m[h] = append(m[h], hit{si, ed})
				}
			}
			if a.contexts[p] == nil {
				a.contexts[p] = map[uint64][]contextHit{}
			}
			for _, lc := range c.Context {
				a.contexts[p][lc.Line] = append(a.contexts[p][lc.Line], contextHit{ed, lc.Prev, lc.Next})
			}
		}
	}
}

// attribute fills in who wrote each line of a file. commits are what
// git blame said of the lines' commits; whole says in is the whole file
// (no -L).
func (a *attributor) attribute(path string, in []blamed, commits map[storage.ID]*commitInfo, whole bool) []Line {
	out := make([]Line, len(in))
	copies := a.copies(path, in, commits)
	open := make([][]choice, len(in)) // lines more than one edit may have written
	for i, b := range in {
		c := commits[b.Commit]
		out[i] = Line{N: b.Line, Text: b.Text, Commit: b.Commit, OrigPath: b.OrigPath, OrigLine: b.OrigLine, Author: c.Author, Time: c.Time, Committed: c.Committed, Kind: Person}
		open[i] = a.decide(&out[i], path, c, copies[b.Commit])
	}
	fixed := make([]*Edit, len(out)) // what the first pass settled: neighbours settle the rest
	for i := range out {
		fixed[i] = out[i].Edit
	}
	for i, cs := range open {
		if len(cs) == 0 {
			continue
		}
		if cs = a.byContext(path, in, i, cs, whole); oneEdit(cs) {
			a.take(&out[i], cs[0])
		} else {
			a.take(&out[i], nearest(fixed, i, cs, strings.TrimSpace(out[i].Text) == ""))
		}
	}
	return out
}

// choice is an edit that may have written a line, and how the line's
// commit is its session's.
type choice struct {
	hit
	by   string
	kind Kind
}

// decide says who wrote l: the agent whose capture introduced it, as it
// is (Agent) or but for its spacing (Mixed), when the line's commit is
// the session's or a copy of its work; else unknown or a person. When
// several edits introduced the line (a blank line, a closing brace), it
// returns them, for the lines around to settle.
func (a *attributor) decide(l *Line, path string, c *commitInfo, copied map[int]bool) []choice {
	h := lineHash(l.Text)
	exact := a.hits(a.exact, path, l.OrigPath, h)
	cs := a.choices(l, exact, c, copied, Agent)
	if nh, ok := normHash(l.Text); ok && len(cs) == 0 {
		cs = a.choices(l, a.hits(a.norm, path, l.OrigPath, nh), c, copied, Mixed)
	}
	switch {
	case len(cs) == 1 || len(cs) > 1 && !distinctive(l.Text) && oneEdit(cs):
		a.take(l, cs[0])
		return nil
	case len(cs) > 1 && distinctive(l.Text):
		a.take(l, latest(cs))
		return nil
	case len(cs) > 1:
		return cs
	}
	for _, x := range exact {
		// A capture after its session saw the commit found the line
		// there: a change made by hand meanwhile that the next capture
		// of the file took in with the agent's.
		if lk := a.links[x.si][l.Commit]; lk.seq > 0 && x.ed.Seq > lk.seq {
			continue
		}
		if before(x.ed, c) && distinctive(l.Text) {
			sl := a.sessions[x.si]
			l.Kind, l.Why = Unknown, fmt.Sprintf("session %s wrote it, but commit %s is none of its commits nor a copy of them", sl.Session, l.Commit.String()[:12])
			if pruned, _ := sl.pruned(); pruned {
				l.Why = fmt.Sprintf("session %s wrote it, and the snapshots that tie commit %s to it were pruned", sl.Session, l.Commit.String()[:12])
			}
			return nil
		}
	}
	for _, si := range a.pruned {
		sl := a.sessions[si]
		_, linked := a.links[si][l.Commit]
		if linked || c != nil && !c.Committed.Before(sl.Started.Truncate(time.Second)) && !c.Committed.After(sl.Kept) {
			l.Kind, l.Why = Unknown, fmt.Sprintf("commit %s was made while session %s recorded, and its snapshots of then were pruned", l.Commit.String()[:12], sl.Session)
			return nil
		}
	}
	return nil
}

// choices are the edits among hits that may have written l: those whose
// session's commit l's commit is, made after the edit (By commit or
// rewrite), else those whose session's work the commit copies (By
// lines).
func (a *attributor) choices(l *Line, hits []hit, c *commitInfo, copied map[int]bool, kind Kind) []choice {
	var out []choice
	for _, x := range hits {
		switch lk := a.links[x.si][l.Commit]; {
		case lk.seq > 0 && x.ed.Seq < lk.seq:
			out = append(out, choice{x, "commit", kind})
		case lk.rewrite && before(x.ed, c):
			out = append(out, choice{x, "rewrite", kind})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, x := range hits {
		if copied[x.si] && before(x.ed, c) && a.committedAfter(x) {
			out = append(out, choice{x, "lines", kind})
		}
	}
	return out
}

// take attributes l to c's edit.
func (a *attributor) take(l *Line, c choice) {
	l.Kind, l.Edit, l.By = c.kind, a.edit(c.hit), c.by
}

// unknownNeighbour stands for a line next to a blamed one that the blame
// did not give (-L): it matches no context.
const unknownNeighbour = 1

// byContext keeps, of the edits that may have written line i of in (one
// that proves nothing by itself), those that introduced it between the
// lines it has around it, as many of the two as any did; all of them
// when none did.
func (a *attributor) byContext(path string, in []blamed, i int, cs []choice, whole bool) []choice {
	prev, next := uint64(0), uint64(0)
	if i > 0 {
		prev = neighbour(in[i-1], in[i].Line-1)
	} else if in[i].Line > 1 {
		prev = unknownNeighbour
	}
	if i+1 < len(in) {
		next = neighbour(in[i+1], in[i].Line+1)
	} else if !whole {
		next = unknownNeighbour // where the file ends is not known here
	}
	h := lineHash(in[i].Text)
	var found []contextHit
	for _, p := range []string{path, in[i].OrigPath} {
		found = append(found, a.contexts[p][h]...)
		if in[i].OrigPath == path {
			break
		}
	}
	best, scores := 0, make([]int, len(cs))
	for k, c := range cs {
		for _, x := range found {
			if x.ed == c.ed {
				scores[k] = max(scores[k], b2i(x.prev == prev)+b2i(x.next == next))
			}
		}
		best = max(best, scores[k])
	}
	if best == 0 {
		return cs
	}
	var out []choice
	for k, c := range cs {
		if scores[k] == best {
			out = append(out, c)
		}
	}
	return out
}

// neighbour is the hash of b when it is line n, else unknownNeighbour.
func neighbour(b blamed, n int) uint64 {
	if b.Line != n {
		return unknownNeighbour
	}
	return lineHash(b.Text)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nearest settles a line several edits may have written by the lines
// around it: the edit of the closest line that one of them wrote, else
// the latest. When two are as close, a blank line goes with the one
// below (it opens what comes next) and any other with the one above (a
// closing brace ends what its edit opened).
func nearest(fixed []*Edit, i int, cs []choice, blank bool) choice {
	for d := 1; i-d >= 0 || i+d < len(fixed); d++ {
		order := []int{i - d, i + d}
		if blank {
			order = []int{i + d, i - d}
		}
		for _, j := range order {
			if j < 0 || j >= len(fixed) || fixed[j] == nil {
				continue
			}
			for _, c := range cs {
				if fixed[j].Snapshot == c.ed.ID {
					return c
				}
			}
		}
	}
	return latest(cs)
}

// oneEdit reports whether every choice is the same edit.
func oneEdit(cs []choice) bool {
	for _, c := range cs[1:] {
		if c.ed != cs[0].ed {
			return false
		}
	}
	return true
}

// latest is the latest edit of cs.
func latest(cs []choice) choice {
	best := cs[0]
	for _, c := range cs[1:] {
		if later(c.hit, best.hit) {
			best = c
		}
	}
	return best
}

// copies finds, for each commit of the lines, the sessions it copies
// work of: those whose captures introduced, before the commit was made,
// at least half of the distinctive lines it brought into the file (all
// its lines, when none is distinctive), and that made commits of their
// own after. That is a cherry-pick, a rebase or a squash merge of the
// session's commits made where no snapshot saw it.
func (a *attributor) copies(path string, in []blamed, commits map[storage.ID]*commitInfo) map[storage.ID]map[int]bool {
	type count struct {
		lines, plain int
		by, byPlain  map[int]int
	}
	counts := map[storage.ID]*count{}
	for _, b := range in {
		n := counts[b.Commit]
		if n == nil {
			n = &count{by: map[int]int{}, byPlain: map[int]int{}}
			counts[b.Commit] = n
		}
		sessions := map[int]bool{}
		for _, x := range a.hits(a.exact, path, b.OrigPath, lineHash(b.Text)) {
			if before(x.ed, commits[b.Commit]) && a.committedAfter(x) {
				sessions[x.si] = true
			}
		}
		tally, total := n.byPlain, &n.plain
		if distinctive(b.Text) {
			tally, total = n.by, &n.lines
		}
		*total++
		for si := range sessions {
			tally[si]++
		}
	}
	out := map[storage.ID]map[int]bool{}
	for id, n := range counts {
		by, total := n.by, n.lines
		if total == 0 {
			by, total = n.byPlain, n.plain
		}
		for si, k := range by {
			if 2*k >= total {
				if out[id] == nil {
					out[id] = map[int]bool{}
				}
				out[id][si] = true
			}
		}
	}
	return out
}

// committedAfter reports whether x's session named a code commit first
// after x's edit: it committed its work, which a copy then took.
func (a *attributor) committedAfter(x hit) bool {
	return slices.ContainsFunc(a.sessions[x.si].Codes, func(c codeSeen) bool { return c.Seq > x.ed.Seq })
}

// hits are the captures that introduced a line of hash h, in the path
// blamed or the path the line's commit had it at.
func (a *attributor) hits(m map[string]map[uint64][]hit, path, orig string, h uint64) []hit {
	out := m[path][h]
	if orig != path && orig != "" {
		out = append(slices.Clip(out), m[orig][h]...)
	}
	return out
}

// before reports whether ed was taken before commit c was made (to the
// second, as git keeps commit times).
func before(ed *edit, c *commitInfo) bool {
	return c != nil && !ed.Time.Truncate(1e9).After(c.Committed)
}

// later reports whether x is a later edit than y.
func later(x, y hit) bool {
	if !x.ed.Time.Equal(y.ed.Time) {
		return x.ed.Time.After(y.ed.Time)
	}
	return x.ed.Seq > y.ed.Seq
}

// edit is the Edit a capture's snapshot stands for, one per snapshot.
func (a *attributor) edit(x hit) *Edit {
	if e := a.edits[x.ed]; e != nil {
		return e
	}
	sl := a.sessions[x.si]
	e := &Edit{Session: sl.Session, Remote: sl.Remote, Snapshot: x.ed.ID, Seq: x.ed.Seq, Turn: x.ed.Turn, Agent: sl.Agent, Model: x.ed.Model, Time: x.ed.Time}
	a.edits[x.ed] = e
	return e
}

// prunedSessions lists the sessions that lost snapshots to a prune.
func (a *attributor) prunedSessions() []Pruned {
	var out []Pruned
	for _, si := range a.pruned {
		sl := a.sessions[si]
		_, n := sl.pruned()
		out = append(out, Pruned{Session: sl.Session, Remote: sl.Remote, Snapshots: n})
	}
	return out
}
