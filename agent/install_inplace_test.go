package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsAreEditedInPlace: install and uninstall replaced a
// symlinked ~/.claude/settings.json with a regular file, made 0600 files
// 0644, wrote Codex's notify before a config.toml's UTF-8 byte order mark,
// and `uninstall codex` removed a notify = … line inside a multi-line
// string instead of the key. Settings are now edited where they are,
// keeping the link, the mode and the mark, and the notify key is found by
// what TOML reads, not by the look of a line.
func TestSettingsAreEditedInPlace(t *testing.T) {
	home := t.TempDir()
	a, _ := Lookup("claude-code", Env{Home: home})
	file, err := a.SettingsFile(UserScope, t.TempDir())
	must(t, err)
	must(t, os.MkdirAll(filepath.Dir(file), 0o755))
	dotfiles := filepath.Join(t.TempDir(), "settings.json")
	must(t, os.WriteFile(dotfiles, []byte("\xef\xbb\xbf{\"theme\": \"dark\"}\n"), 0o600))
	must(t, os.Symlink(dotfiles, file))
	for _, step := range []string{"install", "uninstall"} {
		var err error
		if step == "install" {
			_, err = Install(a, file, "git-snap hook claude-code")
		} else {
			_, err = Uninstall(a, file)
		}
		must(t, err)
		if fi, err := os.Lstat(file); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("after %s the settings link is %v (%v)", step, fi.Mode(), err)
		}
		fi, err := os.Stat(dotfiles)
		must(t, err)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("after %s the file is %v, want 0600", step, fi.Mode().Perm())
		}
		data, _ := os.ReadFile(dotfiles)
		if !bytes.HasPrefix(data, []byte("\xef\xbb\xbf{")) || !strings.Contains(string(data), `"theme": "dark"`) {
			t.Errorf("after %s:\n%q", step, data)
		}
		if got := strings.Contains(string(data), "git-snap hook"); got != (step == "install") {
			t.Errorf("after %s, git-snap's hook present: %v\n%s", step, got, data)
		}
	}

	dir := t.TempDir()
	toml := filepath.Join(dir, "config.toml")
	ours := `notify = ["git-snap", "hook", "codex"]`
	for _, tc := range []struct{ name, before, installed, uninstalled string }{
		{"byte order mark", "\xef\xbb\xbfmodel = \"o3\"\n", "\xef\xbb\xbf" + ours + "\nmodel = \"o3\"\n", "\xef\xbb\xbfmodel = \"o3\"\n"},
		{"a look-alike line in a multi-line string",
			"instructions = \"\"\"\n" + ours + "\n\"\"\"\n",
			ours + "\ninstructions = \"\"\"\n" + ours + "\n\"\"\"\n",
			"instructions = \"\"\"\n" + ours + "\n\"\"\"\n"},
		{"the key after a look-alike in a multi-line string",
			"instructions = \"\"\"\n" + ours + "\n\"\"\"\n" + ours + "\n",
			"instructions = \"\"\"\n" + ours + "\n\"\"\"\n" + ours + "\n",
			"instructions = \"\"\"\n" + ours + "\n\"\"\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			must(t, os.WriteFile(toml, []byte(tc.before), 0o600))
			_, _, err := InstallNotify(toml, "git-snap")
			must(t, err)
			if data, _ := os.ReadFile(toml); string(data) != tc.installed {
				t.Errorf("installed:\n%q\nwant\n%q", data, tc.installed)
			}
			_, err = UninstallNotify(toml)
			must(t, err)
			if data, _ := os.ReadFile(toml); string(data) != tc.uninstalled {
				t.Errorf("uninstalled:\n%q\nwant\n%q", data, tc.uninstalled)
			}
			if fi, _ := os.Stat(toml); fi.Mode().Perm() != 0o600 {
				t.Errorf("config.toml is %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}
