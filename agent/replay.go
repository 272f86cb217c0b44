package agent

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// ModelOutput is one recorded model call's output: what a mock model
// serves, in order, to repeat a session offline.
type ModelOutput struct {
	Call    int          `json:"call"`
	ID      string       `json:"id,omitempty"`
	Model   string       `json:"model,omitempty"`
	Content []any        `json:"content"`
	Usage   *OutputUsage `json:"usage,omitempty"`
}

// OutputUsage is the tokens a model call recorded, each kind separately.
type OutputUsage struct {
	Input      int64 `json:"input_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens,omitempty"`
	CacheWrite int64 `json:"cache_creation_input_tokens,omitempty"`
	Output     int64 `json:"output_tokens"`
}

func outputUsage(u snapshot.Usage) *OutputUsage {
	return &OutputUsage{u.Input, u.CacheRead, u.CacheWrite, u.Output}
}

// Replay yields a document's model outputs in the order they were made:
// the calls of snapshot.ModelCalls (records of one response are one
// call, with the response's last usage), ordered by the time of their
// first record, so that a subagent's calls fall between the main
// session's where they happened.
func Replay(doc map[string]any) iter.Seq[ModelOutput] {
	return Read(doc, nil).Replay()
}

// Replay is the session's model outputs (see the function Replay).
func (r *Session) Replay() iter.Seq[ModelOutput] {
	events := r.Events
	return func(yield func(ModelOutput) bool) {
		calls := slices.Clone(r.Calls)
		sort.SliceStable(calls, func(i, j int) bool { return before(calls[i].Time, calls[j].Time) })
		n := 0
		for _, c := range calls {
			for _, out := range r.outputs(c) {
				n++
				out.Call = n
				if !yield(out) {
					return
				}
			}
		}
		for _, raw := range events { // a recorded harness: post_model events carry the output
			ev, _ := raw.(map[string]any)
			if ev["type"] != "post_model" {
				continue
			}
			n++
			out := ModelOutput{Call: n, Model: str(ev, "model"), Content: []any{ev["output"]}}
			if u := EventUsage(ev); u != (snapshot.Usage{}) {
				out.Usage = outputUsage(u)
			}
			if !yield(out) {
				return
			}
		}
	}
}

// outputs are what call c gave: one output per response (see
// responses), with its usage when recorded.
func (r *Session) outputs(c snapshot.Call) []ModelOutput {
	var outs []ModelOutput
	for _, one := range responses(c, func(i int) snapshot.Message { return r.Views[i] }) {
		out := ModelOutput{ID: one.ID, Model: one.Model, Content: []any{}}
		if !one.Estimated {
			out.Usage = outputUsage(one.Usage)
		}
		for _, i := range one.Records {
			out.Content = append(out.Content, partsJSON(r.Views[i].Parts)...)
		}
		outs = append(outs, out)
	}
	return outs
}

// responses splits the calls of a run known from its totals (Count
// above 1) into one per response among its records, by the response's
// key, each marked as having no usage of its own (the run's is not known
// call by call); any other call is itself.
func responses(c snapshot.Call, view func(i int) snapshot.Message) []snapshot.Call {
	if c.Count <= 1 {
		return []snapshot.Call{c}
	}
	var out []snapshot.Call
	key := map[string]int{}
	for _, i := range c.Records {
		v := view(i)
		if v.Role != "assistant" && v.Role != "model" || len(v.Parts) == 0 {
			continue
		}
		k, seen := key[v.UsageKey]
		if !seen || v.UsageKey == "" {
			k = len(out)
			key[v.UsageKey] = k
			out = append(out, snapshot.Call{ID: v.UsageKey, Model: c.Model, Time: v.Time, Estimated: true, Count: 1})
		}
		out[k].Records = append(out[k].Records, i)
	}
	return out
}

func partsJSON(parts []snapshot.Part) []any {
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		out = append(out, partJSON(p))
	}
	return out
}

// before orders two record times; a time that does not parse sorts as
// equal, keeping the records' order.
func before(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339Nano, a)
	tb, errB := time.Parse(time.RFC3339Nano, b)
	return errA == nil && errB == nil && ta.Before(tb)
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

