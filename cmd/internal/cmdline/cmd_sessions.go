package cmdline

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
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
// names those that could not be read.
func runSessions(ctx context.Context, d *deps, o sessionsOptions) error {
	sessions, damaged, err := readableSessions(ctx, d.repo)
	if err != nil {
		return err
	}
	if len(sessions) == 0 && damaged != nil && !o.JSON {
		return damaged // there are sessions: none could be read
	}
	return errors.Join(listSessions(ctx, d, o, sessions), damaged)
}

func listSessions(ctx context.Context, d *deps, o sessionsOptions, sessions []storage.Session) error {
	w := d.out
	costs, err := sessionCosts(ctx, d, sessions)
	if err != nil {
		return err
	}
	if o.JSON {
		out := []render.SessionJSON{}
		for i, sess := range sessions {
			out = append(out, render.SessionToJSON(sess, costs[i]))
		}
		return d.writeJSON(render.NewSessionsJSON(out))
	}
	if len(sessions) == 0 {
		fmt.Fprintln(w, "no sessions yet; save one with git snap save --session NAME FILE")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSNAPSHOTS\tFIRST\tLAST\tTOKENS\tCOST\tLAST LABEL\tAGENT")
	for i, sess := range sessions {
		h := sess.Tip.Header
		first, last := render.SessionSpan(h)
		tokens, cost := "-", "-"
		if n, ok := agent.NumbersOfHeader(h); ok {
			tokens = render.Thousands(n.InputTokens + n.CacheReadTokens + n.CacheWriteTokens + n.OutputTokens)
		}
		if c := costs[i]; c != nil {
			cost = render.ShortCost(*c)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", sess.Name, h.Seq, first.Local().Format("2006-01-02 15:04"),
			last.Local().Format("2006-01-02 15:04"), tokens, cost, render.Shorten(h.Label, 40), h.Source)
	}
	return tw.Flush()
}

// sessionCosts puts each session's totals (from its newest commit, or
// counted once from its document) on its header and prices them: nil
// for a session without totals.
func sessionCosts(ctx context.Context, d *deps, sessions []storage.Session) ([]*prices.Cost, error) {
	tips := make([]storage.Entry, len(sessions))
	for i, s := range sessions {
		tips[i] = s.Tip
	}
	totals, counted, err := d.repo.TotalsProgress(ctx, tips, upgradeProgress(d))
	if err != nil {
		return nil, err
	}
	table, err := d.prices()
	if err != nil {
		return nil, err
	}
	out := make([]*prices.Cost, len(sessions))
	for i := range sessions {
		h := &sessions[i].Tip.Header
		h.Counted, h.Totals = counted[i], totals[i]
		if n, ok := agent.NumbersOfHeader(*h); ok {
			c := table.Estimate(n.ByModel)
			out[i] = &c
		}
	}
	return out, nil
}
