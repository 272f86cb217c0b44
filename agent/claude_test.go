package agent

import (
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

func TestStatsCountsUsageOncePerModelCall(t *testing.T) {
	// Claude Code writes one record per content block, each with a copy
	// of the response's usage.
	d, err := snapshot.ParseDocument([]byte(`{"messages":[
		{"type":"user","message":{"role":"user","content":"go"}},
		{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"thinking","thinking":"…"}],"usage":{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":7}}},
		{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":7}}},
		{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}},
		{"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":5,"output_tokens":2}}}]}`), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot.ComputeStats(d, ViewMessage)
	if s.ModelCalls != 2 || s.ToolCalls != 1 || s.InputTokens != 108 || s.OutputTokens != 9 || s.Estimated {
		t.Errorf("stats = %+v, want 2 model calls, 1 tool call, 108 in, 9 out", s)
	}
}

func TestClaudeCodeSettingsFile(t *testing.T) {
	vars := map[string]string{}
	env := Env{Home: "/home/ana", Getenv: func(k string) string { return vars[k] }}
	for _, c := range []struct {
		config string // CLAUDE_CONFIG_DIR
		scope  Scope
		want   string
	}{
		{"", DefaultScope, "/src/demo/.claude/settings.local.json"},
		{"", LocalScope, "/src/demo/.claude/settings.local.json"},
		{"", ProjectScope, "/src/demo/.claude/settings.json"},
		{"", UserScope, "/home/ana/.claude/settings.json"},
		{"/etc/claude", UserScope, "/etc/claude/settings.json"},
		{"/etc/claude", ProjectScope, "/src/demo/.claude/settings.json"},
	} {
		vars["CLAUDE_CONFIG_DIR"] = c.config
		a, err := Lookup("claude-code", env)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.SettingsFile(c.scope, "/src/demo")
		if err != nil || got != c.want {
			t.Errorf("CLAUDE_CONFIG_DIR=%q scope %d: %q, %v; want %q", c.config, c.scope, got, err, c.want)
		}
	}
}
