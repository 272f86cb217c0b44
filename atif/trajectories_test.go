package atif_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/atif"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
)

// sessionDoc is one transcript of testdata as a store keeps it.
type sessionDoc struct {
	name, agent string
	doc         map[string]any
}

// testdataFolders are testdata's folders of transcripts and the agent
// that wrote each: every real transcript, and those written by hand.
var testdataFolders = []struct{ dir, agent string }{
	{"claude-code", "claude-code"}, {"codex", "codex"}, {"codex-real", "codex"}, {"copilot", "copilot"},
	{"cursor", "cursor"}, {"gemini", "gemini"}, {"opencode", "opencode"}, {"hostile", "claude-code"},
	{"live/claude-code", "claude-code"}, {"live/codex", "codex"}, {"live/gemini", "gemini"},
	{"live/copilot", "copilot"}, {"live/copilot-1.0.34", "copilot"}, {"live/opencode", "opencode"},
}

func newStore(t *testing.T) *gitstore.Store {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s, err := gitstore.Open(context.Background(), dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// importDoc imports the transcript at path as agent name would be, into
// a store of its own, and reads the document back.
func importDoc(t *testing.T, name, path string) map[string]any {
	t.Helper()
	s := newStore(t)
	a, err := agent.Lookup(name, agent.Env{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, _, err := capture.Ingest{Store: s, Adapter: a}.Import(ctx, "s", path)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := s.Read(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// testdataSessions imports every transcript of testdata.
func testdataSessions(t *testing.T) []sessionDoc {
	t.Helper()
	var out []sessionDoc
	for _, f := range testdataFolders {
		a, err := agent.Lookup(f.agent, agent.Env{})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("..", "testdata", filepath.FromSlash(f.dir))
		plan, err := agent.PlanImport(a, dir, []string{"."}, snapshot.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", f.dir, err)
		}
		for _, it := range plan.Items {
			rel, _ := filepath.Rel(dir, it.Path)
			out = append(out, sessionDoc{f.dir + "/" + filepath.ToSlash(rel), f.agent, importDoc(t, f.agent, it.Path)})
		}
	}
	return out
}

// TestEveryExportValidates exports every transcript of testdata, each
// agent's, as ATIF and checks each trajectory against ATIF's rules
// (validate), its numbers against the session's (the steps' metrics add
// up to final_metrics, and those are the session's numbers, as stats
// reads them), and that importing it gives the document back.
func TestEveryExportValidates(t *testing.T) {
	sessions := testdataSessions(t)
	if len(sessions) < 19 {
		t.Fatalf("only %d sessions in testdata", len(sessions))
	}
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) {
			data, err := atif.Marshal(s.doc, atif.Options{Session: "s"})
			if err != nil {
				t.Fatal(err)
			}
			v, err := snapshot.Parse(data, snapshot.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range validate(v) {
				t.Error(p)
			}
			if ver := v.(map[string]any)["schema_version"]; ver != "ATIF-v1.8" {
				t.Errorf("schema_version %v", ver)
			}
			checkSums(t, v.(map[string]any), agent.NumbersOf(s.doc, s.agent))
			back, _, err := atif.Import(data, snapshot.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !snapshot.Equal(back, s.doc) {
				t.Error("importing the trajectory does not give the document back")
			}
		})
	}
}

// sums are a trajectory's tokens and model calls, its steps' or its
// final_metrics'.
type sums struct {
	prompt, completion, cached, cacheWrite, calls int64
}

func integer(v any) int64 {
	n, _ := v.(snapshot.Number)
	i, _ := n.Int64()
	return i
}

// stepSums adds up the metrics of the steps of t and its subagents'.
func stepSums(t map[string]any) (s sums, steps int64) {
	for _, st := range t["steps"].([]any) {
		step := st.(map[string]any)
		steps++
		m, ok := step["metrics"].(map[string]any)
		if !ok {
			continue
		}
		extra, _ := m["extra"].(map[string]any)
		s.prompt += integer(m["prompt_tokens"])
		s.completion += integer(m["completion_tokens"])
		s.cached += integer(m["cached_tokens"])
		s.cacheWrite += integer(extra["cache_write_tokens"])
		s.calls += integer(step["llm_call_count"])
	}
	subs, _ := t["subagent_trajectories"].([]any)
	for _, sub := range subs {
		more, n := stepSums(sub.(map[string]any))
		s.prompt, s.completion, s.cached, s.cacheWrite, s.calls = s.prompt+more.prompt, s.completion+more.completion, s.cached+more.cached, s.cacheWrite+more.cacheWrite, s.calls+more.calls
		steps += n
	}
	return s, steps
}

// checkSums checks that the steps add up to final_metrics, and that
// final_metrics are the session's numbers n.
func checkSums(t *testing.T, root map[string]any, n agent.Numbers) {
	t.Helper()
	steps, count := stepSums(root)
	fm := root["final_metrics"].(map[string]any)
	extra := fm["extra"].(map[string]any)
	final := sums{integer(fm["total_prompt_tokens"]), integer(fm["total_completion_tokens"]), integer(fm["total_cached_tokens"]),
		integer(extra["cache_write_tokens"]), integer(extra["model_calls"])}
	if steps != final {
		t.Errorf("the steps add up to %+v, final_metrics say %+v", steps, final)
	}
	want := sums{n.InputTokens + n.CacheReadTokens + n.CacheWriteTokens, n.OutputTokens, n.CacheReadTokens, n.CacheWriteTokens, int64(n.ModelCalls)}
	if final != want {
		t.Errorf("final_metrics %+v, the session's numbers %+v", final, want)
	}
	if total := integer(fm["total_steps"]); total != count {
		t.Errorf("total_steps %d, %d steps", total, count)
	}
}

// The checker refuses what ATIF's rules refuse.
func TestValidatorRefusesWhatATIFRefuses(t *testing.T) {
	const good = `{"schema_version": "ATIF-v1.8", "session_id": "s", "agent": {"name": "a", "version": "1"},
	 "steps": [
	  {"step_id": 1, "source": "user", "message": "go", "timestamp": "2026-09-29T00:00:00Z"},
	  {"step_id": 2, "source": "agent", "message": [{"type": "text", "text": "ok"}], "model_name": "m", "llm_call_count": 1,
	   "tool_calls": [{"tool_call_id": "c1", "function_name": "task", "arguments": {}}],
	   "observation": {"results": [{"source_call_id": "c1", "content": "done", "subagent_trajectory_ref": [{"trajectory_id": "sub"}]}]},
	   "metrics": {"prompt_tokens": 10, "completion_tokens": 2, "cached_tokens": 4, "cost_usd": 0.01, "extra": {"x": 1}}}],
	 "final_metrics": {"total_prompt_tokens": 10, "total_completion_tokens": 2, "total_steps": 3},
	 "subagent_trajectories": [{"trajectory_id": "sub", "agent": {"name": "a", "version": "1"},
	  "steps": [{"step_id": 1, "source": "agent", "message": "",
	   "tool_calls": [{"tool_call_id": "c2", "function_name": "ls", "arguments": {"d": "."}}],
	   "observation": {"results": [{"source_call_id": "c2", "content": null}]}}]}]}`
	check := func(doc string) []string {
		v, err := snapshot.Parse([]byte(doc), snapshot.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return validate(v)
	}
	if p := check(good); len(p) > 0 {
		t.Fatalf("a valid trajectory refused: %q", p)
	}
	for _, c := range []struct{ old, new, says string }{
		{`"step_id": 2`, `"step_id": 3`, "sequential"},
		{`"source": "user", "message": "go"`, `"source": "user", "message": "go", "metrics": {}`, "only an agent step"},
		{`"source": "user"`, `"source": "tool"`, "none of system, user, agent"},
		{`{"source_call_id": "c1"`, `{"source_call_id": "c2"`, "names no tool call of its step"},
		{`"tool_call_id": "c2"`, `"tool_call_id": "c1"`, "was written before"},
		{`"tool_call_id": "c2"`, `"tool_call_id": ""`, "empty"},
		{`"function_name": "ls"`, `"function_name": "ls", "id": 7`, `unknown member "id"`},
		{`"session_id": "s"`, `"session_id": "s", "model": "m"`, `unknown member "model"`},
		{`"trajectory_id": "sub"}]`, `"trajectory_id": "other"}]`, "not an embedded subagent trajectory"},
		{`[{"trajectory_id": "sub", "agent"`, `[{"agent"`, "needs a trajectory_id"},
		{`"steps": [{"step_id": 1, "source": "agent", "message": "",`, `"steps": [], "x": [{"step_id": 1, "source": "agent", "message": "",`, "steps is empty"},
		{`"llm_call_count": 1`, `"llm_call_count": 0`, "llm_call_count 0"},
		{`"arguments": {"d": "."}`, `"arguments": ["."]`, "not an object"},
		{`"timestamp": "2026-09-29T00:00:00Z"`, `"timestamp": "yesterday"`, "not ISO 8601"},
		{`{"type": "text", "text": "ok"}`, `{"type": "video", "text": "ok"}`, "none of text, image, audio"},
		{`"schema_version": "ATIF-v1.8"`, `"schema_version": "ATIF-v2.0"`, "no ATIF version"},
		{`"agent": {"name": "a", "version": "1"},
	 "steps"`, `"agent": {"name": "a"},
	 "steps"`, `missing required member "version"`},
	} {
		bad := strings.Replace(good, c.old, c.new, 1)
		if bad == good {
			t.Fatalf("%q is not in the trajectory", c.old)
		}
		p := check(bad)
		if !strings.Contains(strings.Join(p, "\n"), c.says) {
			t.Errorf("%s → %s: %q, want %q", c.old, c.new, p, c.says)
		}
	}
}

// A Codex release that writes each call's token_count before its
// response (0.39) measures the same responses: moved so, a real
// rollout's steps carry the same metrics as written in order.
func TestTokenCountsBeforeTheirResponse(t *testing.T) {
	const rollout = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
	data, err := os.ReadFile(filepath.Join("..", "testdata", "codex-real", rollout))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	// Each token_count goes before the run of responses it follows: the
	// response items since the last input or total.
	var out [][]byte
	runStart := -1 // where in out the responses since the last input begin
	moved := 0
	for _, l := range lines {
		s := string(l)
		switch {
		case strings.Contains(s, `"type":"token_count"`) && runStart >= 0:
			out = append(out[:runStart], append([][]byte{l}, out[runStart:]...)...)
			runStart = -1
			moved++
			continue
		case strings.Contains(s, `"type":"response_item"`) && (strings.Contains(s, `"role":"assistant"`) ||
			strings.Contains(s, `"type":"reasoning"`) || strings.Contains(s, `"type":"function_call"`) ||
			strings.Contains(s, `"type":"custom_tool_call"`) || strings.Contains(s, `"type":"web_search_call"`)):
			if runStart < 0 {
				runStart = len(out)
			}
		case strings.Contains(s, `"type":"response_item"`) || strings.Contains(s, `"type":"user_message"`):
			runStart = -1
		}
		out = append(out, l)
	}
	if moved < 10 {
		t.Fatalf("only %d token counts moved", moved)
	}
	path := filepath.Join(t.TempDir(), rollout)
	if err := os.WriteFile(path, append(bytes.Join(out, []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	stepMetrics := func(doc map[string]any) []string {
		data, err := atif.Marshal(doc, atif.Options{})
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := snapshot.Parse(data, snapshot.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		v := parsed.(map[string]any)
		for _, p := range validate(v) {
			t.Error(p)
		}
		var ms []string
		for _, st := range v["steps"].([]any) {
			if m, ok := st.(map[string]any)["metrics"]; ok {
				b, _ := snapshot.Marshal(m)
				ms = append(ms, string(b))
			}
		}
		return ms
	}
	want := stepMetrics(importDoc(t, "codex", filepath.Join("..", "testdata", "codex-real", rollout)))
	got := stepMetrics(importDoc(t, "codex", path))
	if len(got) != len(want) {
		t.Fatalf("%d steps with metrics, written in order %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: %s, written in order %s", i+1, got[i], want[i])
		}
	}
}
