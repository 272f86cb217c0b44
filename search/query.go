package search

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// view is the index as listed by one manifest, with its segments open.
type view struct {
	m    *manifest
	segs []*segment
}

func (v *view) close() {
	for _, s := range v.segs {
		s.close()
	}
}

// openView opens the segments listed in manifest m. A segment removed
// since the manifest was read gives errStale; one that cannot be parsed
// gives errCorrupt.
func (x *Index) openView(m *manifest) (*view, error) {
	v := &view{m: m}
	for _, name := range m.segments {
		s, err := openSegment(x.dir, name)
		if err != nil {
			v.close()
			return nil, err
		}
		v.segs = append(v.segs, s)
	}
	return v, nil
}

// candidate is a message that may match, because its block's trigrams
// match.
type candidate struct {
	seg int32
	doc uint32
	msg int32
}

// candRun is a run of one session's docs in one segment. rank is the
// session's rank, with the most recently active session first.
type candRun struct {
	rank  int32
	seg   int32
	first uint32
	n     uint32
}

// query answers q from the index as listed by manifest m. Hits are
// returned session by session, most recently active first. For each
// session, query gathers the runs of docs whose blocks may match, reads
// and sorts their docs, and matches them, until the limit is reached.
// So searching for a common word with a limit of 100 lines reads only
// the blocks of the first few sessions.
func (x *Index) query(ctx context.Context, q Query, mt *matcher, m *manifest) ([]Hit, error) {
	v, err := x.openView(m)
	if err != nil {
		return nil, err
	}
	defer v.close()
	p, err := plan(ctx, q, mt, v)
	if err != nil {
		return nil, err
	}
	var hits []Hit
	var cands []candidate
	for i := 0; i < len(p.runs); {
		j := i + 1
		for j < len(p.runs) && p.runs[j].rank == p.runs[i].rank {
			j++
		}
		cands = cands[:0]
		for _, r := range p.runs[i:j] {
			if cands, err = p.sfs[r.seg].candidates(r, p.sets[r.seg], cands); err != nil {
				return nil, err
			}
		}
		slices.SortFunc(cands, compareCandidates)
		if hits, err = x.verify(ctx, q, mt, v, cands, hits); err != nil || (q.Limit > 0 && len(hits) >= q.Limit) {
			return hits, err
		}
		i = j
	}
	return hits, nil
}

// queryPlan is what a query reads: for each segment, the blocks that may
// match and the filter's results, and the runs of docs of the sessions
// the filter keeps, in the order their hits are returned.
type queryPlan struct {
	sets [][]uint64
	sfs  []*segFilter
	runs []candRun
}

func plan(ctx context.Context, q Query, mt *matcher, v *view) (*queryPlan, error) {
	f := newFilter(q, v.m)
	p := &queryPlan{sets: make([][]uint64, len(v.segs)), sfs: make([]*segFilter, len(v.segs))}
	for si, s := range v.segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if p.sets[si], err = s.eval(mt.cond); err != nil {
			return nil, err
		}
		if p.sfs[si], err = f.segment(s); err != nil {
			return nil, err
		}
		if p.runs, err = p.sfs[si].runs(si, p.sets[si], p.runs); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(p.runs, func(a, b candRun) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.seg, b.seg), cmp.Compare(a.first, b.first))
	})
	return p, nil
}

// compareCandidates orders a session's candidates by message, then by
// position in the index. The order is total, so a search with a limit
// returns the first hits of the same search without one.
func compareCandidates(a, b candidate) int {
	return cmp.Or(cmp.Compare(a.msg, b.msg), cmp.Compare(a.seg, b.seg), cmp.Compare(a.doc, b.doc))
}

// inBlocks reports whether any of the blocks first to last is in set. A
// nil set holds every block.
func inBlocks(set []uint64, first, last int) bool {
	if set == nil {
		return true
	}
	for b := first; b <= last; b++ {
		if set[b/64]&(1<<(b%64)) != 0 {
			return true
		}
	}
	return false
}

// verifyHook, when set by tests, is called before each document is
// matched.
var verifyHook func()

