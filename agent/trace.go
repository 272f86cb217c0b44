package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// TraceLine is one line of a session's timeline.
type TraceLine struct {
	Time   string `json:"time,omitempty"`
	Kind   string `json:"kind"` // prompt, model, tool, compaction, event
	Detail string `json:"detail"`
	OK     *bool  `json:"ok,omitempty"` // for tools: succeeded or failed
}

// TraceStats sums a session up.
type TraceStats struct {
	Events       int           `json:"events"`
	ModelCalls   int           `json:"model_calls"`
	ToolCalls    int           `json:"tool_calls"`
	ToolFailures int           `json:"tool_failures"`
	Turns        int           `json:"turns"`
	InputTokens  int64         `json:"input_tokens"`
	OutputTokens int64         `json:"output_tokens"`
	Compactions  int           `json:"compactions"`
	Duration     time.Duration `json:"duration_ns"`
}

// Trace builds the timeline of a document: prompts, model calls with
// their tokens, tool calls with whether they failed, compactions; or, for
// a recorded harness, its events. a is the agent that recorded it; nil
// for a harness, whose prompts are then its user text messages.
func Trace(doc map[string]any, a Adapter) ([]TraceLine, TraceStats) {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	events, _ := doc[snapshot.MemberEvents].([]any)
	t := newTracer(msgs, a)
	for _, raw := range msgs {
		t.message(raw)
	}
	stats := snapshot.ComputeStats(map[string]any{snapshot.MemberMessages: msgs}, ViewMessage)
	t.st.ModelCalls, t.st.InputTokens, t.st.OutputTokens = stats.ModelCalls, stats.InputTokens, stats.OutputTokens
	for _, raw := range events {
		t.event(raw)
	}
	if !t.first.IsZero() {
		t.st.Duration = t.last.Sub(t.first)
	}
	return t.lines, t.st
}

// tracer is what Trace knows while it reads a session.
type tracer struct {
	a           Adapter
	lines       []TraceLine
	st          TraceStats
	first, last time.Time       // the span of the records' times
	failed      map[string]bool // tool call id → its result was an error
	seenModel   map[string]bool // responses on the timeline, by usage key
	totals      int             // running totals recorded: they give the model lines
	prev        snapshot.Usage  // the last running total
	model       string          // the model of the turn, as an event named it
}

func newTracer(msgs []any, a Adapter) *tracer {
	t := &tracer{a: a, failed: map[string]bool{}, seenModel: map[string]bool{}}
	for _, raw := range msgs {
		for _, p := range ViewMessage(raw).Parts {
			if p.Kind == snapshot.PartToolResult {
				t.failed[p.CallID] = p.IsError
			}
		}
	}
	_, t.totals = snapshot.RunningTotal(msgs, ViewMessage)
	return t
}

func (t *tracer) add(l TraceLine) { t.lines = append(t.lines, l) }

// message adds what one transcript record shows.
func (t *tracer) message(raw any) {
	t.st.Events++
	m := ViewMessage(raw)
	at := t.stamp(m.Time)
	if m.Role == "event" && m.Model != "" {
		t.model = m.Model
	}
	switch {
	case m.TotalUsage != nil: // a running total after each model call
		in, out := m.TotalUsage.Input-t.prev.Input, m.TotalUsage.Output-t.prev.Output
		t.prev = *m.TotalUsage
		t.add(TraceLine{Time: at, Kind: "model", Detail: modelDetail(t.model, in, out)})
	case t.isPrompt(raw, m):
		t.st.Turns++
		t.add(TraceLine{Time: at, Kind: "prompt", Detail: short(m.Parts[0].Text, 80)})
	case isCompaction(raw):
		t.st.Compactions++
		t.add(TraceLine{Time: at, Kind: "compaction", Detail: "conversation compacted"})
	case m.Role == "assistant" || m.Role == "model":
		t.modelCall(m, at)
		t.toolCalls(m, at)
	}
}

func (t *tracer) isPrompt(raw any, m snapshot.Message) bool {
	if t.a != nil {
		return t.a.IsPrompt(raw)
	}
	return m.Role == "user" && len(m.Parts) > 0 && m.Parts[0].Kind == snapshot.PartText
}

// modelCall adds a model line for the first record of a response, unless
// running totals give the model lines. Records with no usage key are one
// line until another kind comes between them.
func (t *tracer) modelCall(m snapshot.Message, at string) {
	key := m.UsageKey
	if t.totals != 0 || key != "" && t.seenModel[key] {
		return
	}
	t.seenModel[key] = key != ""
	detail := m.Model
	if m.Usage != nil {
		detail = modelDetail(m.Model, m.Usage.Input, m.Usage.Output)
	}
	if key != "" || m.Usage != nil || len(t.lines) == 0 || t.lines[len(t.lines)-1].Kind != "model" {
		t.add(TraceLine{Time: at, Kind: "model", Detail: detail})
	}
}

// toolCalls adds a line for each tool a record calls, failed when its
// result was an error.
func (t *tracer) toolCalls(m snapshot.Message, at string) {
	for _, p := range m.Parts {
		if p.Kind != snapshot.PartToolCall {
			continue
		}
		t.st.ToolCalls++
		ok := !t.failed[p.CallID]
		if !ok {
			t.st.ToolFailures++
		}
		t.add(TraceLine{Time: at, Kind: "tool", Detail: p.Tool, OK: &ok})
	}
}

// event adds one lifecycle event a harness recorded (see Recorder).
func (t *tracer) event(raw any) {
	ev, _ := raw.(map[string]any)
	t.st.Events++
	kind := str(ev, "type")
	at := ""
	if ms, ok := num(ev["ts_ms"]); ok {
		at = t.stamp(time.UnixMilli(ms).UTC().Format(time.RFC3339Nano))
	}
	line := TraceLine{Time: at, Kind: "event", Detail: kind}
	switch kind {
	case "post_model":
		t.st.ModelCalls++
		in, _ := num(ev["input_tokens"])
		out, _ := num(ev["output_tokens"])
		t.st.InputTokens += in
		t.st.OutputTokens += out
		line = TraceLine{Time: at, Kind: "model", Detail: modelDetail(str(ev, "model"), in, out)}
	case "post_tool":
		t.st.ToolCalls++
		ok := ev["ok"] != false && ev["error"] == nil
		if !ok {
			t.st.ToolFailures++
		}
		line = TraceLine{Time: at, Kind: "tool", Detail: str(ev, "tool"), OK: &ok}
	case "pre_compact":
		t.st.Compactions++
		line.Kind = "compaction"
	case "start":
		t.st.Turns++
	}
	t.add(line)
}

func modelDetail(model string, in, out int64) string {
	return strings.TrimSpace(fmt.Sprintf("%s in=%d out=%d", model, in, out))
}

// stamp parses a record's time, widens the session's span, and returns
// the time shortened for the timeline.
func (t *tracer) stamp(s string) string {
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	if t.first.IsZero() || at.Before(t.first) {
		t.first = at
	}
	if at.After(t.last) {
		t.last = at
	}
	return at.UTC().Format("15:04:05.000")
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
