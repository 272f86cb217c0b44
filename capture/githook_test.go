package capture

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
)

// TestGitHookRunsItsProgram: the post-commit and post-rewrite hooks run
// a program whose path has spaces and quotes, as agent.HookCommand writes
// it; one that is not there is said on stderr, and the commit is made.
func TestGitHookRunsItsProgram(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	prog := filepath.Join(dir, "o'neil & co", "git-snap-hook")
	ran := filepath.Join(dir, "ran")
	if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$@\" >> '" + ran + "'\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(work, ".git", "hooks")
	if _, err := InstallGitHook(hooks, agent.HookCommand(prog, "git")); err != nil {
		t.Fatal(err)
	}
	if cmd, ok := GitHookCommand(hooks); !ok || cmd != agent.HookCommand(prog, "git") {
		t.Errorf("GitHookCommand read %q, %v", cmd, ok)
	}
	git("commit", "-q", "--allow-empty", "-m", "one")
	git("commit", "-q", "--amend", "--allow-empty", "-m", "one again")
	got, err := os.ReadFile(ran)
	if err != nil {
		t.Fatal(err)
	}
	if want := "git post-commit\ngit post-commit\ngit post-rewrite amend\n"; string(got) != want {
		t.Errorf("the hooks ran the program with\n%s, want\n%s", got, want)
	}

	if err := os.Remove(prog); err != nil {
		t.Fatal(err)
	}
	if out := git("commit", "-q", "--allow-empty", "-m", "two"); !strings.Contains(out, "the post-commit hook did not run git-snap (exit 127)") {
		t.Errorf("a hook whose program is gone says %q", out)
	}
}

// TestClimbs: .. and what is below it leave a folder, with either
// system's separator; a name that starts with two dots does not.
func TestClimbs(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		sep  byte
		want bool
	}{
		{"..", '/', true}, {"../x", '/', true}, {"..foo", '/', false}, {"x/..y", '/', false},
		{`..\x`, '\\', true}, {`..\x`, '/', false}, {"..", '\\', true}, {`..foo\x`, '\\', false}, {".", '\\', false},
	} {
		if got := climbs(tc.rel, tc.sep); got != tc.want {
			t.Errorf("climbs(%q, %q) = %v, want %v", tc.rel, tc.sep, got, tc.want)
		}
	}
}

// TestExecutable: the execute bit where files have one; on Windows,
// where they have none, a script's #!.
func TestExecutable(t *testing.T) {
	script, text := []byte("#!/bin/sh\necho hi\n"), []byte("hello\n")
	for _, tc := range []struct {
		windows bool
		mode    os.FileMode
		data    []byte
		want    bool
	}{
		{false, 0o755, text, true}, {false, 0o644, script, false},
		{true, 0o666, script, true}, {true, 0o666, text, false},
	} {
		if got := executable(tc.windows, tc.mode, tc.data); got != tc.want {
			t.Errorf("Windows %v, mode %v, %q: %v, want %v", tc.windows, tc.mode, tc.data, got, tc.want)
		}
	}
}
