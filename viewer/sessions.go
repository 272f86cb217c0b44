package viewer

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
)

// summary is one session as the sessions page lists it. Everything but
// the tip needs the tip's document read, so summaries are kept by tip:
// a session that did not move is not read again. A viewer keeps one for
// every session, 100k of them in a team's repository: it holds only
// what the page shows, never a whole header or the commit message its
// strings were cut from.
type summary struct {
	Name   string
	ref    string
	Remote string // the remote it was fetched from, "" for a local session
	Tip    tipSummary
	read   bool // the fields below are filled in
	// prev is, on a summary not read yet, the read one of the ref's tip
	// before: a hook call that appended records leaves its title and
	// branch as they were (see readFrom).
	prev *summary
	// titleKey names the records the title and branch were read from,
	// when read from the first live records alone; nil otherwise.
	titleKey *session.FirstKey

	Title       string // the first prompt
	Branch      string // the code branch the agent recorded, if any
	first, last instant
	Numbers     counts
	Tokens      int64
}

// Rev is the revision that names the session's tip, for links.
func (sum *summary) Rev() string {
	if sum.Remote != "" {
		return sum.ref
	}
	return sum.Name
}

// First is the time of the session's first record, else of its first
// snapshot.
func (sum *summary) First() time.Time { return sum.first.time() }

// Last is the time of the session's last record, else of its newest
// snapshot.
func (sum *summary) Last() time.Time { return sum.last.time() }

// instant is a time in nanoseconds since 1970, in a third of a
// time.Time: two in each of 100k summaries. Times outside the years
// 1678 to 2262 are kept as the nearest end of that range; the zero
// time is kept as itself.
type instant int64

const zeroInstant = instant(math.MinInt64)

var (
	firstInstant = time.Unix(0, math.MinInt64+1)
	lastInstant  = time.Unix(0, math.MaxInt64)
)

func instantOf(t time.Time) instant {
	switch {
	case t.IsZero():
		return zeroInstant
	case t.Before(firstInstant):
		t = firstInstant
	case t.After(lastInstant):
		t = lastInstant
	}
	return instant(t.UnixNano())
}

func (i instant) time() time.Time {
	if i == zeroInstant {
		return time.Time{}
	}
	return time.Unix(0, int64(i)).UTC()
}

// tipSummary is what the page shows of a session's newest snapshot.
type tipSummary struct {
	ID     storage.ID
	Header tipHeader
}

// tipHeader is the part of a snapshot's header the page shows; of the
// work tree's commit, Code, the seven digits it shows.
type tipHeader struct {
	Seq, Messages int32
	Dirty         bool
	Source, Code  string
}

// counts are the numbers the page shows of a session's document: its
// cost as the page writes it (costText), and in millionths of a dollar
// to sort by.
type counts struct {
	Messages, Records, ToolCalls, ToolFailures int
	Cost                                       string
	micros                                     int64
}

// tipSummaryOf is what the page shows of e, its strings copied out of
// the commit message they were cut from; sources holds each agent's
// name once.
func tipSummaryOf(e storage.Entry, sources *sync.Map) tipSummary {
	h := e.Header
	source, ok := sources.Load(h.Source)
	if !ok { // the key too is a copy: h.Source is cut from a commit message
		c := strings.Clone(h.Source)
		source, _ = sources.LoadOrStore(c, c)
	}
	return tipSummary{ID: e.ID, Header: tipHeader{Source: source.(string), Code: strings.Clone(h.Code[:min(len(h.Code), 7)]), Seq: int32(h.Seq), Messages: int32(h.Messages), Dirty: h.Dirty}}
}

// summaries keeps what the sessions page has read. Its own lock, apart
// from the store's: pages read it while another request reads the store.
// One summary per ref, its tip's: a session a hook moves on every tool
// call would otherwise leave one per tip it ever had.
type summaries struct {
	mu      sync.Mutex
	byTip   map[string]*summary // ref → the summary of its tip
	sources sync.Map            // each agent's name, once (tipSummaryOf)
}

func (c *summaries) get(ref string, tip storage.ID) *summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.byTip[ref]; s != nil && s.Tip.ID == tip {
		return s
	}
	return nil
}

// last is the read summary of the tip ref had last, nil when none was
// read.
func (c *summaries) last(ref string) *summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.byTip[ref]
	if s != nil && !s.read {
		return s.prev
	}
	return s
}

