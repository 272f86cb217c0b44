package atif

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Agent is the agent name given to a document imported from a
// trajectory that git-snap did not write. Its records have the common
// message shape.
const Agent = "atif"

// Error reports a trajectory that Import refuses because the input is
// at fault.
type Error struct{ Msg string }

func (e *Error) Error() string { return "atif: " + e.Msg }

// UserError marks the error as the input's fault (exit status 2).
func (e *Error) UserError() string { return e.Error() }

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// Import converts a trajectory into a document and returns its session
// name (the trajectory's session_id, or "" when it has none). A
// trajectory that Export wrote is restored from its extension exactly as
// it was exported; any other is converted step by step (see Agent).
func Import(data []byte, lim snapshot.Limits) (doc map[string]any, session string, err error) {
	v, err := snapshot.Parse(data, lim)
	if err != nil {
		return nil, "", errorf("%v", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, "", errorf("a trajectory is a JSON object, not %s", snapshot.KindOf(v))
	}
	ver, _ := root["schema_version"].(string)
	if !strings.HasPrefix(ver, "ATIF-v1.") {
		return nil, "", errorf("schema_version %q: not an ATIF v1 trajectory", ver)
	}
	if _, ok := root["steps"].([]any); !ok {
		return nil, "", errorf("the trajectory has no steps array")
	}
	session, _ = root["session_id"].(string)
	if ext, ok := extension(root); ok {
		doc, err := restore(root, ext)
		return doc, session, err
	}
	doc, err = convert(root)
	return doc, session, err
}

func extension(obj map[string]any) (map[string]any, bool) {
	extra, _ := obj["extra"].(map[string]any)
	ext, ok := extra[Extension].(map[string]any)
	return ext, ok
}

// restore rebuilds the document from which Export wrote root.
func restore(root, ext map[string]any) (map[string]any, error) {
	if f, _ := number(ext["format"]); f != extensionFormat {
		return nil, errorf("extra.%s: format %v is not one this version of git-snap can read", Extension, ext["format"])
	}
	rest, ok := ext["document"].(map[string]any)
	if !ok {
		return nil, errorf("extra.%s has no document", Extension)
	}
	doc := make(map[string]any, len(rest)+1)
	for k, v := range rest {
		doc[k] = v
	}
	if _, has := ext["messages"]; !has {
		return doc, nil
	}
	n, ok := number(ext["messages"])
	if !ok || n < 0 {
		return nil, errorf("extra.%s.messages: %v is not a count of records", Extension, ext["messages"])
	}
	if held := pairs(root); n > held {
		// Each record is a pair in the file, so a count larger than the
		// pairs found counts records that are not there (perhaps 1e12 of
		// them); refuse it rather than allocate for them.
		return nil, errorf("extra.%s: the trajectory holds %d of its %d records (steps were removed?)", Extension, held, n)
	}
	c := &collected{msgs: make([]any, n), seen: make([]bool, n)}
	if err := c.put("extra."+Extension, ext["records"]); err != nil {
		return nil, err
	}
	if err := c.walk(root, ""); err != nil {
		return nil, err
	}
	for i, ok := range c.seen {
		if !ok {
			return nil, errorf("extra.%s: record %d of %d is missing (steps were removed?)", Extension, i, n)
		}
	}
	doc[snapshot.MemberMessages] = c.msgs
	return doc, nil
}

// pairs counts the [index, record] pairs in a trajectory written by
// Export: in its extension, its steps' and its subagents'.
func pairs(t map[string]any) int {
	n := 0
	if ext, ok := extension(t); ok {
		list, _ := ext["records"].([]any)
		n += len(list)
	}
	steps, _ := t["steps"].([]any)
	for _, s := range steps {
		st, _ := s.(map[string]any)
		if ext, ok := extension(st); ok {
			list, _ := ext["records"].([]any)
			n += len(list)
		}
	}
	subs, _ := t["subagent_trajectories"].([]any)
	for _, sub := range subs {
		so, _ := sub.(map[string]any)
		n += pairs(so)
	}
	return n
}

// collected holds the stored messages gathered from the extension.
type collected struct {
	msgs []any
	seen []bool
}

// put stores each [index, record] pair at its index.
func (c *collected) put(where string, pairs any) error {
	list, _ := pairs.([]any)
	for _, p := range list {
		pair, _ := p.([]any)
		if len(pair) != 2 {
			return errorf("%s: a record is not an [index, record] pair", where)
		}
		i, ok := number(pair[0])
		if !ok || i < 0 || i >= len(c.msgs) {
			return errorf("%s: record index %v is out of range", where, pair[0])
		}
		if c.seen[i] {
			return errorf("%s: record %d appears twice", where, i)
		}
		c.seen[i], c.msgs[i] = true, pair[1]
	}
	return nil
}

// walk places the records of a trajectory's steps and its subagents'.
func (c *collected) walk(t map[string]any, where string) error {
	steps, _ := t["steps"].([]any)
	for si, s := range steps {
		st, _ := s.(map[string]any)
		if e, ok := extension(st); ok {
			if err := c.put(fmt.Sprintf("%ssteps[%d].extra.%s", where, si, Extension), e["records"]); err != nil {
				return err
			}
		}
	}
	subs, _ := t["subagent_trajectories"].([]any)
	for i, sub := range subs {
		so, _ := sub.(map[string]any)
		if err := c.walk(so, fmt.Sprintf("%ssubagent_trajectories[%d].", where, i)); err != nil {
			return err
		}
	}
	return nil
}

// usageOf converts a step's metrics into a record's usage.
func usageOf(metrics map[string]any) (map[string]any, error) {
	var n [3]int
	for i, k := range []string{"prompt_tokens", "cached_tokens", "completion_tokens"} {
		v, err := tokens(metrics, k)
		if err != nil {
			return nil, err
		}
		n[i] = v
	}
	prompt, cached, out := n[0], n[1], n[2]
	return map[string]any{"input_tokens": max(prompt-cached, 0), "cache_read_input_tokens": cached, "output_tokens": out}, nil
}

// maxTokens limits a step's token count. It is more than any model call
// uses, and far below what would overflow a sum of them.
const maxTokens = 1_000_000_000

// tokens reads a token count from a step's metrics; a missing count is
// 0. A count that is not a whole number from 0 to maxTokens is an error,
// because a session with such a count could not be read back.
func tokens(metrics map[string]any, key string) (int, error) {
	v, has := metrics[key]
	if !has || v == nil {
		return 0, nil
	}
	n, ok := number(v)
	if !ok || n < 0 || n > maxTokens {
		return 0, fmt.Errorf("metrics.%s: %v is not a count of tokens (a whole number from 0 to %d)", key, v, maxTokens)
	}
	return n, nil
}

// number converts a JSON number to an int, reporting whether it is a
// whole number that fits.
func number(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x >= -1e15 && x <= 1e15 && x == float64(int(x)) {
			return int(x), true
		}
	case snapshot.Number:
		if n, err := strconv.Atoi(string(x)); err == nil {
			return n, true
		}
	}
	return 0, false
}

