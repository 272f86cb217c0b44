package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

// Replay yields one output per model call: as many as the statistics
// count (responses by their id), on every real transcript, and the same
// bytes every time.
func TestReplayOneOutputPerModelCall(t *testing.T) {
	ts, err := testdocs.Transcripts()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		doc, err := tr.Document(len(tr.Lines))
		if err != nil {
			t.Fatal(err)
		}
		var first []byte
		for range 2 {
			var out []byte
			n := 0
			for o := range Replay(doc) {
				n++
				if o.Call != n {
					t.Fatalf("%s: call %d numbered %d", tr.Name, n, o.Call)
				}
				b, _ := snapshot.Marshal(o.Content)
				out = append(out, b...)
			}
			if want := snapshot.ComputeStats(doc, ViewMessage).ModelCalls; n != want {
				t.Errorf("%s: %d outputs, %d model calls", tr.Name, n, want)
			}
			if first != nil && string(first) != string(out) {
				t.Errorf("%s: replay is not deterministic", tr.Name)
			}
			first = out
		}
	}
}

// A harness's post_model event may give its tokens as a usage object, as
// the model's API does; trace, replay and show read it alike.
func TestRecordedUsageObject(t *testing.T) {
	doc := map[string]any{snapshot.MemberEvents: []any{
		map[string]any{"type": "post_model", "ts_ms": 1, "model": "m", "usage": map[string]any{"input_tokens": 5, "cache_read_input_tokens": 7, "output_tokens": 2}, "output": "hi"},
		map[string]any{"type": "post_model", "ts_ms": 2, "model": "m", "input_tokens": 1, "output_tokens": 1, "output": "bye"},
	}}
	_, st := Trace(doc, nil)
	if st.ModelCalls != 2 || st.InputTokens != 6 || st.CacheReadTokens != 7 || st.OutputTokens != 3 {
		t.Errorf("trace stats %+v", st)
	}
	var usage []OutputUsage
	for o := range Replay(doc) {
		if o.Usage == nil {
			t.Fatalf("call %d: no usage", o.Call)
		}
		usage = append(usage, *o.Usage)
	}
	if len(usage) != 2 || usage[0] != (OutputUsage{Input: 5, CacheRead: 7, Output: 2}) {
		t.Errorf("replay usage %+v", usage)
	}
}

// liveDocument reads a transcript of testdata/live as a document.
func liveDocument(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "live", file))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		v, err := snapshot.Parse([]byte(line), snapshot.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, v)
	}
	return map[string]any{snapshot.MemberMessages: msgs}
}

// The steps of a session the agent really wrote (see testdata/live): each
// model call with the prompt or the tool results the agent sent before
// it, and what the stub answered.
func TestReplayStepsOfLiveSessions(t *testing.T) {
	anthropic := OutputUsage{Input: 1005, CacheRead: 2105, CacheWrite: 3205, Output: 45}
	for _, c := range []struct {
		agent, file, tool string
		usage             OutputUsage
	}{
		{"claude-code", "claude-code/6770d186-a816-4df6-a9b4-d9dc16b84fa9.jsonl", "Bash", anthropic},
		{"codex", "codex/rollout-2026-11-25T07-37-37-01a211a3-7e80-7a72-8c19-58ed6c22e482.jsonl", "exec_command", anthropic},
		// Gemini's usage has no cache writes: the stub sent them as input.
		// The tool call's result is in the call's own message.
		{"gemini", "gemini/session-2026-11-25T09-50-ee947b54.jsonl", "run_shell_command", OutputUsage{Input: 4210, CacheRead: 2105, Output: 45}},
	} {
		a, _ := Lookup(c.agent, Env{})
		doc := liveDocument(t, c.file)
		doc["agent"] = c.agent
		steps := ReplaySteps(doc, a)
		if len(steps) != 3 {
			t.Fatalf("%s: %d steps, the stub served 3", c.agent, len(steps))
		}
		first, second, third := steps[0], steps[1], steps[2]
		call, _ := first.Content[0].(map[string]any)
		if first.Prompt != "Write hello.txt with the shell." || len(first.Results) != 0 || call["name"] != c.tool || call["id"] != "call_gitsnap_live_1" {
			t.Errorf("%s: step 1 %+v", c.agent, first)
		}
		if second.Prompt != "" || len(second.Results) != 1 || second.Results[0] != "call_gitsnap_live_1" {
			t.Errorf("%s: step 2 %+v", c.agent, second)
		}
		if third.Prompt != "How many lines does hello.txt hold?" || len(third.Results) != 0 || *third.Usage != c.usage {
			t.Errorf("%s: step 3 %+v, usage %+v", c.agent, third, third.Usage)
		}
		said := ""
		for _, p := range third.Content {
			if p, _ := p.(map[string]any); p["type"] == "text" {
				said += p["text"].(string)
			}
		}
		if said != "It holds one line." {
			t.Errorf("%s: step 3 says %v", c.agent, third.Content)
		}
	}
}

// Claude Code 2.1.328's transcript holds about seven records for each
// message a person counts; stats counts the messages.
func TestLiveClaudeCodeMessages(t *testing.T) {
	doc := liveDocument(t, "claude-code/6770d186-a816-4df6-a9b4-d9dc16b84fa9.jsonl")
	n := NumbersOf(doc, "claude-code")
	if n.Messages != 6 || n.Records != 42 || n.Turns != 2 || n.ToolCalls != 1 || n.ModelCalls != 3 {
		t.Errorf("%+v", n)
	}
	c := NumbersOf(liveDocument(t, "codex/rollout-2026-11-25T07-37-37-01a211a3-7e80-7a72-8c19-58ed6c22e482.jsonl"), "codex")
	if c.Messages != 6 || c.Turns != 2 || c.CacheWriteTokens != 9909 || c.InputTokens != 3309 {
		t.Errorf("codex: %+v", c)
	}
}
