package viewer

import (
	"fmt"
	"sort"
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
	Tokens int64
	Cost   *prices.Cost
}

// turnsOf adds each model call (report's Session.EachCall, as stats
// counts them) to the turn of report's whose records hold its first
// record, or that shows the subagent whose call it is (threads: report's
// Session.ThreadTurns), and charts them in a box of w×h. A long session
// has 100,000 calls and 50,000 turns, so the calls are read twice rather
// than held: first to place each in its turn, then to sum each turn's
// usage by model, held only from a turn's first call to its last.
func turnsOf(turns []report.Turn, threads map[int]int, calls func(func(snapshot.Call)), table *prices.Prices, w, h int) ([]turn, chart) {
	out := make([]turn, len(turns))
	for i, t := range turns {
		out[i] = turn{N: t.N, ID: t.ID, Prompt: t.Prompt}
	}
	var placed []int32    // each call's turn, -1 for none
	var points [][2]int64 // each call's context and output
	last := make([]int, len(turns))
	calls(func(c snapshot.Call) {
		points = append(points, [2]int64{contextOf(c.Usage), c.Usage.Output})
		i := turnOfRecord(turns, threads, c.Records[0])
		placed = append(placed, int32(i))
		if i >= 0 {
			out[i].Tokens += contextOf(c.Usage) + c.Usage.Output
			last[i] = len(placed)
		}
	})
	open := map[int]map[string]snapshot.Usage{} // by turn, until its last call
	n := 0
	calls(func(c snapshot.Call) {
		i := int(placed[n])
		n++
		if i < 0 {
			return // before a range
		}
		if open[i] == nil {
			open[i] = map[string]snapshot.Usage{}
		}
		u := open[i][c.Model]
		u.Add(c.Usage)
		open[i][c.Model] = u
		if last[i] == n {
			cost := table.Estimate(open[i])
			out[i].Cost = &cost
			delete(open, i)
		}
	})
	return out, chartOf(points, w, h)
}

// turnOfRecord is the place in turns of the turn that shows record r:
// its subagent's (threads), or the one whose records hold it; -1 for
// none.
func turnOfRecord(turns []report.Turn, threads map[int]int, r int) int {
	if i, ok := threads[r]; ok {
		return i
	}
	// turns are in order and do not overlap: the last one starting at or
	// before r is the only one that can hold it
	i := sort.Search(len(turns), func(i int) bool { return turns[i].Start > r }) - 1
	if i < 0 || r >= turns[i].End {
		return -1
	}
	return i
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

// chartOf draws the session's model calls, one point each (its context
// and output), in a box of w×h.
func chartOf(calls [][2]int64, w, h int) chart {
	c := chart{Width: w, Height: h, Calls: len(calls)}
	for _, call := range calls {
		c.Max = max(c.Max, call[0], call[1])
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
		fmt.Fprintf(&ctx, "%.1f,%.1f ", x, y(call[0]))
		fmt.Fprintf(&out, "%.1f,%.1f ", x, y(call[1]))
	}
	c.Context, c.Output = strings.TrimSpace(ctx.String()), strings.TrimSpace(out.String())
	return c
}

func contextOf(u snapshot.Usage) int64 { return u.Input + u.CacheRead + u.CacheWrite }