// convert reads a trajectory another tool wrote. Each step becomes a
// record of the common message shape ({role, content, ...}) with the
// step as written under "step", and each observation result becomes a
// tool record. Subagent trajectories' steps follow their parent's, and
// their records name the subagent by its trajectory_id (a path, for a
// subagent's subagent). The other members of the trajectory and of its
// subagents are kept under "atif".
func convert(root map[string]any) (map[string]any, error) {
	var cv converter
	meta, err := cv.walk(root, "")
	if err != nil {
		return nil, err
	}
	doc := map[string]any{"agent": Agent, "atif": meta, snapshot.MemberMessages: cv.msgs}
	if cv.msgs == nil {
		doc[snapshot.MemberMessages] = []any{}
	}
	if s, ok := root["session_id"].(string); ok {
		doc["session_id"] = s
	}
	return doc, nil
}

// converter gathers the records of a trajectory's steps.
type converter struct{ msgs []any }

// walk adds the records of trajectory t (at path) and its subagents',
// and returns its members other than the steps.
func (cv *converter) walk(t map[string]any, path string) (map[string]any, error) {
	meta := map[string]any{}
	for k, v := range t {
		if k != "steps" && k != "subagent_trajectories" {
			meta[k] = v
		}
	}
	steps, _ := t["steps"].([]any)
	for i, s := range steps {
		st, ok := s.(map[string]any)
		if !ok {
			return nil, errorf("%ssteps[%d] is not an object", prefix(path), i)
		}
		recs, err := stepRecords(st, path)
		if err != nil {
			return nil, errorf("%ssteps[%d]: %v", prefix(path), i, err)
		}
		cv.msgs = append(cv.msgs, recs...)
	}
	raw, ok := t["subagent_trajectories"]
	if !ok {
		return meta, nil
	}
	subs, _ := raw.([]any)
	metas := make([]any, len(subs))
	for i, x := range subs {
		so, ok := x.(map[string]any)
		if !ok {
			return nil, errorf("%ssubagent_trajectories[%d] is not an object", prefix(path), i)
		}
		id, _ := so["trajectory_id"].(string)
		if id == "" {
			return nil, errorf("%ssubagent_trajectories[%d] has no trajectory_id", prefix(path), i)
		}
		m, err := cv.walk(so, strings.TrimPrefix(path+"/"+id, "/"))
		if err != nil {
			return nil, err
		}
		metas[i] = m
	}
	meta["subagent_trajectories"] = metas
	return meta, nil
}

