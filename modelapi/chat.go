package modelapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// chat is OpenAI's Chat Completions API, POST /v1/chat/completions.
// GitHub Copilot CLI uses it with a provider of its own (BYOK), and
// OpenCode with a provider of the @ai-sdk/openai-compatible kind. Both
// set stream: true and get server-sent events of chat.completion.chunk:
// the text and each tool call as deltas, a chunk with the finish reason,
// then (when stream_options.include_usage is set) one with no choice and
// the usage, and finally data: [DONE].
//
// Cache writes are reported in prompt_tokens_details.cache_write_tokens.
// Copilot CLI reads that field but @ai-sdk/openai-compatible does not, so
// OpenCode counts cache writes as input.
type chat struct{}

func init() { register(chat{}) }

func (chat) Name() string  { return "openai-chat" }
func (chat) Title() string { return "OpenAI Chat Completions" }

func (chat) Handles(r *http.Request) bool {
	return r.Method == http.MethodPost && (r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/chat/completions")
}

// chatRequest holds the fields of a Chat Completions request that the
// server reads.
type chatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (chat) Parse(body []byte) (Request, error) {
	var in chatRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("not a Chat Completions request: %v", err)
	}
	req := Request{Model: in.Model, Stream: in.Stream, usage: !in.Stream || in.StreamOptions.IncludeUsage}
	for _, t := range in.Tools {
		if t.Function.Name != "" {
			req.Tools = append(req.Tools, Tool{Name: t.Function.Name})
		}
	}
	req.Side = len(req.Tools) == 0
	if in.ResponseFormat.Type == "json_schema" || in.ResponseFormat.Type == "json_object" {
		var s any
		if json.Unmarshal(in.ResponseFormat.JSONSchema.Schema, &s) != nil || s == nil {
			s = map[string]any{}
		}
		req.Schema = s
	}
	for _, m := range in.Messages {
		if m.Role == "tool" {
			text := ""
			if out := contentTexts(m.Content); len(out) > 0 {
				text = out[0]
			}
			req.Items = append(req.Items, Item{Role: "tool", Kind: ItemToolResult, CallID: m.ToolCallID, Text: text})
			continue
		}
		for _, t := range contentTexts(m.Content) {
			if t == "" && m.Role == "assistant" {
				continue // content null beside tool calls
			}
			req.Items = append(req.Items, Item{Role: m.Role, Kind: ItemText, Text: t})
		}
		for _, c := range m.ToolCalls {
			req.Items = append(req.Items, Item{Role: "assistant", Kind: ItemToolCall, CallID: c.ID, Name: c.Function.Name, Text: c.Function.Arguments})
		}
	}
	return req, nil
}

// chatUsage writes the usage as OpenAI does: prompt tokens include the
// cached tokens and the cache writes, which are also reported separately
// in the details.
func chatUsage(u Usage) map[string]any {
	details := map[string]any{"cached_tokens": u.CacheRead}
	if u.CacheWrite != 0 {
		details["cache_write_tokens"] = u.CacheWrite
	}
	in := u.Input + u.CacheRead + u.CacheWrite
	return map[string]any{"prompt_tokens": in, "prompt_tokens_details": details, "completion_tokens": u.Output,
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + u.Output}
}

var chatIDs atomic.Int64

// chatToolCalls returns a reply's tool calls in the form a message
// carries them.
func chatToolCalls(rep Reply, id string) []any {
	var out []any
	for i, c := range rep.ToolCalls {
		call := c.ID
		if call == "" {
			call = fmt.Sprintf("call_%s_%d", id, i)
		}
		out = append(out, map[string]any{"index": i, "id": call, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": textInput(c.Input)}})
	}
	return out
}

func (chat) Write(w http.ResponseWriter, req *Request, rep Reply) error {
	id := rep.ID
	if id == "" {
		id = fmt.Sprintf("chatcmpl-gitsnap-%d", chatIDs.Add(1))
	}
	created := time.Now().Unix()
	finish := "stop"
	calls := chatToolCalls(rep, id)
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": rep.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		return writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": rep.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": chatUsage(rep.Usage)})
	}
	ev, err := newEvents(w)
	if err != nil {
		return err
	}
	chunk := func(choices []any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": rep.Model, "choices": choices}
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}
	}
	ev.send("", chunk(delta(map[string]any{"role": "assistant", "content": ""}, nil)))
	if rep.Text != "" {
		ev.send("", chunk(delta(map[string]any{"content": rep.Text}, nil)))
	}
	for _, c := range calls {
		ev.send("", chunk(delta(map[string]any{"tool_calls": []any{c}}, nil)))
	}
	ev.send("", chunk(delta(map[string]any{}, finish)))
	if req.usage {
		last := chunk([]any{})
		last["usage"] = chatUsage(rep.Usage)
		ev.send("", last)
	}
	if ev.err == nil {
		_, ev.err = fmt.Fprint(w, "data: [DONE]\n\n")
		ev.f.Flush()
	}
	return ev.err
}

func (chat) WriteError(w http.ResponseWriter, status int, msg string) {
	kind := "invalid_request_error"
	if status >= 500 {
		kind = "server_error"
	}
	w.Header().Set("x-should-retry", "false")
	_ = writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": kind, "param": nil, "code": nil}})
}
