package cmdline

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/render"
)

func cmdTrace(e *env) *cli.Command {
	return &cli.Command{
		Name:      "trace",
		Usage:     "print a snapshot's timeline and its session's statistics",
		ArgsUsage: "[REV]",
		Description: `One line per event: prompts, model calls with their token counts, tool calls
with ok or failed, compactions; then events, model calls, tool calls, turns, tokens
(input, cache read, cache write and output separately), the duration between the first
and last record, and an estimate of the cost at list prices. With no REV: the newest
snapshot of --session, else of the default session.

Examples:
   git snap trace fix-login
   git snap trace fix-login --json | jq .stats`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "timeline and statistics as JSON"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: sessionFlagUsage},
			rawFlag(),
		},
		Action: action(e, shape{max: 1, pager: true}, parseTrace, runTrace),
	}
}

type traceOptions struct {
	Rev     string
	Session string
	JSON    bool
}

func parseTrace(c *cli.Context) (traceOptions, error) {
	return traceOptions{Rev: c.Args().First(), Session: c.String("session"), JSON: c.Bool("json")}, nil
}

// runTrace prints the timeline of o.Rev and its session's statistics,
// with a cost estimate.
func runTrace(ctx context.Context, d *deps, o traceOptions) error {
	rev, err := d.revOrSession(ctx, o.Rev, o.Session)
	if err != nil {
		return err
	}
	doc, entry, err := d.repo.ReadRevision(ctx, rev)
	if err != nil {
		return err
	}
	a, _ := agent.Lookup(entry.Header.Source, d.agentEnv)
	read := agent.Read(doc, a) // one pass for the timeline and the numbers
	lines, st := read.Trace()
	n := read.Numbers()
	if err := withCost(d, &n); err != nil {
		return err
	}
	if o.JSON {
		return d.writeJSON(render.NewTraceJSON(render.EntryToJSON(entry, nil), lines, render.NumbersToJSON(n, n.First, n.Last)))
	}
	render.Trace(d.out, d.color, lines, st, *n.Cost)
	return nil
}
