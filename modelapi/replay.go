package modelapi

import (
	"fmt"

	"github.com/git-snap/git-snap/agent"
)

// ReplayError reports a session that replay cannot serve, because it was
// recorded from an agent whose model API git-snap does not support, or
// it has no model call.
type ReplayError struct{ Msg string }

// Error says why the session cannot be served.
func (e *ReplayError) Error() string { return e.Msg }

// UserError marks the error as the user's fault: the revision should
// name another session.
func (e *ReplayError) UserError() {}

// ReplayScript builds the script a model server plays to re-run a
// recorded session offline (git snap replay --serve). The script serves
// each recorded model call in order, and only to a request that sends
// what the agent sent before that call: the same prompt, or the results
// of the same tool calls. source is the agent that recorded doc; api is
// the model API to serve it with.
func ReplayScript(doc map[string]any, source string) (api string, script *Script, err error) {
	a, err := agent.Lookup(source, agent.Env{})
	if err != nil {
		return "", nil, &ReplayError{fmt.Sprintf("the snapshot was recorded from %q, not from an agent whose model git-snap can serve", source)}
	}
	m, ok := a.(agent.ModelAPIer)
	if !ok {
		return "", nil, &ReplayError{fmt.Sprintf("git-snap does not serve the model API %s uses", source)}
	}
	steps := agent.ReplaySteps(doc, a)
	if len(steps) == 0 {
		return "", nil, &ReplayError{"the snapshot holds no model call to serve"}
	}
	script = &Script{}
	for _, st := range steps {
		script.Steps = append(script.Steps, Step{Prompt: st.Prompt, Results: st.Results, Reply: replyOf(st.ModelOutput)})
	}
	return m.ModelAPI(), script, nil
}

// replyOf turns a recorded model call's output into a reply: its texts,
// in order, and its tool calls with their recorded ids, which the agent
// then sends back with their results. Thinking is left out because the
// APIs require it to be signed.
func replyOf(out agent.ModelOutput) Reply {
	r := Reply{ID: out.ID, Model: out.Model}
	for _, c := range out.Content {
		p, _ := c.(map[string]any)
		switch p["type"] {
		case "text":
			t, _ := p["text"].(string)
			if r.Text != "" && t != "" {
				r.Text += "\n\n"
			}
			r.Text += t
		case "tool_call":
			id, _ := p["id"].(string)
			name, _ := p["name"].(string)
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: id, Name: name, Input: p["input"]})
		}
	}
	if u := out.Usage; u != nil {
		r.Usage = Usage{Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output}
	}
	return r
}