// verify matches a session's candidates against the pattern, in order,
// until the limit is reached or, with SessionsOnly, until the first hit.
// It checks ctx before every document and before every line of a
// document (matchLines). When the checks were 256 documents apart, a
// slow regular expression over long messages ran for seconds between
// checks, and the viewer's search kept running that long after its
// client had gone.
func (x *Index) verify(ctx context.Context, q Query, mt *matcher, v *view, cands []candidate, hits []Hit) ([]Hit, error) {
	before := len(hits)
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if verifyHook != nil {
			verifyHook()
		}
		var err error
		if hits, err = verifyOne(ctx, q, mt, v.segs[c.seg], c.doc, hits); err != nil {
			return nil, err
		}
		if q.Limit > 0 && len(hits) >= q.Limit {
			return hits[:q.Limit], nil
		}
		if q.SessionsOnly && len(hits) > before {
			return hits[:before+1], nil
		}
	}
	return hits, nil
}

// verifyOne appends the hits of doc d of segment s to hits. With
// SessionsOnly, it appends only the first.
func verifyOne(ctx context.Context, q Query, mt *matcher, s *segment, d uint32, hits []Hit) ([]Hit, error) {
	row, err := s.doc(d)
	if err != nil {
		return hits, err
	}
	snap, err := s.snap(row.snap)
	if err != nil {
		return hits, err
	}
	session, _, err := s.session(snap.session)
	if err != nil {
		return hits, err
	}
	fields, err := s.fields(row)
	if err != nil {
		return hits, err
	}
	role, err := s.str(row.role)
	if err != nil {
		return hits, err
	}
	t := row.time
	if t == 0 {
		t = snap.time
	}
	base := Hit{Session: session, Snapshot: snap.commit.String(), Seq: int(snap.seq), Message: int(row.message),
		Role: role, Time: time.Unix(0, t).UTC()}
	before := len(hits)
	for _, fl := range fields {
		if q.Tool != "" && !globMatch(q.Tool, fl.tool) {
			continue
		}
		if hits, err = matchLines(ctx, hits, base, fl, mt); err != nil {
			return hits, err
		}
		if q.SessionsOnly && len(hits) > before {
			return hits[:before+1], nil
		}
	}
	return hits, nil
}

// matchLines appends a hit for each matching line of a field, checking
// ctx before each line.
func matchLines(ctx context.Context, hits []Hit, base Hit, fl field, mt *matcher) ([]Hit, error) {
	text := fl.text
	for n := 1; len(text) > 0; n++ {
		if err := ctx.Err(); err != nil {
			return hits, err
		}
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		locs := mt.re.FindAllStringIndex(line, -1)
		if locs == nil {
			continue
		}
		h := base
		h.Field, h.Tool = kindNames[fl.kind], fl.tool
		h.Line, h.Match = clip(line, locs)
		h.LineNumber = n
		hits = append(hits, h)
	}
	return hits, nil
}

// maxLine is the longest line a hit shows. Longer lines are cut to a
// window around the first match.
const maxLine = 400

func clip(line string, locs [][]int) (string, [][2]int) {
	start, end := 0, len(line)
	if len(line) > maxLine {
		start = max(0, locs[0][0]-maxLine/4)
		for start > 0 && !utf8.RuneStart(line[start]) {
			start--
		}
		end = min(len(line), start+maxLine)
		for end < len(line) && !utf8.RuneStart(line[end]) {
			end--
		}
	}
	var pre, post string
	if start > 0 {
		pre = "…"
	}
	if end < len(line) {
		post = "…"
	}
	var out [][2]int
	for _, l := range locs {
		if l[0] >= start && l[1] <= end {
			out = append(out, [2]int{l[0] - start + len(pre), l[1] - start + len(pre)})
		}
	}
	return pre + line[start:end] + post, out
}

// filter applies a query's conditions on a message's session and
// snapshot.
type filter struct {
	q       Query
	m       *manifest
	rank    map[string]int
	session map[string]bool // cached result of the session-level conditions
}

func newFilter(q Query, m *manifest) *filter {
	type named struct {
		name string
		time int64
	}
	names := make([]named, 0, len(m.sessions))
	for n, st := range m.sessions {
		names = append(names, named{n, st.time})
	}
	slices.SortFunc(names, func(a, b named) int {
		return cmp.Or(cmp.Compare(b.time, a.time), strings.Compare(a.name, b.name))
	})
	rank := make(map[string]int, len(names))
	for i, n := range names {
		rank[n.name] = i
	}
	return &filter{q: q, m: m, rank: rank, session: map[string]bool{}}
}

// segFilter caches a filter's results for one segment's sessions and
// snapshots, so each is computed once.
type segFilter struct {
	f     *filter
	s     *segment
	rank  []int32 // per session row; -1 when the filter drops the session
	label []int8  // per snapshot row: 0 not yet known, 1 kept, 2 dropped
}

