package agent

import "testing"

func TestSettingsFile(t *testing.T) {
	for _, c := range []struct {
		agent string
		vars  map[string]string // the environment
		scope Scope
		want  string // "" for an error
	}{
		{"claude-code", nil, DefaultScope, "/src/demo/.claude/settings.local.json"},
		{"claude-code", nil, LocalScope, "/src/demo/.claude/settings.local.json"},
		{"claude-code", nil, ProjectScope, "/src/demo/.claude/settings.json"},
		{"claude-code", nil, UserScope, "/home/ana/.claude/settings.json"},
		{"claude-code", map[string]string{"CLAUDE_CONFIG_DIR": "/etc/claude"}, UserScope, "/etc/claude/settings.json"},
		{"claude-code", map[string]string{"CLAUDE_CONFIG_DIR": "/etc/claude"}, ProjectScope, "/src/demo/.claude/settings.json"},
		{"codex", nil, DefaultScope, "/src/demo/.codex/hooks.json"},
		{"codex", nil, ProjectScope, "/src/demo/.codex/hooks.json"},
		{"codex", nil, UserScope, "/home/ana/.codex/hooks.json"},
		{"codex", map[string]string{"CODEX_HOME": "/opt/codex"}, UserScope, "/opt/codex/hooks.json"},
		{"codex", nil, LocalScope, ""},
	} {
		a, err := Lookup(c.agent, Env{Home: "/home/ana", Getenv: func(k string) string { return c.vars[k] }})
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.SettingsFile(c.scope, "/src/demo")
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("%s %v scope %d: %q, %v; want %q", c.agent, c.vars, c.scope, got, err, c.want)
		}
	}
}
