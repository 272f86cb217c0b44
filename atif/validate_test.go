package atif_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// validate checks a trajectory against ATIF v1.8's rules as Harbor's RFC
// 0001 (rfcs/0001-trajectory-format.md, v1.7 with v1.8's audio part) and
// its Pydantic models (harbor/models/trajectories: trajectory.py,
// step.py, tool_call.py, observation.py, observation_result.py,
// subagent_trajectory_ref.py, metrics.py, final_metrics.py, agent.py,
// content.py) state them, written out here in Go: every object refuses
// members it does not define; required members are there and of their
// type; step ids are 1..n; model_name, reasoning, tool calls and metrics
// only on agent steps, and neither metrics nor reasoning on an agent
// step of llm_call_count 0; each result's source_call_id names a call
// of its own step; an embedded subagent has a trajectory_id unique among
// its siblings, and a reference without a path names one of them. Beyond
// the models, which refuse a tool_call_id repeated within a step only,
// tool_call_ids are not empty and unique in the whole trajectory, its
// subagents' included, as the issue that asked for this check wants. It
// returns every problem found, each with where.
func validate(v any) []string {
	c := &checker{ids: map[string]string{}}
	c.trajectory(v, "$", false)
	return c.problems
}

type checker struct {
	problems []string
	ids      map[string]string // tool_call_id → where it was first written
}

func (c *checker) fail(where, format string, a ...any) {
	c.problems = append(c.problems, where+": "+fmt.Sprintf(format, a...))
}

// object checks that v is an object with only the members allowed and
// the members required, and returns it.
func (c *checker) object(v any, where string, allowed, required []string) map[string]any {
	o, ok := v.(map[string]any)
	if !ok {
		c.fail(where, "not an object but %s", snapshot.KindOf(v))
		return nil
	}
	for k := range o {
		if !slices.Contains(allowed, k) {
			c.fail(where, "unknown member %q", k)
		}
	}
	for _, k := range required {
		if _, ok := o[k]; !ok {
			c.fail(where, "missing required member %q", k)
		}
	}
	return o
}

// present reports whether o has key with a value that is not null:
// Pydantic reads a null optional member as absent.
func present(o map[string]any, key string) bool {
	v, ok := o[key]
	return ok && v != nil
}

func (c *checker) str(o map[string]any, key, where string, required bool) (string, bool) {
	v, ok := o[key]
	if !ok || v == nil {
		if required {
			c.fail(where, "%s is required", key)
		}
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		c.fail(where, "%s is %s, not a string", key, snapshot.KindOf(v))
	}
	return s, ok
}

// integer checks an optional integer member at least min.
func (c *checker) integer(o map[string]any, key, where string, min int64) (int64, bool) {
	v, ok := o[key]
	if !ok || v == nil {
		return 0, false
	}
	n, ok := v.(snapshot.Number)
	if !ok {
		c.fail(where, "%s is %s, not an integer", key, snapshot.KindOf(v))
		return 0, false
	}
	i, ok := n.Int64()
	if !ok {
		c.fail(where, "%s is %s, not an integer", key, n)
		return 0, false
	}
	if i < min {
		c.fail(where, "%s is %d, below %d", key, i, min)
	}
	return i, true
}

func (c *checker) number(o map[string]any, key, where string) {
	if v, ok := o[key]; ok && v != nil {
		if _, ok := v.(snapshot.Number); !ok {
			c.fail(where, "%s is %s, not a number", key, snapshot.KindOf(v))
		}
	}
}

func (c *checker) dict(o map[string]any, key, where string) {
	if v, ok := o[key]; ok && v != nil {
		if _, ok := v.(map[string]any); !ok {
			c.fail(where, "%s is %s, not an object", key, snapshot.KindOf(v))
		}
	}
}

func (c *checker) list(o map[string]any, key, where string) ([]any, bool) {
	v, ok := o[key]
	if !ok || v == nil {
		return nil, false
	}
	l, ok := v.([]any)
	if !ok {
		c.fail(where, "%s is %s, not an array", key, snapshot.KindOf(v))
	}
	return l, ok
}

var schemaVersions = []string{"ATIF-v1.0", "ATIF-v1.1", "ATIF-v1.2", "ATIF-v1.3", "ATIF-v1.4", "ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7", "ATIF-v1.8"}

