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
