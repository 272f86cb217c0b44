package agent

import (
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

func TestStatsCountsUsageOncePerModelCall(t *testing.T) {
	// Claude Code writes one record per content block, each with a copy
	// of the response's usage; the first has a partial output count, so
	// the last counts.
	d, err := snapshot.ParseDocument([]byte(`{"messages":[
		{"type":"user","message":{"role":"user","content":"go"}},
		{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"thinking","thinking":"…"}],"usage":{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":1}}},
		{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":7}}},
		{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}},
		{"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":5,"output_tokens":2}}}]}`), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot.ComputeStats(d, ViewMessage)
	if s.ModelCalls != 2 || s.ToolCalls != 1 || s.InputTokens != 8 || s.CacheReadTokens != 100 || s.OutputTokens != 9 || s.Estimated {
		t.Errorf("stats = %+v, want 2 model calls, 1 tool call, 8 in, 100 cache read, 9 out", s)
	}
}

// A custom slash command the model answers starts a turn; a built-in one
// answered by the harness (<local-command-stdout>) does not.
func TestClaudeSlashCommandTurns(t *testing.T) {
	doc, err := snapshot.ParseDocument([]byte(`{"messages":[
		{"type":"user","message":{"role":"user","content":"<command-name>/mcp</command-name>\n<command-message>mcp</command-message>\n<command-args></command-args>"}},
		{"type":"user","message":{"role":"user","content":"<local-command-stdout>Reconnected.</local-command-stdout>"}},
		{"type":"user","message":{"role":"user","content":"<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>auth</command-args>"}},
		{"type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Review the auth module."}]}},
		{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":3,"output_tokens":1}}}]}`), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := Lookup("claude-code", Env{})
	if _, st := Trace(doc, a); st.Turns != 1 {
		t.Errorf("%d turns, want 1 (the /review command)", st.Turns)
	}
}
