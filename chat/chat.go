// Package chat writes a stored session as chat-messages JSONL, the
// format used by training and evaluation sets of agent trajectories
// (OpenAI's chat format). Each line holds one conversation as
// {"messages": [...]}, and each message has a role and content. An
// assistant message's tool calls go in tool_calls (function name, and
// arguments as a JSON string) and its reasoning in reasoning_content.
// Each tool result is a "tool" message that names its call. The first
// line holds the session's own conversation, followed by one line per
// subagent.
//
// The messages come from the session's ATIF trajectory (package atif):
// the same steps, calls and results. The details the chat format leaves
// out (times, ids, tokens, models, the original records) are in the
// trajectory.
package chat

import (
	"bytes"
	"fmt"

	"github.com/git-snap/git-snap/atif"
	"github.com/git-snap/git-snap/snapshot"
)

// Write returns doc as chat-messages JSONL (see the package comment).
func Write(doc map[string]any, o atif.Options) ([]byte, error) {
	t, err := atif.Export(doc, o)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	convs := []map[string]any{t}
	subs, _ := t["subagent_trajectories"].([]any)
	for _, s := range subs {
		if sm, ok := s.(map[string]any); ok {
			convs = append(convs, sm)
		}
	}
	for _, c := range convs {
		msgs, err := Messages(c)
		if err != nil {
			return nil, err
		}
		if len(msgs) == 0 {
			continue
		}
		line, err := snapshot.Marshal(map[string]any{"messages": msgs})
		if err != nil {
			return nil, fmt.Errorf("chat: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// Messages converts the steps of one ATIF trajectory to chat messages.
func Messages(trajectory map[string]any) ([]any, error) {
	steps, _ := trajectory["steps"].([]any)
	var out []any
	for i, s := range steps {
		st, ok := s.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("chat: step %d is not an object", i+1)
		}
		text := atif.ContentText(st["message"])
		switch st["source"] {
		case "user", "system":
			if text != "" {
				out = append(out, map[string]any{"role": st["source"], "content": text})
			}
		case "agent":
			m, err := assistant(st, text)
			if err != nil {
				return nil, fmt.Errorf("chat: step %d: %w", i+1, err)
			}
			if m != nil {
				out = append(out, m)
			}
		}
		obs, _ := st["observation"].(map[string]any)
		results, _ := obs["results"].([]any)
		for _, r := range results {
			ro, _ := r.(map[string]any)
			m := map[string]any{"role": "tool", "content": atif.ContentText(ro["content"])}
			if id, ok := ro["source_call_id"].(string); ok {
				m["tool_call_id"] = id
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// assistant returns an agent step's message with its text, reasoning and
// tool calls, or nil when the step has none of them.
func assistant(st map[string]any, text string) (map[string]any, error) {
	m := map[string]any{"role": "assistant", "content": text}
	if r, ok := st["reasoning_content"].(string); ok && r != "" {
		m["reasoning_content"] = r
	}
	calls, _ := st["tool_calls"].([]any)
	var tc []any
	for _, c := range calls {
		co, _ := c.(map[string]any)
		args, err := snapshot.Marshal(co["arguments"])
		if err != nil {
			return nil, err
		}
		tc = append(tc, map[string]any{"id": co["tool_call_id"], "type": "function",
			"function": map[string]any{"name": co["function_name"], "arguments": string(args)}})
	}
	if len(tc) > 0 {
		m["tool_calls"] = tc
		if text == "" {
			m["content"] = nil
		}
	}
	if text == "" && len(tc) == 0 && m["reasoning_content"] == nil {
		return nil, nil
	}
	return m, nil
}