// Restore writes a snapshot back as the agent's own transcript files:
// file name ("" for the main transcript; name~N for a generation an
// agent rewrote, see Layout.Key) → lines, each JSON-equal to the
// line that was read.
func Restore(doc map[string]any) (map[string][][]byte, error) {
	if st, ok := docStateFrom(doc); ok {
		return restoreDocument(doc, st)
	}
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
	for i := range layout.Files {
		key := layout.Key(i)
		lines := make([][]byte, 0, len(byFile[key]))
		for _, e := range byFile[key] {
			b, err := LineOf(e)
			if err != nil {
				return nil, err
			}
			lines = append(lines, b)
		}
		out[key] = lines
	}
	return out, nil
}

// ModelAPIer is an Adapter whose agent speaks a model API git-snap can
// serve (see package modelapi), so that replay --serve can re-run its
// sessions.
type ModelAPIer interface {
	// ModelAPI names the API: anthropic-messages, openai-responses.
	ModelAPI() string
	// ModelEndpoint says, for people, how to point the agent at a model
	// server at url.
	ModelEndpoint(url string) string
}

// ReplayStep is one recorded model call with what the agent sent just
// before it: the prompt typed since the call before, or the results of
// the tool calls it made.
type ReplayStep struct {
	ModelOutput
	Prompt  string   // the last prompt since the call before; "" for none
	Results []string // the ids of the tool calls whose results came since
}

// ReplaySteps lists a document's model calls in the order the agent made
// them (the order of their first records), each with its inputs: the
// records between its first record and the call before's, and the
// results the call before's own records hold (Gemini CLI keeps a tool
// call's result in the message that made it). a reads the prompts.
func ReplaySteps(doc map[string]any, a Adapter) []ReplayStep {
	msgs := LiveMessages(doc)
	var calls []snapshot.Call
	for _, c := range snapshot.ModelCalls(msgs, ViewMessage) {
		calls = append(calls, responses(c, func(i int) snapshot.Message { return ViewMessage(msgs[i]) })...)
	}
	out := make([]ReplayStep, 0, len(calls))
	from := 0
	var answered []string // results kept in the call's own records (Gemini CLI's toolCalls[].result)
	for n, c := range calls {
		step := ReplayStep{ModelOutput: ModelOutput{Call: n + 1, ID: c.ID, Model: c.Model, Content: []any{}}}
		if !c.Estimated {
			step.Usage = outputUsage(c.Usage)
		}
		step.Results = answered
		first := c.Records[0]
		step.addInputs(msgs, from, first, a)
		answered = step.addOutputs(msgs, c.Records)
		out = append(out, step)
		from = first + 1
	}
	return out
}

// addInputs reads what the agent sent before the step's call, the
// records msgs[from:first] since the call before's: the last prompt (a
// reads which records are prompts; none when a is nil) and the results
// of tool calls. An Unchanged record is one a sparse load skipped: there
// is nothing in it to read.
func (s *ReplayStep) addInputs(msgs []any, from, first int, a Adapter) {
	for i := from; i < first; i++ {
		if _, skip := msgs[i].(snapshot.Unchanged); skip {
			continue
		}
		m := ViewMessage(msgs[i])
		if a != nil && a.IsPrompt(msgs[i]) {
			s.Prompt = promptText(m)
		}
		for _, p := range m.Parts {
			if p.Kind == snapshot.PartToolResult {
				s.Results = addCallID(s.Results, p.CallID)
			}
		}
	}
}

// addOutputs adds the parts of the call's own records (msgs[records]) to
// the step's content, and returns the results of tool calls they hold
// instead: Gemini CLI keeps a tool call's result in the message that
// made it, and the agent sent it before the next call, not this one.
func (s *ReplayStep) addOutputs(msgs []any, records []int) (answered []string) {
	for _, i := range records {
		for _, p := range ViewMessage(msgs[i]).Parts {
			if p.Kind == snapshot.PartToolResult {
				answered = addCallID(answered, p.CallID)
				continue
			}
			s.Content = append(s.Content, partJSON(p))
		}
	}
	return answered
}

// addCallID adds a tool call's id to ids once; a result without one
// names no call to answer.
func addCallID(ids []string, id string) []string {
	if id == "" || slices.Contains(ids, id) {
		return ids
	}
	return append(ids, id)
}