func (c *summaries) put(ref string, s *summary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byTip[ref] = s
}

// keep forgets the summaries of refs not among tips: sessions dropped,
// pruned away or renamed while the viewer runs.
func (c *summaries) keep(tips map[string]storage.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byTip) <= len(tips) {
		return // every ref summarised is still there, or nearly: look later
	}
	for ref := range c.byTip {
		if _, ok := tips[ref]; !ok {
			delete(c.byTip, ref)
		}
	}
}

// list reads every session's tip, from the cache where the tip did not
// move, and with all, each one's document too; damaged are the refs of
// sessions whose tip could not be read, for the page to name.
//
// Every list goes through the refs in the same order, their names':
// a page that reads every summary while Warm does then finds behind
// Warm the ones Warm read, and holds few summaries not read yet that
// Warm replaced (in a map's order each list held nearly every one of
// them, 100k sessions' summaries twice).
func (s *Server) list(ctx context.Context, all bool) (out []*summary, digest string, damaged []string, err error) {
	err = s.read(ctx, func(st storage.Reader) error {
		tips, err := st.Tips(ctx)
		if err != nil {
			return err
		}
		refs := sortedRefs(tips)
		digest = digestOf(refs, tips)
		s.sums.keep(tips)
		for _, ref := range refs {
			sum, err := s.entry(ctx, st, ref, tips[ref])
			if gitstore.IsDamaged(err) {
				damaged = append(damaged, ref)
				continue
			}
			if err != nil {
				return err
			}
			if sum != nil {
				out = append(out, sum)
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", nil, err
	}
	if all {
		err = s.fill(ctx, out)
	}
	slices.Sort(damaged)
	return out, digest, damaged, err
}

// tipsDigest names a listing of the tips: the sessions page carries the
// one it was made from, so that its event stream, which may connect
// after a ref moved, can still tell the page it is behind.
func tipsDigest(tips map[string]storage.ID) string {
	return digestOf(sortedRefs(tips), tips)
}

// sortedRefs are the names of tips, sorted.
func sortedRefs(tips map[string]storage.ID) []string {
	refs := make([]string, 0, len(tips))
	for ref := range tips {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	return refs
}

// digestOf is tipsDigest of tips, whose names, sorted, are refs.
func digestOf(refs []string, tips map[string]storage.ID) string {
	h := sha256.New()
	var line []byte // one buffer, ids not in hex: 100k tips are listed on every page
	for _, ref := range refs {
		id := tips[ref]
		line = append(append(append(line[:0], ref...), ' '), id[:]...)
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// entry is the summary of the session ref holds at tip, its commit read
// when not known yet; nil for a ref that holds no snapshot.
func (s *Server) entry(ctx context.Context, st storage.Reader, ref string, tip storage.ID) (*summary, error) {
	if sum := s.sums.get(ref, tip); sum != nil {
		return sum, nil
	}
	name, remote, ok := st.SessionOfRef(ref)
	if !ok {
		return nil, nil
	}
	e, err := st.Entry(ctx, tip)
	if gitstore.IsDamaged(err) {
		return nil, err // named on the page; read again when asked again
	}
	if err != nil {
		return nil, nil // a ref someone else put there: not a session
	}
	sum := &summary{Name: name, ref: ref, Remote: remote, Tip: tipSummaryOf(e, &s.sums.sources), first: instantOf(e.Header.Started), last: instantOf(e.Header.Time), prev: s.sums.last(ref)}
	sum.Numbers.Messages, sum.Numbers.Records = e.Header.Messages, e.Header.Messages
	if n, ok := agent.NumbersOfHeader(e.Header); ok && n.Messages > 0 { // counted as a person counts them
		sum.Numbers.Messages = n.Messages
	}
	s.sums.put(ref, sum)
	return sum, nil
}

// fill reads the documents of the summaries not read yet, a record at
// a time under the store's lock (locked), so that other pages are
// served between them and a long session is never held whole. A
// summary is never changed once made: a read one replaces it, in sums
// and in the cache, so that pages reading summaries need no lock.
//
// Summaries are read one at a time (fillMu), and each fill looks again
// for a summary read meanwhile: the first page and Warm ask for the same
// ones, and two readers of a long session at once would hold its
// numbers twice. The lock is taken for one summary, not a whole fill, so
// that a page's fifty rows are read between Warm's, not after all of
// them (10k sessions: the first page came after 2.7 s).
func (s *Server) fill(ctx context.Context, sums []*summary) error {
	for i := range sums {
		if err := s.fillOne(ctx, sums, i); err != nil {
			return err
		}
	}
	return nil
}

// fillOne reads sums[i] unless it, or a summary of the same tip, was read.
func (s *Server) fillOne(ctx context.Context, sums []*summary, i int) error {
	s.fillMu.Lock()
	defer s.fillMu.Unlock()
	sum := sums[i]
	if read := s.sums.get(sum.ref, sum.Tip.ID); read != nil && read.read {
		sums[i] = read
		return nil
	}
	if sum.read {
		return nil
	}
	read, err := sum.readFrom(ctx, locked{s}, s.opts.Prices)
	if err != nil {
		return err
	}
	sums[i] = read
	s.sums.put(sum.ref, read)
	return nil
}

// Warm reads every session's summary ahead of the first request for the
// sessions page, so that it sorts by tokens or filters by text at once.
// It returns when done or when ctx ends.
func (s *Server) Warm(ctx context.Context) error {
	_, _, _, err := s.list(ctx, true)
	return err
}

// Follow warms the summaries (Warm) at once and again each time moved
// receives, a hint that refs moved (refwatch), so that the page after a
// hook call finds the moved session read, as a page asked again does.
// A warm that fails is left for the page to report. It returns when ctx
// ends or moved is closed.
func (s *Server) Follow(ctx context.Context, moved <-chan struct{}) {
	for {
		_ = s.Warm(ctx)
		select {
		case <-ctx.Done():
			return
		case _, ok := <-moved:
			if !ok {
				return
			}
		}
	}
}

// readFrom is sum with the title, branch, times and numbers of the tip's
// document: the numbers from its commit's totals, as stats reads them
// (every writer puts them there), else counted a record at a time; the
// title and branch from its first records, or from the summary of the
// tip before when those are the same records (a hook call appended
// records: reading the first ones again took 0.7 ms of a page that
// takes 0.6 ms warm).
func (sum summary) readFrom(ctx context.Context, st locked, table *prices.Prices) (*summary, error) {
	e, err := st.Entry(ctx, sum.Tip.ID)
	if err != nil {
		return nil, err
	}
	n, counted := agent.NumbersOfHeader(e.Header)
	carried, err := sum.carryTitle(ctx, st, e)
	if err != nil {
		return nil, err
	}
	if !carried || !counted {
		rest, e, err := st.ReadWithoutMessages(ctx, sum.Tip.ID)
		if err != nil {
			return nil, err
		}
		if !counted {
			if n, err = session.CountRecords(ctx, st, e, rest); err != nil {
				return nil, err
			}
		}
		if !carried {
			rd := agent.ReaderFor(e.Header.Source)
			if sum.Title, sum.Branch, sum.titleKey, err = titleIn(ctx, st, e, rest, rd); err != nil {
				return nil, err
			}
			sum.Title, sum.Branch = strings.Clone(sum.Title), strings.Clone(sum.Branch) // not the records they were cut from
		}
	}
	c := table.Estimate(n.ByModel)
	sum.prev = nil // a read summary holds no other
	sum.Numbers = counts{Messages: n.Messages, Records: n.Records, ToolCalls: n.ToolCalls, ToolFailures: n.ToolFailures, Cost: costText(&c), micros: c.Micros}
	sum.Tokens = n.InputTokens + n.CacheReadTokens + n.CacheWriteTokens + n.OutputTokens
	if !n.First.IsZero() {
		sum.first, sum.last = instantOf(n.First), instantOf(n.Last)
	}
	sum.read = true
	return &sum, nil
}

// carryTitle sets sum's title and branch to prev's, and says so, when
// the records they were read from are the first live records of sum's
// tip, e, too (session.FirstKey).
func (sum *summary) carryTitle(ctx context.Context, st locked, e storage.Entry) (bool, error) {
	p := sum.prev
	if p == nil || p.titleKey == nil || p.Tip.Header.Source != sum.Tip.Header.Source {
		return false, nil
	}
	same, err := session.HasFirstRecords(ctx, st, e, *p.titleKey)
	if err != nil || !same {
		return false, err
	}
	sum.Title, sum.Branch, sum.titleKey = p.Title, p.Branch, p.titleKey
	return true, nil
}

// titleRecords is how many of a session's first live records are looked
// at for its first prompt before all of them are listed.
const titleRecords = 256

// titleIn is the first prompt and code branch of the session whose tip
// is e: from its first live records, listed alone where that can be
// done (a hook call on a session of 50k records moved its tip, and
// listing them all again took 60 ms), else from all of them. key,
// when not nil, names the first records they were read from alone: no
// record after them can change them.
func titleIn(ctx context.Context, st locked, e storage.Entry, rest map[string]any, rd agent.Reader) (title, branch string, key *session.FirstKey, err error) {
	first, ok, err := session.FirstLiveRecords(ctx, st, e, rest, titleRecords)
	if err != nil {
		return "", "", nil, err
	}
	if ok {
		title, branch, used, err := titleOf(ctx, first, rd)
		if err != nil || title != "" || first.Len() < titleRecords {
			if used >= 0 {
				if k, keyed := first.Key(used); keyed {
					key = &k
				}
			}
			return title, branch, key, err // found, or the first are all there are
		}
	}
	recs, err := session.LiveRecords(ctx, st, e, rest)
	if err != nil {
		return "", "", nil, err
	}
	title, branch, _, err = titleOf(ctx, recs, rd)
	return title, branch, nil, err
}

// titleOf reads a session's first prompt and the code branch its first
// records name, reading records only until it has both. used is how
// many records that took when no later record could change them (both
// found, or the branch looked for in as many as it is), else -1.
func titleOf(ctx context.Context, recs *session.Records, rd agent.Reader) (title, branch string, used int, err error) {
	prompted := false
	k := 0
	for ; k < recs.Len() && (!prompted || branch == "" && k < branchRecords); k++ {
		raw, err := recs.At(ctx, k)
		if err != nil {
			return "", "", -1, err
		}
		if branch == "" && k < branchRecords {
			branch = codeBranch([]any{raw})
		}
		if !prompted {
			title, prompted = firstPrompt(rd.Read(raw), rd)
		}
	}
	if !prompted || branch == "" && k < branchRecords {
		return title, branch, -1, nil // a record to come may have them
	}
	return title, branch, k, nil
}

// branchRecords is how many of a session's first records are read for
// the branch its work is on.
const branchRecords = 64

// firstPrompt is the text of rec when it is a prompt the user typed,
// and whether it is one.
func firstPrompt(rec agent.Record, rd agent.Reader) (string, bool) {
	if m := rec.Message; rd.IsPrompt(rec) && len(m.Parts) > 0 {
		return short(m.Parts[0].Text, 200), true
	}
	return "", false
}

func codeBranch(msgs []any) string {
	for _, raw := range msgs[:min(len(msgs), branchRecords)] {
		rec, _ := raw.(map[string]any)
		if b, ok := rec["gitBranch"].(string); ok && b != "" {
			return b
		}
		payload, _ := rec["payload"].(map[string]any)
		git, _ := payload["git"].(map[string]any)
		if b, ok := git["branch"].(string); ok && b != "" {
			return b
		}
	}
	return ""
}

// sessionsQuery is what the sessions page is asked for.
type sessionsQuery struct {
	Text, Agent, Sort string
	Desc              bool
	Page, Per         int
}

func parseSessionsQuery(q url.Values) sessionsQuery {
	o := sessionsQuery{Text: strings.TrimSpace(q.Get("q")), Agent: q.Get("agent"), Sort: q.Get("sort"), Desc: q.Get("dir") != "asc"}
	if _, ok := sortKeys[o.Sort]; !ok {
		o.Sort = "last"
	}
	o.Page, _ = strconv.Atoi(q.Get("page"))
	o.Page = max(o.Page, 1)
	o.Per, _ = strconv.Atoi(q.Get("per"))
	if o.Per <= 0 || o.Per > 500 {
		o.Per = 50
	}
	return o
}

// sortKeys compare summaries by a column; needsDoc says whether the
// column needs each session's document read.
var sortKeys = map[string]struct {
	cmp      func(a, b *summary) int
	needsDoc bool
}{
	"name":      {func(a, b *summary) int { return cmp.Compare(a.Name, b.Name) }, false},
	"agent":     {func(a, b *summary) int { return cmp.Compare(a.Tip.Header.Source, b.Tip.Header.Source) }, false},
	"first":     {func(a, b *summary) int { return cmp.Compare(a.first, b.first) }, false},
	"last":      {func(a, b *summary) int { return cmp.Compare(a.last, b.last) }, false},
	"snapshots": {func(a, b *summary) int { return cmp.Compare(a.Tip.Header.Seq, b.Tip.Header.Seq) }, false},
	"messages":  {func(a, b *summary) int { return cmp.Compare(a.Tip.Header.Messages, b.Tip.Header.Messages) }, false},
	"tools":     {func(a, b *summary) int { return cmp.Compare(a.Numbers.ToolCalls, b.Numbers.ToolCalls) }, true},
	"tokens":    {func(a, b *summary) int { return cmp.Compare(a.Tokens, b.Tokens) }, true},
	"cost":      {func(a, b *summary) int { return cmp.Compare(a.Numbers.micros, b.Numbers.micros) }, true},
}

// sessionsView is the sessions page's data.
type sessionsView struct {
	Query  sessionsQuery
	Now    time.Time
	Rows   []*summary
	Total  int // sessions matching
	All    int // sessions in the repository
	Agents []string
	Pages  int
	Links  sessionLinks
	Tips   string // the digest of the tips listed (see tipsDigest)
	// Damaged are the refs of sessions whose newest snapshot cannot be
	// read (missing or damaged objects): named above the list, as git
	// snap sessions names them after it.
	Damaged []string
}

// sessionLinks make the URLs the page links to, keeping its query.
type sessionLinks struct{ q sessionsQuery }

// Sort is the URL that sorts by key, flipping the direction when the
// page is sorted by it already.
func (l sessionLinks) Sort(key string) string {
	q := l.q
	q.Desc = q.Sort != key || !q.Desc
	q.Sort, q.Page = key, 1
	return q.url()
}

// Page is the URL of page n.
func (l sessionLinks) Page(n int) string {
	q := l.q
	q.Page = n
	return q.url()
}

func (q sessionsQuery) url() string {
	v := url.Values{}
	set := func(k, val, def string) {
		if val != def {
			v.Set(k, val)
		}
	}
	set("q", q.Text, "")
	set("agent", q.Agent, "")
	set("sort", q.Sort, "last")
	if !q.Desc {
		v.Set("dir", "asc")
	}
	set("page", strconv.Itoa(q.Page), "1")
	set("per", strconv.Itoa(q.Per), "50")
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	q := parseSessionsQuery(r.URL.Query())
	v, err := s.sessions(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, "sessions", page{Title: "Sessions", Nav: "sessions", Data: v})
}

// sessions selects, sorts and pages the sessions as q asks.
func (s *Server) sessions(ctx context.Context, q sessionsQuery) (*sessionsView, error) {
	key := sortKeys[q.Sort]
	all, digest, damaged, err := s.list(ctx, key.needsDoc || q.Text != "")
	if err != nil {
		return nil, err
	}
	v := &sessionsView{Query: q, Now: s.opts.Now(), All: len(all), Links: sessionLinks{q}, Tips: digest, Damaged: damaged}
	agents := map[string]bool{}
	var rows []*summary
	text := strings.ToLower(q.Text)
	for _, sum := range all {
		agents[sum.Tip.Header.Source] = true
		if q.Agent != "" && sum.Tip.Header.Source != q.Agent {
			continue
		}
		if text != "" && !strings.Contains(strings.ToLower(sum.Name+"\x00"+sum.Title+"\x00"+sum.Branch), text) {
			continue
		}
		rows = append(rows, sum)
	}
	slices.SortFunc(rows, func(a, b *summary) int {
		c := key.cmp(a, b)
		if q.Desc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.Name, b.Name), cmp.Compare(a.Remote, b.Remote))
	})
	for a := range agents {
		v.Agents = append(v.Agents, a)
	}
	slices.Sort(v.Agents)
	v.Total = len(rows)
	v.Pages = max(1, (len(rows)+q.Per-1)/q.Per)
	start := min((q.Page-1)*q.Per, len(rows))
	v.Rows = rows[start:min(start+q.Per, len(rows))]
	return v, s.fill(ctx, v.Rows)
}
