// Package modelapi serves the model APIs that coding agents use
// (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini
// generateContent), answering each request from a Responder. The usual
// Responder is a Script: a fixed list of replies played in order, each
// served only to a request that matches what the recording expects.
//
// git snap replay --serve plays a recorded session's model outputs this
// way, so that the real agent pointed at the server re-runs the session
// offline. The live-agent tests serve their stubs the same way, and keep
// every request to check what the agent sent. The server answers only
// clients on this machine (package loopback). When a request does not
// match, the client is told what kind of input the recording expects,
// never the recorded input itself.
//
// Each API lives in one file: it parses a request's conversation into
// Items, writes a Reply in its own wire format (streamed when the client
// asks), and registers itself (see register).
package modelapi

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Usage is the token counts a reply reports, one field per kind; Input
// is the uncached input only. Each API reports them its own way: OpenAI
// counts cached input inside its input tokens, Anthropic separately.
type Usage struct {
	Input, CacheRead, CacheWrite, Output int64
}

// Add sums o into u.
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.CacheRead += o.CacheRead
	u.CacheWrite += o.CacheWrite
	u.Output += o.Output
}

// ToolCall is a tool the model calls in a reply.
type ToolCall struct {
	ID   string
	Name string
	// Input is the tool's input: a JSON object, or a string holding one
	// (as OpenAI's function arguments are), or free text for a tool whose
	// input is text (Codex's apply_patch).
	Input any
}

// Reply is one model response to serve.
type Reply struct {
	ID        string // the response's id; one is made up when empty
	Model     string // "" answers with the model the request names
	Text      string // the answer's text, before any tool call
	ToolCalls []ToolCall
	Usage     Usage
}

// Item is one entry of a request's conversation, in the same form for
// every API.
type Item struct {
	Role   string // user, assistant, system, developer, tool
	Kind   string // ItemText, ItemToolCall or ItemToolResult
	Text   string // a text's, a tool call's input or a tool result's output
	CallID string // a tool call's or result's id
	Name   string // a tool call's tool
}

// Kinds of Item.
const (
	ItemText       = "text"
	ItemToolCall   = "tool_call"
	ItemToolResult = "tool_result"
)

// Tool is a tool a request offers the model.
type Tool struct {
	Name string
	// Custom is true for a tool whose input is free text (OpenAI's
	// "custom" tools), false for a function with JSON arguments.
	Custom bool
}

// Request is a model call as the server received it.
type Request struct {
	API    string // the API's name
	Path   string // the URL path it was sent to
	Model  string
	Stream bool
	Tools  []Tool
	Items  []Item
	// Side is true for a request outside the agent's conversation, such
	// as one for a title or a summary; such requests offer no tools. A
	// Script answers them separately and does not count them as steps.
	Side bool
	// Schema is the JSON schema the client asks the answer to follow (as
	// a decoded JSON value), nil when it asks for free text.
	Schema any
	Body   []byte // as sent

	sse   bool // a stream asked as server-sent events (Gemini's ?alt=sse)
	usage bool // the client asks the usage (Chat Completions: stream_options.include_usage when streamed)
}

// Tool finds a tool the request offers by name.
func (r *Request) Tool(name string) (Tool, bool) {
	for _, t := range r.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Texts returns every text of the conversation, in order, with its role,
// for checking that the agent sent the earlier conversation.
func (r *Request) Texts() []string {
	var out []string
	for _, it := range r.Items {
		if it.Kind == ItemText {
			out = append(out, it.Role+": "+it.Text)
		}
	}
	return out
}

// Tail returns what the request adds after the model's last output: the
// prompt, or the results of the tool calls it made.
func (r *Request) Tail() []Item {
	for i := len(r.Items) - 1; i >= 0; i-- {
		if r.Items[i].Role == "assistant" {
			return r.Items[i+1:]
		}
	}
	return r.Items
}

// Responder answers a server's requests.
type Responder interface {
	// Respond returns the reply to a request, or an error that the
	// server sends back as the API's error response.
	Respond(req *Request) (Reply, error)
}

// API is one model API's wire format.
type API interface {
	// Name is the API's name: anthropic-messages, openai-responses,
	// openai-chat, gemini.
	Name() string
	// Title is the API's own name, for people.
	Title() string
	// Handles reports whether a request is one of the API's model calls
	// (by method and path).
	Handles(r *http.Request) bool
	// Parse decodes a request body.
	Parse(body []byte) (Request, error)
	// Write sends a reply, streamed when the request asked.
	Write(w http.ResponseWriter, req *Request, rep Reply) error
	// WriteError sends an error as the API does, so that the agent shows
	// msg to its user.
	WriteError(w http.ResponseWriter, status int, msg string)
}

// urlReader is an API whose requests put some of their parameters in the
// URL rather than the body (for Gemini, the model and whether to stream).
type urlReader interface {
	FromURL(r *http.Request, req *Request)
}

// usageSayer is an API that cannot report every kind of Usage. Said
// returns the usage as the API writes it, which the server records as
// what the reply sent.
type usageSayer interface {
	Said(u Usage) Usage
}

// apis holds every API by name. Each API's file adds itself in an init
// function, so that adding an API takes one file.
var apis = map[string]API{}

func register(a API) {
	if _, dup := apis[a.Name()]; dup {
		panic("modelapi: " + a.Name() + " registered twice")
	}
	apis[a.Name()] = a
}

// Lookup finds an API by name.
func Lookup(name string) (API, error) {
	if a, ok := apis[name]; ok {
		return a, nil
	}
	names := make([]string, 0, len(apis))
	for n := range apis {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("no model API %q: git-snap serves %s", name, strings.Join(names, ", "))
}

// quote shortens and quotes a text for an error message.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
