package modelapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// responses is OpenAI's Responses API, POST /v1/responses. Codex uses it
// with stream: true and gets server-sent events: response.created, then
// response.output_item.added and .done for each output item, then
// response.completed with the usage.
type responses struct{}

func init() { register(responses{}) }

func (responses) Name() string  { return "openai-responses" }
func (responses) Title() string { return "OpenAI Responses" }

func (responses) Handles(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == "/v1/responses"
}

// responsesRequest holds the fields of a Responses request that the
// server reads.
type responsesRequest struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Input  json.RawMessage   `json:"input"`
	Tools  []json.RawMessage `json:"tools"`
}

// responsesItem is an input item.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

func (responses) Parse(body []byte) (Request, error) {
	var in responsesRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("not a Responses request: %v", err)
	}
	req := Request{Model: in.Model, Stream: in.Stream, Side: len(in.Tools) == 0}
	for _, raw := range in.Tools {
		var t struct{ Type, Name string }
		if json.Unmarshal(raw, &t) == nil && t.Name != "" {
			req.Tools = append(req.Tools, Tool{Name: t.Name, Custom: t.Type == "custom"})
		}
	}
	var text string
	if json.Unmarshal(in.Input, &text) == nil { // input may be one text
		req.Items = []Item{{Role: "user", Kind: ItemText, Text: text}}
		return req, nil
	}
	var items []responsesItem
	if err := json.Unmarshal(in.Input, &items); err != nil {
		return req, fmt.Errorf("input is neither text nor a list of items")
	}
	for _, it := range items {
		switch it.Type {
		case "message", "":
			for _, t := range contentTexts(it.Content) {
				req.Items = append(req.Items, Item{Role: it.Role, Kind: ItemText, Text: t})
			}
		case "function_call":
			req.Items = append(req.Items, Item{Role: "assistant", Kind: ItemToolCall, CallID: it.CallID, Name: it.Name, Text: it.Arguments})
		case "custom_tool_call":
			req.Items = append(req.Items, Item{Role: "assistant", Kind: ItemToolCall, CallID: it.CallID, Name: it.Name, Text: it.Input})
		case "function_call_output", "custom_tool_call_output":
			out := contentTexts(it.Output)
			text := ""
			if len(out) > 0 {
				text = out[0]
			}
			req.Items = append(req.Items, Item{Role: "tool", Kind: ItemToolResult, CallID: it.CallID, Text: text})
		}
	}
	return req, nil
}

// contentTexts returns the text of a content that is either text or a
// list of parts with text.
func contentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct{ Text string }
	_ = json.Unmarshal(raw, &parts) // another shape reads as no text
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return out
}

var responsesIDs atomic.Int64

// responsesOutput returns a reply's output items.
func responsesOutput(req *Request, rep Reply, id string) []map[string]any {
	var out []map[string]any
	if rep.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}})
	}
	for i, c := range rep.ToolCalls {
		call := c.ID
		if call == "" {
			call = fmt.Sprintf("call_%s_%d", id, i)
		}
		if t, _ := req.Tool(c.Name); t.Custom { // free text input, as apply_patch takes it
			out = append(out, map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%s_%d", id, i), "call_id": call,
				"name": c.Name, "input": textInput(c.Input), "status": "completed"})
			continue
		}
		out = append(out, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%d", id, i), "call_id": call,
			"name": c.Name, "arguments": textInput(c.Input), "status": "completed"})
	}
	return out
}

// textInput returns a tool call's input as OpenAI sends it: a string
// holding JSON arguments or free text.
func textInput(in any) string {
	switch v := in.(type) {
	case nil:
		return "{}"
	case string:
		return v
	}
	data, err := json.Marshal(in)
	if err != nil {
		return "{}"
	}
	return string(data)
}

// responsesUsage writes the usage as OpenAI does: input tokens include
// the cached tokens and the cache writes, which are also reported
// separately in the details.
func responsesUsage(u Usage) map[string]any {
	details := map[string]any{"cached_tokens": u.CacheRead}
	if u.CacheWrite != 0 {
		details["cache_write_tokens"] = u.CacheWrite
	}
	in := u.Input + u.CacheRead + u.CacheWrite
	return map[string]any{"input_tokens": in, "input_tokens_details": details, "output_tokens": u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + u.Output}
}

func (responses) Write(w http.ResponseWriter, req *Request, rep Reply) error {
	id := rep.ID
	if id == "" {
		id = fmt.Sprintf("resp_gitsnap_%d", responsesIDs.Add(1))
	}
	output := responsesOutput(req, rep, id)
	resp := map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(), "model": rep.Model,
		"status": "completed", "output": output, "usage": responsesUsage(rep.Usage)}
	if !req.Stream {
		return writeJSON(w, http.StatusOK, resp)
	}
	ev, err := newEvents(w)
	if err != nil {
		return err
	}
	seq := 0
	send := func(kind string, v map[string]any) {
		v["type"], v["sequence_number"] = kind, seq
		seq++
		ev.send(kind, v)
	}
	started := map[string]any{"id": id, "object": "response", "created_at": resp["created_at"], "model": rep.Model, "status": "in_progress", "output": []any{}}
	send("response.created", map[string]any{"response": started})
	for i, item := range output {
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		send("response.output_item.added", map[string]any{"output_index": i, "item": added})
		if item["type"] == "message" {
			send("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "delta": rep.Text})
			send("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "text": rep.Text})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	send("response.completed", map[string]any{"response": resp})
	return ev.err
}

func (responses) WriteError(w http.ResponseWriter, status int, msg string) {
	kind := "invalid_request_error"
	if status >= 500 {
		kind = "server_error"
	}
	w.Header().Set("x-should-retry", "false") // as for anthropic: a retry would be refused again
	_ = writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": kind, "param": nil, "code": nil}})
}
