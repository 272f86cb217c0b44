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
// reads and writes are apart.
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
// Trace): records in Order, then a harness's events.
func (r *Session) Trace() ([]TraceLine, TraceStats) { return r.trace(false) }

// trace reads the session as Trace does; count keeps no lines, for the
// numbers alone.
func (r *Session) trace(count bool) ([]TraceLine, TraceStats) {
	facts := r.factsOf()
	t := newTracer(r, facts)
	t.count = count
	for _, i := range orderOf(facts) {
		t.message(i, &facts[i])
	}
	for _, raw := range r.Events {
		t.event(raw)
	}
	if !t.first.IsZero() {
		t.st.First, t.st.Last = t.first, t.last
		t.st.Duration = t.last.Sub(t.first)
	}
	return t.lines, t.st
}

// tracer is what Trace knows while it reads a session.
type tracer struct {
	a           Adapter
	lines       []TraceLine
	st          TraceStats
	first, last time.Time             // the span of the records' times
	failed      map[string]bool       // tool call id → its result was an error
	calls       map[int]snapshot.Call // model calls by their first record
	command     int                   // the line of a slash command not yet answered, or -1
	// prompt is the text and the record kind of the last prompt while no
	// model call has answered it: the same text again, in a record of
	// another kind, before an answer is one prompt written twice (Codex
	// writes a user_message event and, from 0.169, an item_completed one).
	count      bool   // keep no lines
	prompt     uint64 // fact.promptKey
	promptKind string
	promptOpen bool
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

func newTracer(r *Session, facts []fact) *tracer {
	t := &tracer{a: r.Agent, failed: map[string]bool{}, calls: map[int]snapshot.Call{}, command: -1, st: TraceStats{ByModel: map[string]snapshot.Usage{}}}
	for _, f := range facts {
		for _, p := range f.parts {
			if p.result {
				t.failed[p.callID] = p.failed
			}
		}
	}
	for _, c := range r.Calls {
		t.calls[c.Records[0]] = c
		t.st.ModelCalls++
		t.st.InputTokens += c.Usage.Input
		t.st.CacheReadTokens += c.Usage.CacheRead
		t.st.CacheWriteTokens += c.Usage.CacheWrite
		t.st.OutputTokens += c.Usage.Output
		u := t.st.ByModel[c.Model]
		u.Add(c.Usage)
		t.st.ByModel[c.Model] = u
	}
	return t
}

func (t *tracer) add(l TraceLine) {
	if t.count {
		return
	}
	if !l.At.IsZero() {
		l.Time = l.At.UTC().Format("15:04:05.000") // short, for the timeline
	}
	t.lines = append(t.lines, l)
}

// message adds what one transcript record shows.
func (t *tracer) message(i int, f *fact) {
	t.st.Events++
	at := t.stampAt(f.at, f.timed)
	if c, ok := t.calls[i]; ok {
		if f.hasParts {
			t.answered()
			t.promptOpen = false
		}
		t.add(TraceLine{At: at, Kind: "model", Detail: modelDetail(c.Model, c.Usage)})
	}
	for _, p := range f.parts {
		if p.result {
			t.st.Messages++
		}
	}
	switch {
	case f.command:
		t.command = len(t.lines)
		t.add(TraceLine{At: at, Kind: "command", Detail: f.said.text})
	case f.prompt:
		if t.promptOpen && f.said.key == t.prompt && f.said.kind != t.promptKind {
			return // written twice
		}
		t.command, t.prompt, t.promptKind, t.promptOpen = -1, f.said.key, f.said.kind, true
		t.st.Turns++
		t.st.Messages++
		t.add(TraceLine{At: at, Kind: "prompt", Detail: f.said.text})
	case f.compaction:
		t.st.Compactions++
		t.add(TraceLine{At: at, Kind: "compaction", Detail: "conversation compacted"})
	case (f.role == "assistant" || f.role == "model") && !f.hasParts:
		// a subagent's response mirrored into its parent's transcript: a
		// call of the subagent's, no answer in the main conversation
	case f.role == "assistant" || f.role == "model":
		t.answered()
		t.promptOpen = false
		if f.answer {
			t.st.Messages++ // an answer
		}
		t.toolCalls(f, at)
	case f.input:
		t.command = -1
	}
}

// answered counts a pending slash command as a turn: the model answers it.
func (t *tracer) answered() {
	if t.command >= 0 {
		t.st.Turns++
		t.st.Messages++
		if !t.count {
			t.lines[t.command].Kind = "prompt"
		}
		t.command = -1
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
func (t *tracer) toolCalls(f *fact, at time.Time) {
	for _, p := range f.parts {
		if p.result {
			continue
		}
		t.st.ToolCalls++
		t.st.Messages++
		ok := !t.failed[p.callID]
		if !ok {
			t.st.ToolFailures++
		}
		t.add(TraceLine{At: at, Kind: "tool", Detail: p.tool, OK: &ok})
	}
}

// event adds one lifecycle event a harness recorded (see Recorder).
func (t *tracer) event(raw any) {
	ev, _ := raw.(map[string]any)
	t.st.Events++
	kind := str(ev, "type")
	var at time.Time
	if ms, ok := num(ev["ts_ms"]); ok {
		at = t.stamp(time.UnixMilli(ms).UTC().Format(time.RFC3339Nano))
	}
	line := TraceLine{At: at, Kind: "event", Detail: kind}
	switch kind {
	case "post_model":
		t.st.ModelCalls++
		u := EventUsage(ev).OfCall()
		t.st.InputTokens += u.Input
		t.st.CacheReadTokens += u.CacheRead
		t.st.CacheWriteTokens += u.CacheWrite
		t.st.OutputTokens += u.Output
		bm := t.st.ByModel[str(ev, "model")]
		bm.Add(u)
		t.st.ByModel[str(ev, "model")] = bm
		line = TraceLine{At: at, Kind: "model", Detail: modelDetail(str(ev, "model"), u)}
	case "post_tool":
		t.st.ToolCalls++
		ok := ev["ok"] != false && ev["error"] == nil
		if !ok {
			t.st.ToolFailures++
		}
		line = TraceLine{At: at, Kind: "tool", Detail: str(ev, "tool"), OK: &ok}
	case "pre_compact":
		t.st.Compactions++
		line.Kind = "compaction"
	case "start":
		t.st.Turns++
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

// stamp parses a record's time and widens the session's span; zero
// when s is no time.
func (t *tracer) stamp(s string) time.Time {
	at, err := time.Parse(time.RFC3339Nano, s)
	return t.stampAt(at, err == nil)
}

// stampAt widens the session's span by a record's time, if it has one
// (ok); it returns the time, zero when none.
func (t *tracer) stampAt(at time.Time, ok bool) time.Time {
	if !ok {
		return time.Time{}
	}
	if t.first.IsZero() || at.Before(t.first) {
		t.first = at
	}
	if at.After(t.last) {
		t.last = at
	}
	return at
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
