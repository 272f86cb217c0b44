package modelapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Step is one reply a Script plays, with what the request it answers
// must contain. The agent is re-running the same conversation only when
// it sends the same prompt, or the results of the same tool calls.
type Step struct {
	Reply Reply
	// Prompt, when set, is text the request's last input must contain:
	// the prompt the user typed before this model call.
	Prompt string
	// Results, when set, are the ids of the tool calls whose results the
	// request's last input must contain.
	Results []string
}

// Script is a Responder that plays its Steps in order, one per request
// of the agent's conversation. A request that does not contain what its
// step expects, or one after the last step, is refused with an error
// naming the step.
//
// Side requests (see Request.Side) do not count as steps. They get
// Side's reply, or when Side is nil, "ok" (or, when the request asks for
// JSON matching a schema, the smallest JSON the schema accepts).
//
// A Script is safe for concurrent use.
type Script struct {
	Steps []Step
	// Side answers side requests; nil answers them with a short text.
	Side func(req *Request) Reply

	mu     sync.Mutex
	served int
}

// MismatchError is a request a Script refused.
type MismatchError struct {
	Step  int // 1-based; len(Steps)+1 when all were served
	Steps int
	// Next says what kind of input the recording expects next, without
	// its content ("a prompt", "the result of a tool call"); "" when
	// every step was served.
	Next string
	// Msg says how the request differs, quoting the recording. It is for
	// the server's log, never for the client.
	Msg string
}

// Error names the step and what differs.
func (e *MismatchError) Error() string {
	if e.Step > e.Steps {
		return fmt.Sprintf("git-snap model server: all %d steps were served; this request has no reply (%s)", e.Steps, e.Msg)
	}
	return fmt.Sprintf("git-snap model server: the request does not match step %d of %d: %s", e.Step, e.Steps, e.Msg)
}

// Public returns the message for the client: the step and what kind of
// input it expects, but nothing recorded. Otherwise a page that reached
// the server could read the recorded prompt and send it back.
func (e *MismatchError) Public() string {
	if e.Step > e.Steps {
		return fmt.Sprintf("git-snap model server: all %d steps were served; this request has no reply", e.Steps)
	}
	return fmt.Sprintf("git-snap model server: the request does not match step %d of %d: the recording has %s next (the replay's log says which)", e.Step, e.Steps, e.Next)
}

// Respond implements Responder.
func (s *Script) Respond(req *Request) (Reply, error) {
	if req.Side {
		if s.Side != nil {
			return s.Side(req), nil
		}
		if req.Schema != nil {
			return Reply{Text: leastJSON(req.Schema)}, nil
		}
		return Reply{Text: "ok"}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.served + 1
	if n > len(s.Steps) {
		return Reply{}, &MismatchError{Step: n, Steps: len(s.Steps), Msg: "its last input is " + describe(req.Tail())}
	}
	step := s.Steps[n-1]
	if next, msg := step.check(req.Tail()); msg != "" {
		return Reply{}, &MismatchError{Step: n, Steps: len(s.Steps), Next: next, Msg: msg}
	}
	s.served = n
	return step.Reply, nil
}

// Served returns how many steps were played.
func (s *Script) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

// check returns what kind of input the step expects and how tail differs
// from it, or "" when it does not differ.
func (st Step) check(tail []Item) (next, msg string) {
	if st.Prompt != "" && !slices.ContainsFunc(tail, func(it Item) bool {
		return it.Kind == ItemText && it.Role == "user" && strings.Contains(it.Text, st.Prompt)
	}) {
		return "another prompt", fmt.Sprintf("the recording has the prompt %s next; the request's last input is %s", quote(st.Prompt), describe(tail))
	}
	for _, id := range st.Results {
		if !slices.ContainsFunc(tail, func(it Item) bool { return it.Kind == ItemToolResult && it.CallID == id }) {
			return "the result of another tool call", fmt.Sprintf("the recording has the result of tool call %s next; the request's last input is %s", id, describe(tail))
		}
	}
	return "", ""
}

// describe says what a request's last input is, for an error.
func describe(tail []Item) string {
	var results []string
	prompt := ""
	for _, it := range tail {
		switch {
		case it.Kind == ItemToolResult:
			results = append(results, it.CallID)
		case it.Kind == ItemText && it.Role == "user":
			prompt = it.Text // the typed prompt comes after what the agent adds
		}
	}
	switch {
	case len(results) > 0:
		return "the result of tool call " + strings.Join(results, ", ")
	case prompt != "":
		return "the prompt " + quote(prompt)
	}
	return "empty"
}

// leastJSON returns the smallest JSON value a JSON schema accepts (the
// OpenAPI subset that model APIs take). It fills in every required
// property with its minimum, its first enum value, or an empty value.
// A number with no minimum gets 1, because such numbers are usually
// scores and counts that the client checks start at 1 even when the
// schema does not say so.
func leastJSON(schema any) string {
	data, err := json.Marshal(leastValue(schema, 0))
	if err != nil {
		return "{}"
	}
	return string(data)
}

func leastValue(schema any, depth int) any {
	s, _ := schema.(map[string]any)
	if depth > 16 || s == nil {
		return map[string]any{}
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	kind, _ := s["type"].(string)
	switch strings.ToLower(kind) {
	case "string":
		return ""
	case "number", "integer":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required, _ := s["required"].([]any)
	for _, r := range required {
		if name, ok := r.(string); ok {
			out[name] = leastValue(props[name], depth+1)
		}
	}
	return out
}