// original returns the trajectory that convert made doc from, when doc
// is unchanged since: the same members and records, none added.
func original(doc map[string]any) (map[string]any, bool) {
	meta, ok := doc["atif"].(map[string]any)
	if !ok || doc["agent"] != Agent {
		return nil, false
	}
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	steps := map[string][]any{}
	for _, m := range msgs {
		rec, _ := m.(map[string]any)
		st, ok := rec["step"].(map[string]any)
		if !ok {
			continue // a result's record
		}
		path, _ := rec["subagent"].(string)
		steps[path] = append(steps[path], st)
	}
	var fill func(meta map[string]any, path string) map[string]any
	fill = func(meta map[string]any, path string) map[string]any {
		t := make(map[string]any, len(meta)+1)
		for k, v := range meta {
			t[k] = v
		}
		t["steps"] = steps[path]
		if t["steps"] == nil {
			t["steps"] = []any{}
		}
		if subs, ok := meta["subagent_trajectories"].([]any); ok {
			out := make([]any, len(subs))
			for i, x := range subs {
				so, _ := x.(map[string]any)
				id, _ := so["trajectory_id"].(string)
				out[i] = fill(so, strings.TrimPrefix(path+"/"+id, "/"))
			}
			t["subagent_trajectories"] = out
		}
		return t
	}
	root := fill(meta, "")
	again, err := convert(root)
	if err != nil || !snapshot.Equal(again, doc) {
		return nil, false
	}
	return root, true
}

func prefix(path string) string {
	if path == "" {
		return ""
	}
	return "subagent " + path + ": "
}

// stepRecords returns the records of one step: the step's own, then one
// per observation result.
func stepRecords(st map[string]any, sub string) ([]any, error) {
	src, _ := st["source"].(string)
	id := "step-" + fmt.Sprint(st["step_id"])
	if sub != "" {
		id = sub + "/" + id
	}
	rec := map[string]any{"id": id, "step": st}
	if sub != "" {
		rec["subagent"] = sub
	}
	if ts, ok := st["timestamp"].(string); ok {
		rec["timestamp"] = ts
	}
	text := ContentText(st["message"])
	switch src {
	case "user", "system":
		rec["role"] = src
		rec["content"] = text
	case "agent":
		rec["role"] = "assistant"
		var blocks []any
		if r, ok := st["reasoning_content"].(string); ok && r != "" {
			blocks = append(blocks, map[string]any{"type": "thinking", "thinking": r})
		}
		if text != "" {
			blocks = append(blocks, map[string]any{"type": "text", "text": text})
		}
		calls, _ := st["tool_calls"].([]any)
		for _, c := range calls {
			co, _ := c.(map[string]any)
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": co["tool_call_id"], "name": co["function_name"], "input": co["arguments"]})
		}
		if blocks == nil {
			blocks = []any{}
		}
		rec["content"] = blocks
		if m, ok := st["model_name"].(string); ok {
			rec["model"] = m
		}
		if m, ok := st["metrics"].(map[string]any); ok {
			u, err := usageOf(m)
			if err != nil {
				return nil, err
			}
			rec["usage"] = u
		}
	default:
		return nil, fmt.Errorf("source %q is none of user, agent, system", src)
	}
	out := []any{rec}
	if obs, ok := st["observation"].(map[string]any); ok {
		results, _ := obs["results"].([]any)
		for i, r := range results {
			ro, _ := r.(map[string]any)
			tr := map[string]any{"role": "tool", "id": id + "/result-" + strconv.Itoa(i+1), "content": ContentText(ro["content"])}
			if c, ok := ro["source_call_id"].(string); ok {
				tr["tool_call_id"] = c
			}
			if sub != "" {
				tr["subagent"] = sub
			}
			out = append(out, tr)
		}
	}
	return out, nil
}

// ContentText returns an ATIF message or result content as text: the
// string itself, or the text of its content parts, with an image shown
// as its path.
func ContentText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, p := range x {
			po, _ := p.(map[string]any)
			if t, ok := po["text"].(string); ok {
				parts = append(parts, t)
			} else if src, ok := po["source"].(map[string]any); ok {
				parts = append(parts, fmt.Sprintf("[image: %v]", src["path"]))
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
