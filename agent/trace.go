package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// TraceLine is one line of a session's timeline.
type TraceLine struct {
	At     time.Time `json:"-"` // zero when the record has no time
	Time   string    `json:"time,omitempty"`
	Kind   string    `json:"kind"` // prompt, model, tool, compaction, event
	Detail string    `json:"detail"`
	OK     *bool     `json:"ok,omitempty"` // for tools: succeeded or failed
}

// TraceStats sums a session up. Input tokens are uncached input; cache
// reads and writes are counted separately.
type TraceStats struct {
	Events int `json:"events"`
	// Messages are those a person would count in the conversation:
	// prompts, answers, tool calls and tool results, not the records an
	// agent writes around them.
	Messages         int           `json:"messages"`
	ModelCalls       int           `json:"model_calls"`
	ToolCalls        int           `json:"tool_calls"`
	ToolFailures     int           `json:"tool_failures"`
	Turns            int           `json:"turns"`
	InputTokens      int64         `json:"input_tokens"`
	CacheReadTokens  int64         `json:"cache_read_tokens"`
	CacheWriteTokens int64         `json:"cache_write_tokens"`
	OutputTokens     int64         `json:"output_tokens"`
	Compactions      int           `json:"compactions"`
	First            time.Time     `json:"first,omitzero"`
	Last             time.Time     `json:"last,omitzero"`
	Duration         time.Duration `json:"duration_ns"`
	// ByModel is the tokens of each model, for a cost estimate.
	ByModel map[string]snapshot.Usage `json:"-"`
}

// Trace builds the timeline of a document: prompts, model calls with
// their tokens, tool calls with whether they failed, compactions; or, for
// a recorded harness, its events. a is the agent that recorded it; nil
// for a harness, whose prompts are then its user text messages. Model
// calls are those of snapshot.ModelCalls, as stats counts them.
func Trace(doc map[string]any, a Adapter) ([]TraceLine, TraceStats) {
	return Read(doc, a).Trace()
}

// Trace is the session's timeline and statistics (see the function
// Trace): records in Order, then a harness's events. The statistics are
// the session's Numbers; the timeline reads prompts and commands with
// the same rules (turnState), each thread separately.
func (r *Session) Trace() ([]TraceLine, TraceStats) {
	t := newTracer(r)
	for _, i := range r.Order() {
		t.message(i, r.Record(i), r.Views[i], r.Thread[i])
	}
	for _, raw := range r.Events {
		t.event(raw)
	}
	n := r.Numbers()
	st := TraceStats{
		Events: len(r.Records) + len(r.Events), Messages: n.Messages, ModelCalls: n.ModelCalls, ToolCalls: n.ToolCalls, ToolFailures: n.ToolFailures,
		Turns: n.Turns, InputTokens: n.InputTokens, CacheReadTokens: n.CacheReadTokens, CacheWriteTokens: n.CacheWriteTokens, OutputTokens: n.OutputTokens,
		Compactions: n.Compactions, First: n.First, Last: n.Last, ByModel: n.ByModel,
	}
	if !n.First.IsZero() {
		st.Duration = n.Last.Sub(n.First)
	}
	return t.lines, st
}

// tracer is what Trace knows while it writes a session's timeline.
type tracer struct {
	turns   turnReader
	lines   []TraceLine
	failed  map[string]bool       // tool call id → its result was an error
	calls   map[int]snapshot.Call // model calls by their first record
	threads map[string]*threadLines
}

// threadLines is what the timeline keeps of one thread: its turns' state
// and the line of its slash command not yet answered, or -1.
type threadLines struct {
	turnState
	command int
}

// commandReader is an agent whose slash commands are user records: a
// command starts a turn when the model answers it, and not when the
// harness answers it (a built-in such as /mcp prints its own output).
type commandReader interface {
	// IsCommand reports whether a record is a slash command the user typed.
	IsCommand(record any) bool
	// IsInput reports whether a record is input that is not the model's
	// answer: after it, a pending command is no turn.
	IsInput(record any) bool
}

