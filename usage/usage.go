// Package usage adds up the tokens and cost of sessions by day, week,
// month or session, optionally split by model, agent, branch or session,
// the way ccusage reports an agent's usage. It covers every session of a
// store, local and fetched, and uses the user's time zone.
//
// A model call counts on the day of its own record, so a session that
// runs past midnight is split between the days. For a session whose
// records all fall in one period, the totals stored in its newest commit
// are used, and no document is read. A session's document is read only
// when the session spans several periods or crosses the Since or Until
// bound, or when the report is split by branch. It is read through
// agent.Read, as the stats and trace commands read it.
package usage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Periods that a report can group by.
const (
	Day     = "day"
	Week    = "week" // ISO weeks, named by their Monday
	Month   = "month"
	Session = "session"
)

// Ways to split each period.
const (
	ByModel   = "model"
	ByAgent   = "agent"
	ByBranch  = "branch"
	BySession = "session"
)

// Options configure what a Report adds up.
type Options struct {
	Period string // Day (when ""), Week, Month or Session
	By     string // "" for no split, or ByModel, ByAgent, ByBranch, BySession
	// Since and Until bound the model calls' times (Until is exclusive).
	// A zero value means no bound.
	Since, Until time.Time
	// Location is the time zone in which days begin; time.Local when nil.
	Location *time.Location
	// Prices gives the price of the tokens; the embedded dataset when nil.
	Prices *prices.Prices
	// Progress, when not nil, is called with the progress of counting the
	// snapshots written without totals (gitstore.Store.TotalsProgress).
	Progress func(done, of int)
}

// Row is one period, or one part of a period when the report is split.
type Row struct {
	Period string // 2026-02-10; the Monday of a week; 2026-02; a session's name
	Key    string // the model, agent, branch or session of a split; "" when not split
	// Sessions counts the sessions with calls in the row.
	Sessions int
	// Models lists the models of the row's calls, sorted ("" for calls
	// that name no model).
	Models []string
	Usage  snapshot.Usage
	Cost   prices.Cost
	// ByModel holds the tokens of each model, from which Cost is computed.
	ByModel map[string]snapshot.Usage

	sessions map[string]bool
}

// Report holds the rows, ordered by period then key, and their total.
type Report struct {
	Options Options
	Rows    []Row
	Total   Row
}

// part holds the tokens of one session in one row.
type part struct {
	period, key, model string
	u                  snapshot.Usage
}

// Store is what usage reads: sessions and snapshots, plus the totals of
// snapshots written before totals were stored, which a store computes
// once and caches (gitstore.Store.TotalsProgress).
type Store interface {
	storage.Reader
	TotalsProgress(ctx context.Context, entries []storage.Entry, progress func(done, of int)) ([]snapshot.Totals, []bool, error)
}

// Compute adds up the usage of every session in s, as described in the
// package documentation.
func Compute(ctx context.Context, s Store, o Options) (Report, error) {
	o.Period = cmp.Or(o.Period, Day)
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Prices == nil {
		o.Prices = prices.Default()
	}
	switch o.Period {
	case Day, Week, Month, Session:
	default:
		return Report{}, fmt.Errorf("usage: unknown period %q: use %s, %s, %s or %s", o.Period, Day, Week, Month, Session)
	}
	switch o.By {
	case "", ByModel, ByAgent, ByBranch, BySession:
	default:
		return Report{}, fmt.Errorf("usage: cannot split by %q: use %s, %s, %s or %s", o.By, ByModel, ByAgent, ByBranch, BySession)
	}
	entries, err := Sessions(ctx, s)
	if err != nil {
		return Report{}, err
	}
	totals, counted, err := s.TotalsProgress(ctx, entries, o.Progress)
	if err != nil {
		return Report{}, err
	}
	rows := map[[2]string]*Row{}
	for i, e := range entries {
		parts, err := o.parts(ctx, s, e, totals[i], counted[i])
		if err != nil {
			return Report{}, err
		}
		for _, p := range parts {
			r := rows[[2]string{p.period, p.key}]
			if r == nil {
				r = &Row{Period: p.period, Key: p.key, ByModel: map[string]snapshot.Usage{}, sessions: map[string]bool{}}
				rows[[2]string{p.period, p.key}] = r
			}
			r.add(e.Header.Session, p.model, p.u)
		}
	}
	rep := Report{Options: o, Total: Row{ByModel: map[string]snapshot.Usage{}, sessions: map[string]bool{}}}
	for _, r := range rows {
		rep.Rows = append(rep.Rows, *r)
	}
	slices.SortFunc(rep.Rows, func(a, b Row) int {
		return cmp.Or(strings.Compare(a.Period, b.Period), strings.Compare(a.Key, b.Key))
	})
	for i := range rep.Rows {
		r := &rep.Rows[i]
		for sess := range r.sessions {
			rep.Total.sessions[sess] = true
		}
		for model, u := range r.ByModel {
			rep.Total.add("", model, u)
		}
		r.finish(o.Prices)
	}
	rep.Total.finish(o.Prices)
	return rep, nil
}

