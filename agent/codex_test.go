package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// A notify call names no rollout: it is found under Codex's home, which
// the caller gives (CODEX_HOME), never read from the environment here.
func TestCodexFindsRolloutInItsHome(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "04", "02")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(day, "rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Lookup("codex", Env{Getenv: func(k string) string { return map[string]string{"CODEX_HOME": home}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Decode(nil, []string{`{"type":"agent-turn-complete","thread-id":"019d2a10-0000-7000-8000-0000000000aa","cwd":"/w"}`})
	if err != nil || p.TranscriptPath != path {
		t.Errorf("decoded %+v, %v; want the rollout %s", p, err, path)
	}
}

// The quirks of real rollouts, each in a few lines: a token_count written
// twice is one model call, a compaction written as a compacted line and a
// context_compacted event is one, an exit code given as text marks a
// failure, and a web search is a tool call.
func TestCodexQuirks(t *testing.T) {
	doc, err := snapshot.ParseDocument([]byte(`{"messages":[
{"timestamp":"2026-05-11T08:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"go"}},
{"timestamp":"2026-05-11T08:00:01Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c1"}},
{"timestamp":"2026-05-11T08:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10}}}},
{"timestamp":"2026-05-11T08:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10}}}},
{"timestamp":"2026-05-11T08:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nProcess exited with code 0"}},
{"timestamp":"2026-05-11T08:00:04Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}},
{"timestamp":"2026-05-11T08:00:05Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":250,"cached_input_tokens":140,"output_tokens":30}}}},
{"timestamp":"2026-05-11T08:00:06Z","type":"compacted","payload":{"message":"summary"}},
{"timestamp":"2026-05-11T08:00:06Z","type":"event_msg","payload":{"type":"context_compacted"}}]}`), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := Lookup("codex", Env{})
	lines, st := Trace(doc, a)
	if st.ModelCalls != 2 || st.ToolCalls != 2 || st.ToolFailures != 1 || st.Compactions != 1 || st.Turns != 1 ||
		st.InputTokens != 110 || st.CacheReadTokens != 140 || st.OutputTokens != 30 {
		t.Errorf("stats %+v", st)
	}
	for _, l := range lines {
		if l.Kind == "model" && strings.Contains(l.Detail, "in=0 ") && strings.Contains(l.Detail, "out=0") {
			t.Errorf("phantom model line %q", l.Detail)
		}
	}
}

// Codex 0.169 writes a prompt as an item_completed event and no
// user_message; a rollout that has both for one prompt counts it once,
// while the same prompt typed twice is two turns.
func TestCodexPromptWrittenTwiceIsOneTurn(t *testing.T) {
	line := func(typ, payload string) any {
		v, err := snapshot.Parse([]byte(`{"timestamp":"2026-11-25T07:00:00Z","type":"`+typ+`","payload":`+payload+`}`), snapshot.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	userMessage := line("event_msg", `{"type":"user_message","message":"fix it"}`)
	completed := line("event_msg", `{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"fix it"}]}}`)
	answer := line("response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}`)
	for _, c := range []struct {
		name         string
		msgs         []any
		turns, count int
	}{
		{"0.169", []any{completed, answer}, 1, 2},
		{"both", []any{userMessage, completed, answer}, 1, 2},
		{"typed twice", []any{completed, completed, answer}, 2, 3},
		{"again after an answer", []any{userMessage, answer, completed, answer}, 2, 4},
	} {
		_, st := Trace(map[string]any{snapshot.MemberMessages: c.msgs}, Codex{})
		if st.Turns != c.turns || st.Messages != c.count {
			t.Errorf("%s: %d turns, %d messages; want %d, %d", c.name, st.Turns, st.Messages, c.turns, c.count)
		}
	}
}
