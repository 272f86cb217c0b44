package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitConfigAgreesWithGit sets keys at every level git reads and
// checks each value GitConfig finds against git config --get's, run with
// the same environment.
func TestGitConfigAgreesWithGit(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	system := filepath.Join(dir, "system")
	write := func(path, text string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(system, "[core]\n\tpager = from-system\n[color]\n\tui = never\n[pager]\n\tsnap = false\n")
	write(filepath.Join(home, ".config", "git", "config"), "[core]\n\tpager = from-xdg\n[user]\n\tname = Xdg\n")
	write(filepath.Join(home, ".gitconfig"), "[core]\n\tpager = from-home\n[include]\n\tpath = ~/more.inc\n")
	write(filepath.Join(home, "more.inc"), "[color]\n\tui = always\n[include]\n\tpath = deeper/last.inc\n")
	write(filepath.Join(home, "deeper", "last.inc"), "[user]\n\temail = deep@example.com\n")
	git(t, dir, "init", "-q", repo)
	write(filepath.Join(repo, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tpager = from-repo\n")
	paths, err := Discover(repo, GitEnv{})
	must(t, err)
	keys := []string{"core.pager", "color.ui", "pager.snap", "user.name", "user.email", "core.editor"}
	for _, tc := range []struct {
		name string
		env  GitEnv
		vars []string
	}{
		{"every level", GitEnv{Home: home, ConfigSystem: system}, []string{"HOME=" + home, "GIT_CONFIG_SYSTEM=" + system}},
		{"no system", GitEnv{Home: home, ConfigSystem: system, ConfigNoSystem: true}, []string{"HOME=" + home, "GIT_CONFIG_SYSTEM=" + system, "GIT_CONFIG_NOSYSTEM=1"}},
		{"global file", GitEnv{Home: home, ConfigSystem: system, ConfigGlobal: filepath.Join(home, "more.inc")}, []string{"HOME=" + home, "GIT_CONFIG_SYSTEM=" + system, "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "more.inc")}},
		{"git -c", GitEnv{Home: home, ConfigSystem: system, ConfigPairs: []string{"color.ui", "auto", "pager.snap", "less -S"}},
			[]string{"HOME=" + home, "GIT_CONFIG_SYSTEM=" + system, "GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=color.ui", "GIT_CONFIG_VALUE_0=auto", "GIT_CONFIG_KEY_1=pager.snap", "GIT_CONFIG_VALUE_1=less -S"}},
	} {
		got := GitConfig(paths, tc.env, keys...)
		for _, k := range keys {
			cmd := exec.Command("git", "config", "--get", k)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), append([]string{"XDG_CONFIG_HOME=", "GIT_CONFIG_PARAMETERS="}, tc.vars...)...)
			out, err := cmd.Output()
			want, set := strings.TrimSuffix(string(out), "\n"), err == nil
			if v, ok := got[k]; ok != set || v != want {
				t.Errorf("%s: %s = %q (set %v), git says %q (set %v)", tc.name, k, v, ok, want, set)
			}
		}
	}
}

// TestSystemConfigFile: the system config is found where each kind of
// install of git keeps it (Windows paths are written with forward
// slashes, which this test's system takes apart too).
func TestSystemConfigFile(t *testing.T) {
	for git, want := range map[string]string{
		"/usr/bin/git":                                "/etc/gitconfig",
		"/bin/git":                                    "/etc/gitconfig",
		"/usr/local/bin/git":                          "/usr/local/etc/gitconfig",
		"/opt/homebrew/bin/git":                       "/opt/homebrew/etc/gitconfig",
		"C:/Program Files/Git/cmd/git.exe":            "C:/Program Files/Git/etc/gitconfig",
		"C:/Program Files/Git/mingw64/bin/git.exe":    "C:/Program Files/Git/etc/gitconfig",
		"C:/Program Files/Git/clangarm64/bin/git.exe": "C:/Program Files/Git/etc/gitconfig",
		"": "",
	} {
		if got := filepath.ToSlash(SystemConfigFile(git)); got != want {
			t.Errorf("SystemConfigFile(%q) = %q, want %q", git, got, want)
		}
	}
}