func (r *Row) add(session, model string, u snapshot.Usage) {
	if session != "" {
		r.sessions[session] = true
	}
	v := r.ByModel[model]
	v.Add(u)
	r.ByModel[model] = v
	r.Usage.Add(u)
}

func (r *Row) finish(p *prices.Prices) {
	r.Sessions = len(r.sessions)
	r.Models = []string{}
	for model, u := range r.ByModel {
		if u.Total() != 0 {
			r.Models = append(r.Models, model)
		}
	}
	slices.Sort(r.Models)
	r.Cost = p.Estimate(r.ByModel)
}

// Sessions returns the newest snapshot of each of the store's sessions,
// counting each session once. It uses the snapshot of the local ref or,
// if there is none, the fetched ref with the most snapshots, so that a
// session pushed from here and fetched back, or fetched from two
// remotes, counts as one session.
func Sessions(ctx context.Context, s storage.Reader) ([]storage.Entry, error) {
	tips, err := s.Tips(ctx)
	if err != nil {
		return nil, err
	}
	refs := slices.Sorted(func(yield func(string) bool) {
		for ref := range tips {
			if !yield(ref) {
				return
			}
		}
	})
	best := map[string]storage.Entry{}
	local := map[string]bool{}
	var names []string
	for _, ref := range refs {
		e, err := s.Entry(ctx, tips[ref])
		if err != nil {
			continue // not a snapshot: a ref that something else created
		}
		name, isLocal := e.Header.Session, !strings.HasPrefix(ref, "refs/remotes/")
		prev, seen := best[name]
		switch {
		case !seen:
			names = append(names, name)
		case local[name]:
			continue
		case !isLocal && prev.Header.Seq >= e.Header.Seq:
			continue
		}
		best[name], local[name] = e, isLocal || local[name]
	}
	slices.Sort(names)
	out := make([]storage.Entry, len(names))
	for i, n := range names {
		out[i] = best[n]
	}
	return out, nil
}

// period names the period that t falls in.
func (o Options) period(t time.Time, session string) string {
	t = t.In(o.Location)
	switch o.Period {
	case Session:
		return session
	case Month:
		return t.Format("2006-01")
	case Week:
		wd := (int(t.Weekday()) + 6) % 7 // days since Monday
		return t.AddDate(0, 0, -wd).Format("2006-01-02")
	}
	return t.Format("2006-01-02")
}

func (o Options) in(t time.Time) bool {
	return (o.Since.IsZero() || !t.Before(o.Since)) && (o.Until.IsZero() || t.Before(o.Until))
}

// key returns a session's key in a split other than by model.
func (o Options) key(h snapshot.Header, branch string) string {
	switch o.By {
	case ByAgent:
		return h.Source
	case BySession:
		return h.Session
	case ByBranch:
		return branch
	}
	return ""
}

// parts returns one session's tokens by row. They come from the
// session's totals when its records fall in one period within the
// bounds, and otherwise from its individual calls.
func (o Options) parts(ctx context.Context, s Store, e storage.Entry, t snapshot.Totals, counted bool) ([]part, error) {
	h := e.Header
	first, last := t.First, t.Last
	if first.IsZero() {
		first, last = h.Time, h.Time // no record has a time: use the snapshot's
	}
	if counted && o.By != ByBranch && o.period(first, h.Session) == o.period(last, h.Session) && o.in(first) && o.in(last) {
		var out []part
		for _, m := range t.ByModel {
			out = append(out, o.part(h, "", first, m.Model, m.Usage))
		}
		return out, nil
	}
	if counted && ((!o.Since.IsZero() && last.Before(o.Since)) || (!o.Until.IsZero() && !first.Before(o.Until))) {
		return nil, nil // entirely outside the bounds
	}
	doc, _, err := s.Read(ctx, e.ID)
	if err != nil {
		return nil, err
	}
	r := agent.ReadAs(doc, h.Source)
	branch := Branch(r.Records)
	var out []part
	add := func(at time.Time, model string, u snapshot.Usage) {
		if at.IsZero() {
			at = last
		}
		if o.in(at) {
			out = append(out, o.part(h, branch, at, model, u))
		}
	}
	for _, c := range r.Calls {
		at, _ := time.Parse(time.RFC3339Nano, c.Time)
		add(at, c.Model, c.Usage)
	}
	for _, raw := range r.Events { // model calls recorded as events by a harness
		ev, _ := raw.(map[string]any)
		if ev["type"] != "post_model" {
			continue
		}
		ms, _ := ev["ts_ms"].(snapshot.Number)
		n, _ := ms.Int64()
		model, _ := ev["model"].(string)
		add(time.UnixMilli(n).UTC(), model, agent.EventUsage(ev).OfCall())
	}
	return out, nil
}

func (o Options) part(h snapshot.Header, branch string, at time.Time, model string, u snapshot.Usage) part {
	key := model
	if o.By != ByModel {
		key = o.key(h, branch)
	}
	return part{period: o.period(at, h.Session), key: key, model: model, u: u}
}

// Branch returns the git branch that a session's records say it worked
// on (Claude Code's gitBranch, Codex's session_meta git.branch), or ""
// if no record names one.
func Branch(records []any) string {
	for _, raw := range records[:min(len(records), 64)] {
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
