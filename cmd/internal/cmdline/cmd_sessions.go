package cmdline

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/storage"
)

func cmdSessions(e *env) *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list sessions",
		Description: `Lists every session, most recently active first: its snapshots, first and last
time (of its records, when they carry times), last label, the agent that recorded it,
its tokens (input, cache read, cache write and output together) and an estimate of
their cost at list prices (see git snap usage for them by day, and git snap prices).

Examples:
   git snap sessions
   git snap sessions --json | jq -r '.sessions[].name'
   git snap sessions --json | jq '[.sessions[].cost.usd_micros] | add'`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "JSON for scripts (docs/json.md)"},
			rawFlag(),
		},
		Action: action(e, shape{pager: true}, parseSessions, runSessions),
	}
}

type sessionsOptions struct {
	JSON bool
}

func parseSessions(c *cli.Context) (sessionsOptions, error) {
	return sessionsOptions{JSON: c.Bool("json")}, nil
}

// runSessions lists the sessions, most recently active first, and then
// names those that could not be read. Each session is kept as the few
// values its line shows (listedSession), not as its newest snapshot's
// header: 100k sessions' headers took 275 MB.
func runSessions(ctx context.Context, d *deps, o sessionsOptions) error {
	proc.LimitMemory(readMemoryLimit)
	list, damaged, err := listedSessions(ctx, d)
	if err != nil {
		return err
	}
	if len(list) == 0 && damaged != nil && !o.JSON {
		return damaged // there are sessions: none could be read
	}
	slices.SortFunc(list, func(a, b *listedSession) int {
		return cmp.Or(b.at.Compare(a.at), strings.Compare(a.name, b.name))
	})
	if o.JSON {
		return errors.Join(writeSessionsJSON(d, list), damaged)
	}
	return errors.Join(writeSessionsTable(d.out, list), damaged)
}

// listedSession is what sessions shows of one session.
type listedSession struct {
	name, ref     string
	tip           storage.ID
	seq           int
	at            time.Time // the newest snapshot's, by which the list is sorted
	first, last   time.Time
	label, source string
	tokens        int64              // -1 for a session without totals
	usage         *render.TokensJSON // nil for a session without totals
	cost          prices.Cost
	hasCost       bool
}

// listedSessions reads every session's newest snapshot and keeps what
// sessions shows of it. Snapshots written without totals are kept whole
// until their documents are counted, after the others, all at once (the
// once-only upgrade of a repository an older version wrote).
func listedSessions(ctx context.Context, d *deps) (list []*listedSession, damaged, err error) {
	table, err := d.prices()
	if err != nil {
		return nil, nil, err
	}
	sources := map[string]string{}
	var uncounted []storage.Entry
	var where []int // in list, of each of uncounted
	err = d.repo.EachSession(ctx, func(sess storage.Session) error {
		if !gitstore.HasTotals(sess.Tip.Header) {
			uncounted, where = append(uncounted, sess.Tip), append(where, len(list))
		}
		list = append(list, listSession(sess, table, sources))
		return nil
	})
	if damaged, err = damagedApart(err); err != nil {
		return nil, nil, err
	}
	if len(uncounted) == 0 {
		return list, damaged, nil
	}
	totals, counted, err := d.repo.TotalsProgress(ctx, uncounted, upgradeProgress(d))
	if err != nil {
		return nil, nil, err
	}
	for i, e := range uncounted {
		e.Header.Counted, e.Header.Totals = counted[i], totals[i]
		l := list[where[i]]
		*l = *listSession(storage.Session{Name: l.name, Ref: l.ref, Tip: e}, table, sources)
	}
	return list, damaged, nil
}

// listSession is what sessions shows of sess, priced by table. Its
// strings are copied out of the commit message they were read from, so
// that the message is not kept; sources holds each agent's name once.
func listSession(sess storage.Session, table *prices.Prices, sources map[string]string) *listedSession {
	h := sess.Tip.Header
	first, last := render.SessionSpan(h)
	source, ok := sources[h.Source]
	if !ok {
		source = strings.Clone(h.Source)
		sources[source] = source
	}
	l := &listedSession{name: sess.Name, ref: sess.Ref, tip: sess.Tip.ID, seq: h.Seq, at: h.Time,
		first: first, last: last, label: strings.Clone(h.Label), source: source, tokens: -1, usage: render.HeaderTokensJSON(h)}
	if n, ok := agent.NumbersOfHeader(h); ok {
		l.tokens = n.InputTokens + n.CacheReadTokens + n.CacheWriteTokens + n.OutputTokens
		l.cost, l.hasCost = table.Estimate(n.ByModel), true
	}
	return l
}

// writeSessionsJSON writes sessions --json a session at a time; with
// --jq or a field list, whole, as every command's JSON is cut.
func writeSessionsJSON(d *deps, list []*listedSession) error {
	each := func(yield func(render.SessionJSON) bool) {
		for _, l := range list {
			if !yield(l.json()) {
				return
			}
		}
	}
	if d.jsonCut == nil {
		return render.WriteSessionsJSON(d.out, each)
	}
	return d.writeJSON(render.NewSessionsJSON(slices.Collect(iter.Seq[render.SessionJSON](each))))
}

// json is l as sessions --json lists it (render.SessionToJSON).
func (l *listedSession) json() render.SessionJSON {
	j := render.SessionJSON{Name: l.name, Ref: l.ref, Snapshots: l.seq, First: render.TimeJSON(l.first), Last: render.TimeJSON(l.last),
		LastLabel: nullString(l.label), Agent: nullString(l.source), Tip: l.tip.String(), Tokens: l.usage}
	if l.hasCost {
		j.Cost = render.CostToJSON(l.cost)
	}
	return j
}

// sessionsHeader is the table's first line, its cells.
var sessionsHeader = []string{"SESSION", "SNAPSHOTS", "FIRST", "LAST", "TOKENS", "COST", "LAST LABEL", "AGENT"}

// writeSessionsTable writes the sessions as a table, a line at a time,
// aligned as text/tabwriter aligns them (columns two spaces apart), but
// without holding every cell until the end.
func writeSessionsTable(out io.Writer, list []*listedSession) error {
	if len(list) == 0 {
		fmt.Fprintln(out, "no sessions yet; save one with git snap save --session NAME FILE")
		return nil
	}
	widths := make([]int, len(sessionsHeader)-1)
	measure := func(cells []string) {
		for i, c := range cells[:len(widths)] {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	measure(sessionsHeader)
	for _, l := range list {
		measure(l.cells())
	}
	w := bufio.NewWriter(out) // a failed write is Flush's error
	write := func(cells []string) {
		for i, c := range cells[:len(widths)] {
			_, _ = w.WriteString(c)
			_, _ = w.WriteString(strings.Repeat(" ", widths[i]+2-utf8.RuneCountInString(c)))
		}
		_, _ = w.WriteString(cells[len(widths)])
		_ = w.WriteByte('\n')
	}
	write(sessionsHeader)
	for _, l := range list {
		write(l.cells())
	}
	return w.Flush()
}

// cells are l's line of the table.
func (l *listedSession) cells() []string {
	tokens, cost := "-", "-"
	if l.tokens >= 0 {
		tokens = render.Thousands(l.tokens)
	}
	if l.hasCost {
		cost = render.ShortCost(l.cost)
	}
	return []string{l.name, strconv.Itoa(l.seq), l.first.Local().Format("2006-01-02 15:04"), l.last.Local().Format("2006-01-02 15:04"),
		tokens, cost, render.Shorten(l.label, 40), l.source}
}