// trajectory checks a Trajectory; embedded says it is a subagent's.
func (c *checker) trajectory(v any, where string, embedded bool) (trajectoryID string) {
	t := c.object(v, where, []string{"schema_version", "session_id", "trajectory_id", "agent", "steps", "notes",
		"final_metrics", "continued_trajectory_ref", "extra", "subagent_trajectories"}, []string{"agent", "steps"})
	if t == nil {
		return ""
	}
	if ver, ok := c.str(t, "schema_version", where, false); ok && !slices.Contains(schemaVersions, ver) {
		c.fail(where, "schema_version %q is no ATIF version", ver)
	}
	c.str(t, "session_id", where, false)
	id, hasID := c.str(t, "trajectory_id", where, false)
	if embedded && !hasID {
		c.fail(where, "an embedded subagent trajectory needs a trajectory_id")
	}
	c.agent(t["agent"], where+".agent")
	c.str(t, "notes", where, false)
	c.str(t, "continued_trajectory_ref", where, false)
	c.dict(t, "extra", where)
	if present(t, "final_metrics") {
		c.finalMetrics(t["final_metrics"], where+".final_metrics")
	}
	embeddedIDs := map[string]bool{}
	subs, _ := c.list(t, "subagent_trajectories", where)
	for i, s := range subs {
		sid := c.trajectory(s, fmt.Sprintf("%s.subagent_trajectories[%d]", where, i), true)
		if embeddedIDs[sid] {
			c.fail(where, "subagent trajectory_id %q is not unique", sid)
		}
		embeddedIDs[sid] = true
	}
	steps, ok := c.list(t, "steps", where)
	if ok && len(steps) == 0 {
		c.fail(where, "steps is empty: a trajectory has at least one")
	}
	for i, s := range steps {
		c.step(s, fmt.Sprintf("%s.steps[%d]", where, i), i+1, embeddedIDs)
	}
	return id
}

func (c *checker) agent(v any, where string) {
	a := c.object(v, where, []string{"name", "version", "model_name", "tool_definitions", "extra"}, []string{"name", "version"})
	if a == nil {
		return
	}
	c.str(a, "name", where, true)
	c.str(a, "version", where, true)
	c.str(a, "model_name", where, false)
	defs, _ := c.list(a, "tool_definitions", where)
	for i, d := range defs {
		if _, ok := d.(map[string]any); !ok {
			c.fail(fmt.Sprintf("%s.tool_definitions[%d]", where, i), "not an object")
		}
	}
	c.dict(a, "extra", where)
}

func (c *checker) finalMetrics(v any, where string) {
	m := c.object(v, where, []string{"total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_cost_usd", "total_steps", "extra"}, nil)
	if m == nil {
		return
	}
	for _, k := range []string{"total_prompt_tokens", "total_completion_tokens", "total_cached_tokens"} {
		c.integer(m, k, where, -1<<62)
	}
	c.integer(m, "total_steps", where, 0)
	c.number(m, "total_cost_usd", where)
	c.dict(m, "extra", where)
}

var agentOnly = []string{"model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"}

func (c *checker) step(v any, where string, want int, embedded map[string]bool) {
	s := c.object(v, where, []string{"step_id", "timestamp", "source", "model_name", "reasoning_effort", "message",
		"reasoning_content", "tool_calls", "observation", "metrics", "is_copied_context", "llm_call_count", "extra"},
		[]string{"step_id", "source", "message"})
	if s == nil {
		return
	}
	if id, ok := c.integer(s, "step_id", where, 1); ok && id != int64(want) {
		c.fail(where, "step_id %d, want %d (sequential from 1)", id, want)
	}
	if ts, ok := c.str(s, "timestamp", where, false); ok {
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			c.fail(where, "timestamp %q is not ISO 8601: %v", ts, err)
		}
	}
	source, _ := c.str(s, "source", where, true)
	if !slices.Contains([]string{"system", "user", "agent"}, source) {
		c.fail(where, "source %q is none of system, user, agent", source)
	}
	if source != "agent" {
		for _, k := range agentOnly {
			if present(s, k) {
				c.fail(where, "%s on a %s step: only an agent step has it", k, source)
			}
		}
	}
	c.str(s, "model_name", where, false)
	if e, ok := s["reasoning_effort"]; ok && e != nil {
		switch e.(type) {
		case string, snapshot.Number:
		default:
			c.fail(where, "reasoning_effort is %s, not a string or a number", snapshot.KindOf(e))
		}
	}
	c.content(s["message"], where+".message", false)
	c.str(s, "reasoning_content", where, false)
	if b, ok := s["is_copied_context"]; ok && b != nil {
		if _, ok := b.(bool); !ok {
			c.fail(where, "is_copied_context is not a boolean")
		}
	}
	if n, ok := c.integer(s, "llm_call_count", where, 0); ok && n == 0 && source == "agent" {
		for _, k := range []string{"metrics", "reasoning_content"} {
			if present(s, k) {
				c.fail(where, "%s on an agent step of llm_call_count 0", k)
			}
		}
	}
	c.dict(s, "extra", where)
	if present(s, "metrics") {
		c.metrics(s["metrics"], where+".metrics")
	}
	calls, _ := c.list(s, "tool_calls", where)
	own := map[string]bool{}
	for i, tc := range calls {
		id := c.toolCall(tc, fmt.Sprintf("%s.tool_calls[%d]", where, i))
		if own[id] {
			c.fail(where, "tool_call_id %q twice in the step", id)
		}
		own[id] = true
	}
	if present(s, "observation") {
		c.observation(s["observation"], where+".observation", own, embedded)
	}
}

