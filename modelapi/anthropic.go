package modelapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// anthropic is Anthropic's Messages API, POST /v1/messages, which Claude
// Code uses. Claude Code adds ?beta=true and asks for a stream of
// server-sent events: message_start, content_block_start/delta/stop per
// block, message_delta with the stop reason and output tokens, then
// message_stop.
type anthropic struct{}

func init() { register(anthropic{}) }

func (anthropic) Name() string  { return "anthropic-messages" }
func (anthropic) Title() string { return "Anthropic Messages" }

func (anthropic) Handles(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == "/v1/messages"
}

// anthropicRequest holds the fields of a Messages request that the
// server reads.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"tools"`
}

// anthropicBlock is a content block of a message.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

func (anthropic) Parse(body []byte) (Request, error) {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("not a Messages request: %v", err)
	}
	req := Request{Model: in.Model, Stream: in.Stream, Side: len(in.Tools) == 0}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name})
	}
	for _, m := range in.Messages {
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			req.Items = append(req.Items, Item{Role: m.Role, Kind: ItemText, Text: text})
			continue
		}
		var blocks []anthropicBlock
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return req, fmt.Errorf("a %s message's content is neither text nor blocks", m.Role)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				req.Items = append(req.Items, Item{Role: m.Role, Kind: ItemText, Text: b.Text})
			case "tool_use":
				req.Items = append(req.Items, Item{Role: m.Role, Kind: ItemToolCall, CallID: b.ID, Name: b.Name, Text: string(b.Input)})
			case "tool_result":
				req.Items = append(req.Items, Item{Role: m.Role, Kind: ItemToolResult, CallID: b.ToolUseID, Text: blockText(b.Content)})
			}
		}
	}
	return req, nil
}

// blockText returns a tool result's content: its text, or the text of
// its blocks.
func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []anthropicBlock
	_ = json.Unmarshal(raw, &blocks) // another shape reads as no text
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

var anthropicIDs atomic.Int64

// anthropicContent returns a reply's content blocks.
func anthropicContent(rep Reply) ([]map[string]any, error) {
	var out []map[string]any
	if rep.Text != "" {
		out = append(out, map[string]any{"type": "text", "text": rep.Text})
	}
	for _, c := range rep.ToolCalls {
		input, err := objectInput(c.Input)
		if err != nil {
			return nil, fmt.Errorf("tool call %s: %w", c.ID, err)
		}
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_gitsnap_%d", anthropicIDs.Add(1))
		}
		out = append(out, map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": input})
	}
	return out, nil
}

// objectInput returns a tool call's input as a JSON object, the form
// Anthropic's tool_use blocks require.
func objectInput(in any) (json.RawMessage, error) {
	switch v := in.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case string:
		if !json.Valid([]byte(v)) {
			return json.Marshal(map[string]any{"input": v}) // free text, kept whole
		}
		return json.RawMessage(v), nil
	}
	return json.Marshal(in)
}

func (a anthropic) Write(w http.ResponseWriter, req *Request, rep Reply) error {
	content, err := anthropicContent(rep)
	if err != nil {
		a.WriteError(w, http.StatusInternalServerError, "git-snap model server: "+err.Error())
		return err
	}
	id := rep.ID
	if id == "" {
		id = fmt.Sprintf("msg_gitsnap_%d", anthropicIDs.Add(1))
	}
	stop := "end_turn"
	if len(rep.ToolCalls) > 0 {
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": rep.Usage.Input, "cache_read_input_tokens": rep.Usage.CacheRead,
		"cache_creation_input_tokens": rep.Usage.CacheWrite, "output_tokens": rep.Usage.Output}
	msg := map[string]any{"id": id, "type": "message", "role": "assistant", "model": rep.Model, "content": content,
		"stop_reason": stop, "stop_sequence": nil, "usage": usage}
	if !req.Stream {
		return writeJSON(w, http.StatusOK, msg)
	}
	ev, err := newEvents(w)
	if err != nil {
		return err
	}
	// Send usage in the order the API does: input usage first, output
	// tokens with the stop reason.
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	start["usage"] = map[string]any{"input_tokens": rep.Usage.Input, "cache_read_input_tokens": rep.Usage.CacheRead,
		"cache_creation_input_tokens": rep.Usage.CacheWrite, "output_tokens": min(rep.Usage.Output, 1)}
	ev.send("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range content {
		switch b["type"] {
		case "text":
			ev.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			ev.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			ev.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			ev.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b["input"].(json.RawMessage))}})
		}
		ev.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": rep.Usage.Output}})
	ev.send("message_stop", map[string]any{"type": "message_stop"})
	return ev.err
}

func (anthropic) WriteError(w http.ResponseWriter, status int, msg string) {
	kind := "invalid_request_error"
	switch status {
	case http.StatusNotFound:
		kind = "not_found_error"
	case http.StatusInternalServerError:
		kind = "api_error"
	}
	// The SDKs retry unless the server says the error is final, and a
	// refused request would only be refused again.
	w.Header().Set("x-should-retry", "false")
	_ = writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}})
}
