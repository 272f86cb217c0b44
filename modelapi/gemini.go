package modelapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/git-snap/git-snap/internal/lazy"
)

// gemini is Google's Gemini API, which Gemini CLI uses. The turns go to
// POST /v1beta/models/MODEL:streamGenerateContent?alt=sse and get
// server-sent events, one GenerateContentResponse each, the last with
// the finish reason and the usage. POST …/MODEL:generateContent returns
// one whole response; Gemini CLI's model router makes one such call per
// prompt, with responseMimeType application/json and a schema. The model
// and whether to stream are in the URL, not the body.
type gemini struct{}

func init() { register(gemini{}) }

func (gemini) Name() string  { return "gemini" }
func (gemini) Title() string { return "Gemini generateContent" }

// geminiPath matches a model call's path and captures the API version,
// the model and the method.
var geminiPath = lazy.Regexp(`^/(v1|v1beta|v1alpha)/models/([^/:]+):(generateContent|streamGenerateContent)$`)

func (gemini) Handles(r *http.Request) bool {
	return r.Method == http.MethodPost && geminiPath().MatchString(r.URL.Path)
}

// FromURL implements urlReader. The model and the method (streamed or
// not) are in the path. ?alt=sse asks for the stream as server-sent
// events; without it the stream is a JSON array.
func (gemini) FromURL(r *http.Request, req *Request) {
	m := geminiPath().FindStringSubmatch(r.URL.Path)
	if m == nil {
		return
	}
	req.Model, req.Stream = m[2], m[3] == "streamGenerateContent"
	req.sse = r.URL.Query().Get("alt") == "sse"
}

// geminiPart is a part of a content: text, a function call or its
// response.
type geminiPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiRequest holds the fields of a generateContent request that the
// server reads.
type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

// bareCallID returns a call id as the model gave it. Gemini CLI sends it
// back prefixed with the tool's name and "__" (run_shell_command__call_1).
func bareCallID(id, name string) string {
	if name != "" {
		if rest, ok := strings.CutPrefix(id, name+"__"); ok && rest != "" {
			return rest
		}
	}
	return id
}

func (gemini) Parse(body []byte) (Request, error) {
	var in geminiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("not a generateContent request: %v", err)
	}
	req := Request{}
	for _, t := range in.Tools {
		for _, f := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, Tool{Name: f.Name})
		}
	}
	req.Side = len(req.Tools) == 0
	if in.GenerationConfig.ResponseMimeType == "application/json" {
		schema := in.GenerationConfig.ResponseJSONSchema
		if len(schema) == 0 {
			schema = in.GenerationConfig.ResponseSchema
		}
		var s any
		if json.Unmarshal(schema, &s) != nil || s == nil {
			s = map[string]any{}
		}
		req.Schema = s
	}
	for _, c := range in.Contents {
		role := c.Role
		if role == "model" {
			role = "assistant"
		}
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				req.Items = append(req.Items, Item{Role: "assistant", Kind: ItemToolCall, Name: p.FunctionCall.Name,
					CallID: bareCallID(p.FunctionCall.ID, p.FunctionCall.Name), Text: string(p.FunctionCall.Args)})
			case p.FunctionResponse != nil:
				req.Items = append(req.Items, Item{Role: "tool", Kind: ItemToolResult, Name: p.FunctionResponse.Name,
					CallID: bareCallID(p.FunctionResponse.ID, p.FunctionResponse.Name), Text: geminiOutput(p.FunctionResponse.Response)})
			case p.Text != nil && !p.Thought:
				req.Items = append(req.Items, Item{Role: role, Kind: ItemText, Text: *p.Text})
			}
		}
	}
	return req, nil
}

// geminiOutput returns a function response's output: the text of
// {"output": text}, as Gemini CLI sends it, or else the response as JSON.
func geminiOutput(raw json.RawMessage) string {
	var r struct {
		Output *string `json:"output"`
	}
	if json.Unmarshal(raw, &r) == nil && r.Output != nil {
		return *r.Output
	}
	return string(raw)
}

// Said implements usageSayer. Gemini's usage has no field for cache
// writes (its implicit cache bills nothing separately for them), so they
// are sent as uncached input.
func (gemini) Said(u Usage) Usage {
	return Usage{Input: u.Input + u.CacheWrite, CacheRead: u.CacheRead, Output: u.Output}
}

// geminiUsage writes the usage as Gemini does: the prompt token count
// includes the cached tokens, which are also reported separately.
func geminiUsage(u Usage) map[string]any {
	u = gemini{}.Said(u)
	in := u.Input + u.CacheRead
	m := map[string]any{"promptTokenCount": in, "candidatesTokenCount": u.Output, "totalTokenCount": in + u.Output}
	if u.CacheRead != 0 {
		m["cachedContentTokenCount"] = u.CacheRead
	}
	return m
}

var geminiIDs atomic.Int64

// geminiParts returns a reply's parts: its text, then its function calls.
func geminiParts(rep Reply) ([]any, error) {
	var parts []any
	if rep.Text != "" {
		parts = append(parts, map[string]any{"text": rep.Text})
	}
	for _, c := range rep.ToolCalls {
		args, err := objectInput(c.Input)
		if err != nil {
			return nil, err
		}
		call := map[string]any{"name": c.Name, "args": args}
		if c.ID != "" {
			call["id"] = c.ID
		}
		parts = append(parts, map[string]any{"functionCall": call})
	}
	if len(parts) == 0 {
		parts = append(parts, map[string]any{"text": ""})
	}
	return parts, nil
}

func (g gemini) Write(w http.ResponseWriter, req *Request, rep Reply) error {
	parts, err := geminiParts(rep)
	if err != nil {
		g.WriteError(w, http.StatusInternalServerError, "git-snap model server: "+err.Error())
		return err
	}
	id := rep.ID
	if id == "" {
		id = fmt.Sprintf("gitsnap-%d", geminiIDs.Add(1))
	}
	chunk := func(parts []any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		out := map[string]any{"candidates": []any{cand}, "modelVersion": rep.Model, "responseId": id}
		if last {
			cand["finishReason"] = "STOP"
			out["usageMetadata"] = geminiUsage(rep.Usage)
		}
		return out
	}
	if !req.Stream {
		return writeJSON(w, http.StatusOK, chunk(parts, true))
	}
	// One chunk per part, the last with the finish reason and the usage.
	chunks := make([]any, len(parts))
	for i, p := range parts {
		chunks[i] = chunk([]any{p}, i == len(parts)-1)
	}
	if !req.sse {
		return writeJSON(w, http.StatusOK, chunks)
	}
	ev, err := newEvents(w)
	if err != nil {
		return err
	}
	for _, c := range chunks {
		ev.send("", c)
	}
	return ev.err
}

func (gemini) WriteError(w http.ResponseWriter, status int, msg string) {
	kind := "INVALID_ARGUMENT"
	switch {
	case status == http.StatusNotFound:
		kind = "NOT_FOUND"
	case status >= 500:
		kind = "INTERNAL"
	}
	_ = writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": kind}})
}
