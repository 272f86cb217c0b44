package agent

import (
	"maps"
	"slices"
	"time"

	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/snapshot"
)

// Numbers is a document's statistics as scripts read them. Input
// tokens are uncached input; cache reads and writes are counted separately.
type Numbers struct {
	// Messages are the conversation's messages as a person counts them:
	// prompts, answers, tool calls and tool results; Records are the
	// records the transcript holds, which agents write many more of.
	Messages         int          `json:"messages"`
	Records          int          `json:"records"`
	Events           int          `json:"events"`
	Files            int          `json:"files"`
	ToolCalls        int          `json:"tool_calls"`
	ToolFailures     int          `json:"tool_failures"`
	ModelCalls       int          `json:"model_calls"`
	Turns            int          `json:"turns"`
	Compactions      int          `json:"compactions"`
	InputTokens      int64        `json:"input_tokens"`
	CacheReadTokens  int64        `json:"cache_read_tokens"`
	CacheWriteTokens int64        `json:"cache_write_tokens"`
	OutputTokens     int64        `json:"output_tokens"`
	Estimated        bool         `json:"tokens_estimated"`
	Cost             *prices.Cost `json:"cost,omitempty"`
	// First and Last are the times of the records, zero when none has one.
	First, Last time.Time `json:"-"`
	// ByModel sums the tokens per model, for the cost.
	ByModel map[string]snapshot.Usage `json:"-"`
}

// NumbersOf reads a document's numbers the way trace does, with the view of
// the agent that recorded it (source).
func NumbersOf(doc map[string]any, source string) Numbers {
	return ReadAs(doc, source).Numbers()
}

// Add sums o into n, as a repository's statistics sum its sessions'.
func (n *Numbers) Add(o Numbers) {
	n.Messages += o.Messages
	n.Records += o.Records
	n.Events += o.Events
	n.Files += o.Files
	n.ToolCalls += o.ToolCalls
	n.ToolFailures += o.ToolFailures
	n.ModelCalls += o.ModelCalls
	n.Turns += o.Turns
	n.Compactions += o.Compactions
	n.InputTokens += o.InputTokens
	n.CacheReadTokens += o.CacheReadTokens
	n.CacheWriteTokens += o.CacheWriteTokens
	n.OutputTokens += o.OutputTokens
	n.Estimated = n.Estimated || o.Estimated
	if n.ByModel == nil {
		n.ByModel = map[string]snapshot.Usage{}
	}
	for model, u := range o.ByModel {
		v := n.ByModel[model]
		v.Add(u)
		n.ByModel[model] = v
	}
}

// CountTotals is a gitstore.Counter: a document's numbers as its
// snapshot's header keeps them, so that stats over many sessions reads
// commits, not documents.
func CountTotals(doc map[string]any, source string) snapshot.Totals {
	return NumbersOf(doc, source).Totals()
}

// Totals are the numbers a header keeps (the counts of messages, events
// and files it has, separately).
func (n Numbers) Totals() snapshot.Totals {
	t := snapshot.Totals{
		Messages: n.Messages, ModelCalls: n.ModelCalls, ToolCalls: n.ToolCalls, ToolFailures: n.ToolFailures, Turns: n.Turns, Compactions: n.Compactions,
		InputTokens: n.InputTokens, CacheReadTokens: n.CacheReadTokens, CacheWriteTokens: n.CacheWriteTokens, OutputTokens: n.OutputTokens,
		Estimated: n.Estimated, First: n.First, Last: n.Last,
	}
	for _, model := range slices.Sorted(maps.Keys(n.ByModel)) {
		t.ByModel = append(t.ByModel, snapshot.ModelUsage{Model: model, Usage: n.ByModel[model]})
	}
	return t
}

// NumbersOfHeader reads the numbers a counted header keeps (see
// snapshot.Header.Counted); ok is false when it keeps none.
func NumbersOfHeader(h snapshot.Header) (n Numbers, ok bool) {
	if !h.Counted {
		return Numbers{}, false
	}
	t := h.Totals
	n = Numbers{
		Messages: t.Messages, Records: h.Messages, Events: h.Events, Files: h.Files,
		ModelCalls: t.ModelCalls, ToolCalls: t.ToolCalls, ToolFailures: t.ToolFailures, Turns: t.Turns, Compactions: t.Compactions,
		InputTokens: t.InputTokens, CacheReadTokens: t.CacheReadTokens, CacheWriteTokens: t.CacheWriteTokens, OutputTokens: t.OutputTokens,
		Estimated: t.Estimated, First: t.First, Last: t.Last, ByModel: map[string]snapshot.Usage{},
	}
	for _, m := range t.ByModel {
		u := n.ByModel[m.Model]
		u.Add(m.Usage)
		n.ByModel[m.Model] = u
	}
	return n, true
}
