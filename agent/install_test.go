package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

func TestOpenCodePluginInstall(t *testing.T) {
	a, _ := Lookup("opencode", Env{Home: "/home/ana"})
	work := t.TempDir()
	file, err := a.SettingsFile(DefaultScope, work)
	if err != nil || file != filepath.Join(work, ".opencode", "plugins", "git-snap.js") {
		t.Fatalf("%s, %v", file, err)
	}
	if user, _ := a.SettingsFile(UserScope, work); user != "/home/ana/.config/opencode/plugins/git-snap.js" {
		t.Errorf("user plugin at %s", user)
	}
	if changed, err := Install(a, file, "git-snap hook opencode"); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	src, _ := os.ReadFile(file)
	for _, want := range []string{`const COMMAND = "git-snap hook opencode"`, "session.idle", "tool.execute.after", "experimental.session.compacting", "dispose: async"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the plugin lacks %s", want)
		}
	}
	if changed, _ := Install(a, file, "git-snap hook opencode"); changed {
		t.Error("a second install changed the plugin")
	}
	if changed, _ := Install(a, file, "'/opt/my tools/git-snap' hook opencode"); !changed {
		t.Error("a new command was not written")
	}
	if changed, err := Uninstall(a, file); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the plugin is still there: %v", err)
	}
	mine := []byte("export const Mine = async () => ({})\n")
	if err := os.WriteFile(file, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(a, file, "git-snap hook opencode"); err == nil {
		t.Error("install overwrote a plugin git-snap did not write")
	}
	if _, err := Uninstall(a, file); err == nil {
		t.Error("uninstall removed a plugin git-snap did not write")
	}
	if got, _ := os.ReadFile(file); string(got) != string(mine) {
		t.Error("the user's plugin changed")
	}
}

// TestInstallRoundTrips installs into settings files holding other
// settings and hooks, installs again, uninstalls, and checks that
// everything else is kept, a second install changes nothing, and a file
// that is not JSON is never rewritten.
func TestInstallRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		agent, existing, want string
	}{
		{"gemini", `{"theme":"GitHub","hooks":{"AfterTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"./lint.sh","timeout":5000}]}]}}`, `"timeout": 30000`},
		{"copilot", `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./guard.sh","timeoutSec":10}]}}`, `"bash": "git-snap hook copilot postToolUse"`},
		{"cursor", `{"version":1,"hooks":{"afterFileEdit":[{"command":"./format.sh"}]},"extra":{"keep":true}}`, `"command": "git-snap hook cursor"`},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			work := t.TempDir()
			a, _ := Lookup(tc.agent, Env{Home: t.TempDir()})
			file, err := a.SettingsFile(ProjectScope, work)
			if err != nil {
				t.Fatal(err)
			}
			// A new file: created, then removed when only git-snap's hooks were in it.
			if changed, err := Install(a, file, "git-snap hook "+tc.agent); err != nil || !changed {
				t.Fatalf("install: %v %v", changed, err)
			}
			if changed, err := Uninstall(a, file); err != nil || !changed {
				t.Fatalf("uninstall: %v %v", changed, err)
			}
			if data, err := os.ReadFile(file); err == nil && tc.agent != "gemini" {
				t.Errorf("the file git-snap created is left: %s", data)
			}
			if err := os.WriteFile(file, []byte(tc.existing), 0o644); err != nil {
				t.Fatal(err)
			}
			if changed, err := Install(a, file, "git-snap hook "+tc.agent); err != nil || !changed {
				t.Fatalf("install: %v %v", changed, err)
			}
			once, _ := os.ReadFile(file)
			if !strings.Contains(string(once), tc.want) {
				t.Errorf("installed:\n%s\nwant %s in it", once, tc.want)
			}
			for _, ev := range a.Events() {
				if !strings.Contains(string(once), `"`+ev+`"`) {
					t.Errorf("no %s hook", ev)
				}
			}
			if changed, _ := Install(a, file, "git-snap hook "+tc.agent); changed {
				t.Error("a second install of the same command changed the file")
			}
			if changed, err := Uninstall(a, file); err != nil || !changed {
				t.Fatalf("uninstall: %v %v", changed, err)
			}
			var got, want any
			after, _ := os.ReadFile(file)
			_ = json.Unmarshal(after, &got)
			_ = json.Unmarshal([]byte(tc.existing), &want)
			if !jsonEqual(got, want) {
				t.Errorf("uninstall left\n%s\nnot the settings as they were:\n%s", after, tc.existing)
			}
			broken := []byte("{\n  // a comment\n  \"hooks\": {}\n}\n")
			if err := os.WriteFile(file, broken, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Install(a, file, "git-snap hook "+tc.agent); err == nil {
				t.Error("installed into a file that is not JSON")
			}
			if _, err := Uninstall(a, file); err == nil {
				t.Error("uninstalled from a file that is not JSON")
			}
			if data, _ := os.ReadFile(file); !bytes.Equal(data, broken) {
				t.Error("a file that is not JSON was rewritten")
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
