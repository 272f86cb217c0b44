package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdTrace(e *env) *cli.Command {
	return &cli.Command{
		Name:      "trace",
		Usage:     "print a snapshot's timeline and its session's statistics",
		ArgsUsage: "REV",
		Description: `One line per event: prompts, model calls with their token counts, tool calls
with ok or failed, compactions; then events, model calls, tool calls, turns, tokens
(input, cache read, cache write and output apart), the duration between the first
and last record, and an estimate of the cost at list prices.

Examples:
   git snap trace fix-login
   git snap trace fix-login --json | jq .stats`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "timeline and statistics as JSON"},
		},
		Action: e.storeAction(1, 1, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			doc, entry, err := s.ReadRevision(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			a, _ := agent.Lookup(entry.Header.Source, e.agentEnv())
			lines, st := agent.Trace(doc, a)
			cost := agent.EstimateCost(st.ByModel, configPrices(cfg))
			costOut := &costJSON{Estimate: true, USD: cost.USD, Unknown: cost.Unknown, PricesDate: agent.PricesDate}
			if c.Bool("json") {
				return writeJSON(e.stdout, map[string]any{"timeline": lines, "stats": st, "cost": costOut})
			}
			w, done := e.pager(c)
			defer done()
			p := palette{e.color(c)}
			for _, l := range lines {
				detail := l.Detail
				if l.OK != nil {
					detail += map[bool]string{true: " " + p.green("ok"), false: " " + p.red("failed")}[*l.OK]
				}
				fmt.Fprintf(w, "%-12s %-10s %s\n", l.Time, l.Kind, detail)
			}
			fmt.Fprintf(w, "\nevents %d, model calls %d, tool calls %d (%d failed), turns %d, compactions %d\n",
				st.Events, st.ModelCalls, st.ToolCalls, st.ToolFailures, st.Turns, st.Compactions)
			fmt.Fprintf(w, "tokens: %d input, %d cache read, %d cache write, %d output; duration %s\n",
				st.InputTokens, st.CacheReadTokens, st.CacheWriteTokens, st.OutputTokens, st.Duration.Round(time.Second))
			fmt.Fprintf(w, "cost: %s\n", costText(costOut))
			return nil
		}),
	}
}