func (f *filter) segment(s *segment) (*segFilter, error) {
	n := s.nSessions()
	sf := &segFilter{f: f, s: s, rank: make([]int32, n)}
	if f.q.Label != "" {
		sf.label = make([]int8, s.nSnaps())
	}
	for i := range n {
		name, gen, err := s.session(uint32(i))
		if err != nil {
			return nil, err
		}
		sf.rank[i] = -1
		if st := f.m.sessions[name]; st != nil && st.gen == gen && f.keepsSession(name, st) {
			sf.rank[i] = int32(f.rank[name])
		}
	}
	return sf, nil
}

// runs appends the segment's runs of docs whose session the filter
// keeps and which have at least one block in set.
func (sf *segFilter) runs(seg int, set []uint64, out []candRun) ([]candRun, error) {
	for i := range sf.s.nRuns() {
		r, err := sf.s.run(i)
		if err != nil {
			return nil, err
		}
		if rank := sf.rank[r.session]; rank >= 0 && inBlocks(set, int(r.first/blockDocs), int((r.first+r.n-1)/blockDocs)) {
			out = append(out, candRun{rank: rank, seg: int32(seg), first: r.first, n: r.n})
		}
	}
	return out, nil
}

// candidates appends the docs of run r that are in a block of set and
// that the query's time and label filters keep.
func (sf *segFilter) candidates(r candRun, set []uint64, out []candidate) ([]candidate, error) {
	s := sf.s
	end := r.first + r.n
	for b := r.first / blockDocs; b*blockDocs < end; b++ {
		if !inBlocks(set, int(b), int(b)) {
			continue
		}
		rows, err := s.docs(int(b))
		if err != nil {
			return nil, err
		}
		for d := max(r.first, b*blockDocs); d < min(end, (b+1)*blockDocs); d++ {
			row := rows[d-b*blockDocs]
			ok, err := sf.keep(row)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, candidate{seg: r.seg, doc: d, msg: row.message})
			}
		}
	}
	return out, nil
}

// keep reports whether the query's time and label filters keep a doc.
func (sf *segFilter) keep(row docRow) (bool, error) {
	s, q := sf.s, sf.f.q
	if q.Since.IsZero() && q.Until.IsZero() && q.Label == "" {
		return true, nil
	}
	snap, err := s.snap(row.snap)
	if err != nil {
		return false, err
	}
	t := row.time
	if t == 0 {
		t = snap.time
	}
	if (!q.Since.IsZero() && t < q.Since.UnixNano()) || (!q.Until.IsZero() && t > q.Until.UnixNano()) {
		return false, nil
	}
	if q.Label != "" {
		if sf.label[row.snap] == 0 {
			label, err := s.str(snap.label)
			if err != nil {
				return false, err
			}
			sf.label[row.snap] = 2
			if globMatch(q.Label, label) {
				sf.label[row.snap] = 1
			}
		}
		if sf.label[row.snap] != 1 {
			return false, nil
		}
	}
	return true, nil
}

func (f *filter) keepsSession(name string, st *sessionState) bool {
	if f.q.Session == "" && f.q.Agent == "" && f.q.File == "" {
		return true
	}
	ok, known := f.session[name]
	if known {
		return ok
	}
	q := f.q
	ok = (q.Session == "" || globMatch(q.Session, name)) &&
		(q.Agent == "" || globMatch(q.Agent, st.agent) || globMatch(q.Agent, st.source)) &&
		(q.File == "" || anyPath(q.File, st.paths))
	f.session[name] = ok
	return ok
}

func globMatch(pattern, s string) bool {
	ok, _ := path.Match(pattern, s)
	return ok
}

// anyPath reports whether glob matches one of paths. A glob without '/'
// is also matched against each path's base name.
func anyPath(glob string, paths map[string]bool) bool {
	base := !strings.Contains(glob, "/")
	for p := range paths {
		if globMatch(glob, p) || (base && globMatch(glob, path.Base(p))) {
			return true
		}
	}
	return false
}

// CheckGlob returns an error if a filter's glob is malformed, so that a
// caller can reject it before searching.
func CheckGlob(flag, glob string) error {
	if _, err := path.Match(glob, ""); err != nil {
		return &PatternError{fmt.Sprintf("%s %q is not a valid glob", flag, glob)}
	}
	return nil
}
