package viewer

import (
	"fmt"
	"strings"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
)

// turn is one prompt and what the model did for it: the tokens and cost
// of its model calls.
type turn struct {
	N      int // 1 for the first prompt; 0 for what came before any
	Prompt string
	Index  int // the prompt's message
	Calls  int
	Usage  snapshot.Usage
	Tokens int64
	Cost   *agent.Cost
}

// turnsOf splits a conversation at its prompts (as trace counts turns)
// and adds each model call (snapshot.ModelCalls, as stats counts them) to
// the turn its first record is in.
func turnsOf(msgs []any, a agent.Adapter, prices map[string]agent.Price) []turn {
	starts := []turn{{N: 0, Index: 0}}
	for i, raw := range msgs {
		if isPrompt(raw, a) {
			starts = append(starts, turn{N: len(starts), Index: i, Prompt: firstPrompt([]any{raw}, a)})
		}
	}
	byModel := make([]map[string]snapshot.Usage, len(starts))
	for _, c := range snapshot.ModelCalls(msgs, agent.ViewMessage) {
		t := turnAt(starts, c.Records[0])
		starts[t].Calls++
		starts[t].Usage.Add(c.Usage)
		if byModel[t] == nil {
			byModel[t] = map[string]snapshot.Usage{}
		}
		u := byModel[t][c.Model]
		u.Add(c.Usage)
		byModel[t][c.Model] = u
	}
	for i := range starts {
		t := &starts[i]
		t.Tokens = t.Usage.Input + t.Usage.CacheRead + t.Usage.CacheWrite + t.Usage.Output
		if byModel[i] != nil {
			c := agent.EstimateCost(byModel[i], prices)
			t.Cost = &c
		}
	}
	if starts[0].Calls == 0 {
		starts = starts[1:]
	}
	return starts
}

func isPrompt(raw any, a agent.Adapter) bool {
	if a != nil {
		return a.IsPrompt(raw)
	}
	m := agent.ViewMessage(raw)
	return m.Role == "user" && len(m.Parts) > 0 && m.Parts[0].Kind == snapshot.PartText
}

// turnAt is the turn message i belongs to: the last that starts at or
// before it.
func turnAt(turns []turn, i int) int {
	lo, hi := 0, len(turns)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if turns[mid].Index <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
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
func chartOf(msgs []any, w, h int) chart {
	calls := snapshot.ModelCalls(msgs, agent.ViewMessage)
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