func newTracer(r *Session) *tracer {
	t := &tracer{turns: newTurnReader(r.Agent), failed: map[string]bool{}, calls: map[int]snapshot.Call{}, threads: map[string]*threadLines{}}
	for _, v := range r.Views {
		for _, p := range v.Parts {
			if p.Kind == snapshot.PartToolResult {
				t.failed[p.CallID] = p.IsError
			}
		}
	}
	for _, c := range r.Calls {
		t.calls[c.Records[0]] = c
	}
	return t
}

func (t *tracer) add(l TraceLine) {
	if !l.At.IsZero() {
		l.Time = l.At.UTC().Format("15:04:05.000") // short, for the timeline
	}
	t.lines = append(t.lines, l)
}

// message adds what one transcript record shows.
func (t *tracer) message(i int, raw any, m snapshot.Message, thread string) {
	at, _ := time.Parse(time.RFC3339Nano, m.Time)
	if c, ok := t.calls[i]; ok {
		d := modelDetail(c.Model, c.Usage)
		if c.Count > 1 {
			d = fmt.Sprintf("%d calls, the run's totals: %s", c.Count, d)
		}
		t.add(TraceLine{At: at, Kind: "model", Detail: d})
	}
	th := t.threads[thread]
	if th == nil {
		th = &threadLines{command: -1}
		t.threads[thread] = th
	}
	step, answered := th.step(t.turns, raw, m)
	if answered {
		t.lines[th.command].Kind = "prompt"
	}
	if !th.turnState.command {
		th.command = -1
	}
	switch step {
	case stepCommand:
		th.command = len(t.lines)
		t.add(TraceLine{At: at, Kind: "command", Detail: short(snapshot.ContentText(firstText(m)), 80)})
	case stepPrompt:
		t.add(TraceLine{At: at, Kind: "prompt", Detail: short(promptText(m), 80)})
	case stepCompaction:
		t.add(TraceLine{At: at, Kind: "compaction", Detail: "conversation compacted"})
	case stepAnswer:
		t.toolCalls(m, at)
	}
}

// recordKind names a record's shape: its type, and its payload's type
// when it has one (Codex's event_msg/user_message).
func recordKind(raw any) string {
	r, _ := raw.(map[string]any)
	p, _ := r["payload"].(map[string]any)
	return str(r, "type") + "/" + str(p, "type")
}

// promptText is a prompt's text: its first part's.
func promptText(m snapshot.Message) string {
	if len(m.Parts) == 0 {
		return ""
	}
	return m.Parts[0].Text
}

func firstText(m snapshot.Message) string {
	for _, p := range m.Parts {
		if p.Kind == snapshot.PartText {
			return p.Text
		}
	}
	return ""
}

// toolCalls adds a line for each tool a record calls, failed when its
// result was an error.
func (t *tracer) toolCalls(m snapshot.Message, at time.Time) {
	for _, p := range m.Parts {
		if p.Kind != snapshot.PartToolCall {
			continue
		}
		ok := !t.failed[p.CallID]
		t.add(TraceLine{At: at, Kind: "tool", Detail: p.Tool, OK: &ok})
	}
}

// event adds one lifecycle event a harness recorded (see Recorder).
func (t *tracer) event(raw any) {
	ev, _ := raw.(map[string]any)
	kind := str(ev, "type")
	var at time.Time
	if ms, ok := num(ev["ts_ms"]); ok {
		at = time.UnixMilli(ms).UTC()
	}
	line := TraceLine{At: at, Kind: "event", Detail: kind}
	switch kind {
	case "post_model":
		line = TraceLine{At: at, Kind: "model", Detail: modelDetail(str(ev, "model"), EventUsage(ev).OfCall())}
	case "post_tool":
		ok := ev["ok"] != false && ev["error"] == nil
		line = TraceLine{At: at, Kind: "tool", Detail: str(ev, "tool"), OK: &ok}
	case "pre_compact":
		line.Kind = "compaction"
	}
	t.add(line)
}

func modelDetail(model string, u snapshot.Usage) string {
	d := fmt.Sprintf("%s in=%d", model, u.Input)
	if u.CacheRead != 0 || u.CacheWrite != 0 {
		d += fmt.Sprintf(" cache_read=%d cache_write=%d", u.CacheRead, u.CacheWrite)
	}
	return strings.TrimSpace(d + fmt.Sprintf(" out=%d", u.Output))
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
