package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewAgentsInstallKeepingTheRest: install writes git-snap's hooks
// (settings, hook files, extension, plugin) into each new agent's own
// files keeping what is there, a second install changes nothing,
// uninstall removes only git-snap's, and a file of the user's where
// git-snap would write is refused and left as it is.
func TestNewAgentsInstallKeepingTheRest(t *testing.T) {
	const cmd = "git-snap hook "
	for _, c := range []struct {
		agent string
		mine  string // a file of the user's beside git-snap's ("" for none), relative to the settings file's folder
		keep  string // the settings file's content before, kept after uninstall ("" for a file of git-snap's own)
	}{
		{"qwen", "", `{"model": {"name": "qwen3"}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}}`},
		{"droid", "", `{"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}], "showHookOutput": true}`},
		{"pi", "mine.ts", ""},
		{"cline", "TaskStart.bak", ""},
		{"kilo", "mine.js", ""},
	} {
		t.Run(c.agent, func(t *testing.T) {
			work := t.TempDir()
			a, err := Lookup(c.agent, Env{Home: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			file, err := a.SettingsFile(DefaultScope, work)
			if err != nil {
				t.Fatal(err)
			}
			dir := file
			if _, isDir := a.(Cline); !isDir {
				dir = filepath.Dir(file)
			}
			must(t, os.MkdirAll(dir, 0o755))
			if c.keep != "" {
				must(t, os.WriteFile(file, []byte(c.keep), 0o644))
			}
			if c.mine != "" {
				must(t, os.WriteFile(filepath.Join(dir, c.mine), []byte("mine"), 0o644))
			}
			if changed, err := Install(a, file, cmd+c.agent); err != nil || !changed {
				t.Fatalf("install: %v, changed %v", err, changed)
			}
			hooks, err := HookCommandsOf(a, file)
			if err != nil || len(hooks) != len(a.Events()) {
				t.Fatalf("after install, git-snap's hooks: %v, %v; want its %d events", hooks, err, len(a.Events()))
			}
			for ev, cmds := range hooks {
				if len(cmds) != 1 || cmds[0] != cmd+c.agent {
					t.Errorf("%s runs %q", ev, cmds)
				}
			}
			if changed, err := Install(a, file, cmd+c.agent); err != nil || changed {
				t.Errorf("install again: %v, changed %v", err, changed)
			}
			if changed, err := Uninstall(a, file); err != nil || !changed {
				t.Fatalf("uninstall: %v, changed %v", err, changed)
			}
			if hooks, _ := HookCommandsOf(a, file); len(hooks) != 0 {
				t.Errorf("after uninstall: %v", hooks)
			}
			if c.keep != "" {
				data, err := os.ReadFile(file)
				if err != nil || !strings.Contains(string(data), "echo mine") {
					t.Errorf("uninstall lost the user's settings: %q, %v", data, err)
				}
			}
			if c.mine != "" {
				if data, err := os.ReadFile(filepath.Join(dir, c.mine)); err != nil || string(data) != "mine" {
					t.Errorf("the user's file: %q, %v", data, err)
				}
			}
		})
	}
}

// TestNewAgentsRefuseToReplaceTheUsersFile: a file of the user's where
// git-snap's extension, plugin or hook file goes is refused, unchanged.
func TestNewAgentsRefuseToReplaceTheUsersFile(t *testing.T) {
	for _, name := range []string{"pi", "kilo", "cline"} {
		work := t.TempDir()
		a, _ := Lookup(name, Env{Home: t.TempDir()})
		file, _ := a.SettingsFile(DefaultScope, work)
		target := file
		if _, ok := a.(Cline); ok {
			target = filepath.Join(file, "TaskComplete")
		}
		must(t, os.MkdirAll(filepath.Dir(target), 0o755))
		must(t, os.WriteFile(target, []byte("the user's own\n"), 0o755))
		if _, err := Install(a, file, "git-snap hook "+name); err == nil || !strings.Contains(err.Error(), "not git-snap's") {
			t.Errorf("%s: install over the user's %s: %v", name, target, err)
		}
		if data, _ := os.ReadFile(target); string(data) != "the user's own\n" {
			t.Errorf("%s: the user's file is now %q", name, data)
		}
	}
}
