package main

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/render"
)

func cmdTrace(e *env) *cli.Command {
	return &cli.Command{
		Name:      "trace",
		Usage:     "print a snapshot's timeline and its session's statistics",
		ArgsUsage: "REV",
		Description: `One line per event: prompts, model calls with their token counts, tool calls
with ok or failed, compactions; then events, model calls, tool calls, turns, input and
output tokens and the duration.

Examples:
   git snap trace fix-login
   git snap trace fix-login --json | jq .stats`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "timeline and statistics as JSON"},
		},
		Action: action(e, shape{min: 1, max: 1, pager: true}, parseTrace, runTrace),
	}
}

type traceOptions struct {
	Rev  string
	JSON bool
}

func parseTrace(c *cli.Context) (traceOptions, error) {
	return traceOptions{Rev: c.Args().First(), JSON: c.Bool("json")}, nil
}

// runTrace prints the timeline of o.Rev and its session's statistics.
func runTrace(ctx context.Context, d *deps, o traceOptions) error {
	doc, entry, err := d.store.ReadRevision(ctx, o.Rev)
	if err != nil {
		return err
	}
	a, _ := agent.Lookup(entry.Header.Source, d.agentEnv)
	lines, st := agent.Trace(doc, a)
	if o.JSON {
		return render.JSON(d.out, map[string]any{"timeline": lines, "stats": st})
	}
	w, p := d.out, d.color
	for _, l := range lines {
		detail := l.Detail
		if l.OK != nil {
			detail += map[bool]string{true: " " + p.Green("ok"), false: " " + p.Red("failed")}[*l.OK]
		}
		fmt.Fprintf(w, "%-12s %-10s %s\n", l.Time, l.Kind, detail)
	}
	fmt.Fprintf(w, "\nevents %d, model calls %d, tool calls %d (%d failed), turns %d, compactions %d\n",
		st.Events, st.ModelCalls, st.ToolCalls, st.ToolFailures, st.Turns, st.Compactions)
	fmt.Fprintf(w, "input tokens %d, output tokens %d, duration %s\n", st.InputTokens, st.OutputTokens, st.Duration.Round(time.Second))
	return nil
}