func (c *checker) toolCall(v any, where string) string {
	tc := c.object(v, where, []string{"tool_call_id", "function_name", "arguments", "extra"}, []string{"tool_call_id", "function_name", "arguments"})
	if tc == nil {
		return ""
	}
	id, _ := c.str(tc, "tool_call_id", where, true)
	switch first, seen := c.ids[id]; {
	case id == "":
		c.fail(where, "tool_call_id is empty")
	case seen:
		c.fail(where, "tool_call_id %q was written before, at %s", id, first)
	default:
		c.ids[id] = where
	}
	c.str(tc, "function_name", where, true)
	if _, ok := tc["arguments"].(map[string]any); !ok {
		c.fail(where, "arguments is %s, not an object", snapshot.KindOf(tc["arguments"]))
	}
	c.dict(tc, "extra", where)
	return id
}

func (c *checker) observation(v any, where string, calls, embedded map[string]bool) {
	o := c.object(v, where, []string{"results"}, []string{"results"})
	if o == nil {
		return
	}
	results, _ := c.list(o, "results", where)
	for i, r := range results {
		rw := fmt.Sprintf("%s.results[%d]", where, i)
		res := c.object(r, rw, []string{"source_call_id", "content", "subagent_trajectory_ref", "extra"}, nil)
		if res == nil {
			continue
		}
		if id, ok := c.str(res, "source_call_id", rw, false); ok && !calls[id] {
			c.fail(rw, "source_call_id %q names no tool call of its step", id)
		}
		if present(res, "content") {
			c.content(res["content"], rw+".content", true)
		}
		c.dict(res, "extra", rw)
		refs, _ := c.list(res, "subagent_trajectory_ref", rw)
		for j, ref := range refs {
			c.ref(ref, fmt.Sprintf("%s.subagent_trajectory_ref[%d]", rw, j), embedded)
		}
	}
}

func (c *checker) ref(v any, where string, embedded map[string]bool) {
	r := c.object(v, where, []string{"trajectory_id", "session_id", "trajectory_path", "extra"}, nil)
	if r == nil {
		return
	}
	id, _ := c.str(r, "trajectory_id", where, false)
	path, _ := c.str(r, "trajectory_path", where, false)
	c.str(r, "session_id", where, false)
	c.dict(r, "extra", where)
	switch {
	case strings.TrimSpace(id) == "" && strings.TrimSpace(path) == "":
		c.fail(where, "a reference needs a trajectory_id or a trajectory_path")
	case path == "" && !embedded[id]:
		c.fail(where, "trajectory_id %q is not an embedded subagent trajectory", id)
	}
}

func (c *checker) metrics(v any, where string) {
	m := c.object(v, where, []string{"prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd", "prompt_token_ids",
		"completion_token_ids", "logprobs", "extra"}, nil)
	if m == nil {
		return
	}
	for _, k := range []string{"prompt_tokens", "completion_tokens", "cached_tokens"} {
		c.integer(m, k, where, -1<<62)
	}
	c.number(m, "cost_usd", where)
	for _, k := range []string{"prompt_token_ids", "completion_token_ids", "logprobs"} {
		l, _ := c.list(m, k, where)
		for i, x := range l {
			if _, ok := x.(snapshot.Number); !ok {
				c.fail(fmt.Sprintf("%s.%s[%d]", where, k, i), "not a number")
			}
		}
	}
	c.dict(m, "extra", where)
}

// content checks a message (a string or content parts) or, with
// nullable, a result's content (those, or null).
func (c *checker) content(v any, where string, nullable bool) {
	switch x := v.(type) {
	case string:
	case nil:
		if !nullable {
			c.fail(where, "null where a message is required")
		}
	case []any:
		for i, p := range x {
			c.part(p, fmt.Sprintf("%s[%d]", where, i))
		}
	default:
		c.fail(where, "%s, not a string or content parts", snapshot.KindOf(v))
	}
}

func (c *checker) part(v any, where string) {
	p := c.object(v, where, []string{"type", "text", "source"}, []string{"type"})
	if p == nil {
		return
	}
	typ, _ := c.str(p, "type", where, true)
	switch typ {
	case "text":
		if _, ok := c.str(p, "text", where, true); !ok {
			return
		}
		if present(p, "source") {
			c.fail(where, "a text part has no source")
		}
	case "image", "audio":
		if present(p, "text") {
			c.fail(where, "a %s part has no text", typ)
		}
		src := c.object(p["source"], where+".source", []string{"media_type", "path", "duration_sec"}, []string{"media_type", "path"})
		if src == nil {
			return
		}
		mt, _ := c.str(src, "media_type", where+".source", true)
		c.str(src, "path", where+".source", true)
		if typ == "image" && (!slices.Contains([]string{"image/jpeg", "image/png", "image/gif", "image/webp"}, mt) || present(src, "duration_sec")) {
			c.fail(where, "an image part's source has media_type %q (jpeg, png, gif, webp) and no duration", mt)
		}
		if typ == "audio" && !strings.HasPrefix(strings.ToLower(mt), "audio/") {
			c.fail(where, "an audio part's source has media_type %q", mt)
		}
	default:
		c.fail(where, "content part type %q is none of text, image, audio", typ)
	}
}
