package viewer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/prices"

	"github.com/git-snap/git-snap/report"
	"github.com/git-snap/git-snap/snapshot"
)

// turn is one turn of the timeline report.Load read, with the tokens
// and cost of its model calls.
type turn struct {
	N      int // as report numbers it: 1 for the first prompt, 0 before it
	ID     string
	Prompt string
	Calls  int
	Usage  snapshot.Usage
	Tokens int64
	Cost   *prices.Cost
}

// turnsOf adds each model call (report's Session.Calls, as stats counts
// them) to the turn of report's whose records hold its first record, or
// that shows the subagent whose call it is (threads: report's
// Session.ThreadTurns).
func turnsOf(turns []report.Turn, threads map[int]int, calls []snapshot.Call, table *prices.Prices) []turn {
	out := make([]turn, len(turns))
	for i, t := range turns {
		out[i] = turn{N: t.N, ID: t.ID, Prompt: t.Prompt}
	}
	byModel := make([]map[string]snapshot.Usage, len(turns))
	for _, c := range calls {
		i, ok := threads[c.Records[0]]
		if !ok {
			i = slices.IndexFunc(turns, func(t report.Turn) bool { return t.Start <= c.Records[0] && c.Records[0] < t.End })
		}
		if i < 0 {
			continue // before a range
		}
		out[i].Calls += c.Count
		out[i].Usage.Add(c.Usage)
		if byModel[i] == nil {
			byModel[i] = map[string]snapshot.Usage{}
		}
		u := byModel[i][c.Model]
		u.Add(c.Usage)
		byModel[i][c.Model] = u
	}
	for i := range out {
		u := out[i].Usage
		out[i].Tokens = u.Input + u.CacheRead + u.CacheWrite + u.Output
		if byModel[i] != nil {
			c := table.Estimate(byModel[i])
			out[i].Cost = &c
		}
	}
	return out
}

// chart is a small line chart of the context each model call read
// (input, cache read and cache write) and the output it wrote, drawn as
// SVG by the template: no script, no library.
type chart struct {
	Width, Height int
	Context       string // polyline points
	Output        string
	Max           int64
	Calls         int
}

// chartOf draws the session's model calls, one point each, in a box of
// w×h.
func chartOf(calls []snapshot.Call, w, h int) chart {
	c := chart{Width: w, Height: h, Calls: len(calls)}
	for _, call := range calls {
		c.Max = max(c.Max, contextOf(call.Usage), call.Usage.Output)
	}
	if len(calls) == 0 || c.Max == 0 {
		return c
	}
	var ctx, out strings.Builder
	for i, call := range calls {
		x := float64(w) / 2
		if len(calls) > 1 {
			x = float64(i) * float64(w) / float64(len(calls)-1)
		}
		y := func(v int64) float64 { return float64(h) - float64(v)*float64(h-2)/float64(c.Max) - 1 }
		fmt.Fprintf(&ctx, "%.1f,%.1f ", x, y(contextOf(call.Usage)))
		fmt.Fprintf(&out, "%.1f,%.1f ", x, y(call.Usage.Output))
	}
	c.Context, c.Output = strings.TrimSpace(ctx.String()), strings.TrimSpace(out.String())
	return c
}

func contextOf(u snapshot.Usage) int64 { return u.Input + u.CacheRead + u.CacheWrite }
