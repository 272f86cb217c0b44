package agent

import (
	"fmt"
	"iter"

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

// OutputUsage is the tokens a model call recorded.
type OutputUsage struct {
	Input  int64 `json:"input_tokens"`
	Output int64 `json:"output_tokens"`
}

// Replay yields a document's model outputs in order. Records of one
// response are one call: Claude Code writes a record per content block,
// all with the response's id, sometimes with other records between them.
// Records with no id form a call until the next user or tool record.
func Replay(doc map[string]any) iter.Seq[ModelOutput] {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	events, _ := doc[snapshot.MemberEvents].([]any)
	return func(yield func(ModelOutput) bool) {
		var c calls
		for _, raw := range msgs {
			if done := c.add(ViewMessage(raw)); done != nil && !yield(*done) {
				return
			}
		}
		if c.cur != nil && !yield(*c.cur) {
			return
		}
		for _, raw := range events { // a recorded harness: post_model events carry the output
			ev, _ := raw.(map[string]any)
			if ev["type"] != "post_model" {
				continue
			}
			c.n++
			if !yield(ModelOutput{Call: c.n, Model: str(ev, "model"), Content: []any{ev["output"]}}) {
				return
			}
		}
	}
}

// calls groups a conversation's records into model calls.
type calls struct {
	n     int          // calls so far
	cur   *ModelOutput // the call being read
	ended bool         // a user or tool record came since cur's last part
}

// add reads one record; it returns the call the record shows has ended.
func (c *calls) add(m snapshot.Message) *ModelOutput {
	switch m.Role {
	case "assistant", "model":
	case "user", "tool", "human", "developer", "system":
		c.ended = true
		return nil
	default: // progress lines, events: not part of the conversation
		return nil
	}
	var done *ModelOutput
	sameCall := c.cur != nil && (m.UsageKey != "" && m.UsageKey == c.cur.ID || m.UsageKey == "" && c.cur.ID == "" && !c.ended)
	if c.cur != nil && !sameCall {
		done, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.n++
		c.cur = &ModelOutput{Call: c.n, ID: m.UsageKey, Model: m.Model, Content: []any{}}
	}
	c.ended = false
	if m.Usage != nil {
		c.cur.Usage = &OutputUsage{m.Usage.Input, m.Usage.Output}
	}
	for _, p := range m.Parts {
		c.cur.Content = append(c.cur.Content, partJSON(p))
	}
	return done
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
