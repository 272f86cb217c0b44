package agent

import (
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// ModelOutput is one recorded model call's output: what a mock model
// serves, in order, to repeat a session offline.
type ModelOutput struct {
	Call    int    `json:"call"`
	ID      string `json:"id,omitempty"`
	Model   string `json:"model,omitempty"`
	Content []any  `json:"content"`
	Usage   *struct {
		Input  int64 `json:"input_tokens"`
		Output int64 `json:"output_tokens"`
	} `json:"usage,omitempty"`
}

// Replay yields a document's model outputs in order. Records of one
// response are one call: Claude Code writes a record per content block,
// all with the response's id, sometimes with other records between them.
// Records with no id form a call until the next user or tool record.
func Replay(doc map[string]any) iter.Seq[ModelOutput] {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	events, _ := doc[snapshot.MemberEvents].([]any)
	return func(yield func(ModelOutput) bool) {
		call := 0
		var cur *ModelOutput
		ended := false // a user or tool record came since cur's last part
		for _, raw := range msgs {
			m := ViewMessage(raw)
			switch m.Role {
			case "assistant", "model":
			case "user", "tool", "human", "developer", "system":
				ended = true
				continue
			default: // progress lines, events: not part of the conversation
				continue
			}
			sameCall := cur != nil && (m.UsageKey != "" && m.UsageKey == cur.ID || m.UsageKey == "" && cur.ID == "" && !ended)
			if cur != nil && !sameCall {
				if !yield(*cur) {
					return
				}
				cur = nil
			}
			if cur == nil {
				call++
				cur = &ModelOutput{Call: call, ID: m.UsageKey, Model: m.Model, Content: []any{}}
			}
			ended = false
			if m.Usage != nil {
				cur.Usage = &struct {
					Input  int64 `json:"input_tokens"`
					Output int64 `json:"output_tokens"`
				}{m.Usage.Input, m.Usage.Output}
			}
			for _, p := range m.Parts {
				cur.Content = append(cur.Content, partJSON(p))
			}
		}
		if cur != nil && !yield(*cur) {
			return
		}
		for _, raw := range events { // a recorded harness: post_model events carry the output
			ev, _ := raw.(map[string]any)
			if ev["type"] != "post_model" {
				continue
			}
			call++
			out := ModelOutput{Call: call, Model: str(ev, "model"), Content: []any{ev["output"]}}
			if !yield(out) {
				return
			}
		}
	}
}

func partJSON(p snapshot.Part) any {
	switch p.Kind {
	case snapshot.PartToolCall:
		return map[string]any{"type": "tool_call", "name": p.Tool, "id": p.CallID, "input": p.Input}
	case snapshot.PartThinking:
		return map[string]any{"type": "thinking", "text": p.Text}
	case snapshot.PartText:
		return map[string]any{"type": "text", "text": p.Text}
	}
	return map[string]any{"type": p.Kind, "text": p.Text}
}

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
// a recorded harness, its events.
func Trace(doc map[string]any, a Adapter) ([]TraceLine, TraceStats) {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	events, _ := doc[snapshot.MemberEvents].([]any)
	var lines []TraceLine
	var st TraceStats
	failed := map[string]bool{}
	for _, raw := range msgs {
		for _, p := range ViewMessage(raw).Parts {
			if p.Kind == snapshot.PartToolResult {
				failed[p.CallID] = p.IsError
			}
		}
	}
	var first, last time.Time
	seenModel := map[string]bool{}
	_, totals := snapshot.RunningTotal(msgs, ViewMessage)
	var prev snapshot.Usage
	model := ""
	for _, raw := range msgs {
		st.Events++
		m := ViewMessage(raw)
		t := stamp(m.Time, &first, &last)
		if m.Role == "event" && m.Model != "" {
			model = m.Model
		}
		switch {
		case m.TotalUsage != nil: // Codex: one running total after each model call
			in, out := m.TotalUsage.Input-prev.Input, m.TotalUsage.Output-prev.Output
			prev = *m.TotalUsage
			lines = append(lines, TraceLine{Time: t, Kind: "model", Detail: strings.TrimSpace(fmt.Sprintf("%s in=%d out=%d", model, in, out))})
		case a != nil && a.IsPrompt(raw) || a == nil && m.Role == "user" && len(m.Parts) > 0 && m.Parts[0].Kind == snapshot.PartText:
			st.Turns++
			lines = append(lines, TraceLine{Time: t, Kind: "prompt", Detail: short(m.Parts[0].Text, 80)})
		case isCompaction(raw):
			st.Compactions++
			lines = append(lines, TraceLine{Time: t, Kind: "compaction", Detail: "conversation compacted"})
		case m.Role == "assistant" || m.Role == "model":
			key := m.UsageKey
			if totals == 0 && (key == "" || !seenModel[key]) {
				seenModel[key] = key != ""
				detail := m.Model
				if m.Usage != nil {
					detail = strings.TrimSpace(fmt.Sprintf("%s in=%d out=%d", m.Model, m.Usage.Input, m.Usage.Output))
				}
				if key != "" || m.Usage != nil || len(lines) == 0 || lines[len(lines)-1].Kind != "model" {
					lines = append(lines, TraceLine{Time: t, Kind: "model", Detail: detail})
				}
			}
			for _, p := range m.Parts {
				if p.Kind == snapshot.PartToolCall {
					st.ToolCalls++
					ok := !failed[p.CallID]
					if !ok {
						st.ToolFailures++
					}
					lines = append(lines, TraceLine{Time: t, Kind: "tool", Detail: p.Tool, OK: &ok})
				}
			}
		}
	}
	stats := snapshot.ComputeStats(map[string]any{snapshot.MemberMessages: msgs}, ViewMessage)
	st.ModelCalls, st.InputTokens, st.OutputTokens = stats.ModelCalls, stats.InputTokens, stats.OutputTokens
	for _, raw := range events {
		ev, _ := raw.(map[string]any)
		st.Events++
		kind := str(ev, "type")
		t := ""
		if ms, ok := num(ev["ts_ms"]); ok {
			when := time.UnixMilli(ms).UTC()
			t = stamp(when.Format(time.RFC3339Nano), &first, &last)
		}
		line := TraceLine{Time: t, Kind: "event", Detail: kind}
		switch kind {
		case "post_model":
			st.ModelCalls++
			in, _ := num(ev["input_tokens"])
			out, _ := num(ev["output_tokens"])
			st.InputTokens += in
			st.OutputTokens += out
			line = TraceLine{Time: t, Kind: "model", Detail: strings.TrimSpace(fmt.Sprintf("%s in=%d out=%d", str(ev, "model"), in, out))}
		case "post_tool":
			st.ToolCalls++
			ok := ev["ok"] != false && ev["error"] == nil
			if !ok {
				st.ToolFailures++
			}
			line = TraceLine{Time: t, Kind: "tool", Detail: str(ev, "tool"), OK: &ok}
		case "pre_compact":
			st.Compactions++
			line.Kind = "compaction"
		case "start":
			st.Turns++
		}
		lines = append(lines, line)
	}
	if !first.IsZero() {
		st.Duration = last.Sub(first)
	}
	return lines, st
}

// stamp parses a record's time, widens [first, last], and returns it
// shortened for the timeline.
func stamp(s string, first, last *time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	if first.IsZero() || t.Before(*first) {
		*first = t
	}
	if t.After(*last) {
		*last = t
	}
	return t.UTC().Format("15:04:05.000")
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Restore writes a snapshot back as the agent's own transcript files:
// file name ("" for the main transcript) → lines, each JSON-equal to the
// line that was read.
func Restore(doc map[string]any) (map[string][][]byte, error) {
	rest := map[string]any{}
	for k, v := range doc {
		rest[k] = v
	}
	layout, err := LayoutFrom(rest)
	if err != nil {
		return nil, err
	}
	if len(layout.Files) == 0 {
		return nil, fmt.Errorf("the snapshot was not recorded from an agent's transcript (it has no transcript layout)")
	}
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	byFile, err := layout.Split(msgs)
	if err != nil {
		return nil, err
	}
	out := map[string][][]byte{}
	for _, f := range layout.Files {
		lines := make([][]byte, 0, len(byFile[f.Name]))
		for _, e := range byFile[f.Name] {
			b, err := LineOf(e)
			if err != nil {
				return nil, err
			}
			lines = append(lines, b)
		}
		out[f.Name] = lines
	}
	return out, nil
}
