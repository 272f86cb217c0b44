package codestate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644))
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func read(t *testing.T, dir string, changed bool) State {
	t.Helper()
	st, err := Read(context.Background(), Options{Dir: dir, Changed: changed})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestDirtyCountsTrackedChangesOnly(t *testing.T) {
	dir := newRepo(t)
	state := func() bool {
		t.Helper()
		c := read(t, dir, false)
		if c.Commit.String() != git(t, dir, "rev-parse", "HEAD") {
			t.Fatalf("commit %s is not HEAD", c.Commit)
		}
		return c.Dirty
	}
	if state() {
		t.Error("clean work tree reported dirty")
	}
	must(t, os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("x"), 0o644))
	if state() {
		t.Error("an untracked file made it dirty (git describe --dirty ignores them)")
	}
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // changed\n"), 0o644))
	if !state() {
		t.Error("modified tracked file not seen")
	}
	git(t, dir, "add", "main.go")
	if !state() {
		t.Error("staged change not seen")
	}
	git(t, dir, "commit", "-q", "-m", "second")
	if state() {
		t.Error("dirty after commit")
	}
	os.Remove(filepath.Join(dir, "main.go"))
	if !state() {
		t.Error("deleted tracked file not seen")
	}
}

func TestChangedListsWhatCanBeCaptured(t *testing.T) {
	dir := newRepo(t)
	must(t, os.WriteFile(filepath.Join(dir, "gone.go"), []byte("package main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644))
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "more")
	os.Remove(filepath.Join(dir, "gone.go"))
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // edited\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "deep", "new file.txt"), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "debug.log"), []byte("ignored"), 0o644))

	got := read(t, dir, true).Changed
	slices.Sort(got)
	want := []string{"main.go", "sub/deep/new file.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("changed = %q, want %q (deleted and ignored files left out)", got, want)
	}
	if got := read(t, dir, false).Changed; !slices.Equal(got, []string{"main.go"}) {
		t.Errorf("without untracked files: changed = %q, want [main.go]", got)
	}
}

func TestLinkedWorktreeHasItsOwnHead(t *testing.T) {
	dir := newRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	must(t, os.WriteFile(filepath.Join(wt, "new.go"), []byte("package x\n"), 0o644))
	git(t, wt, "add", ".")
	git(t, wt, "commit", "-q", "-m", "on feature")
	c := read(t, wt, false)
	if want := git(t, wt, "rev-parse", "HEAD"); c.Commit.String() != want || c.Dirty || c.Branch != "feature" {
		t.Errorf("code = %+v, want %s on feature, clean (the worktree's HEAD, not main's)", c, want)
	}
}

func TestUnbornHeadAndDetachedHead(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	if c := read(t, dir, false); !c.Commit.IsZero() || c.Branch != "main" {
		t.Errorf("unborn HEAD: %+v", c)
	}
	dir = newRepo(t)
	git(t, dir, "checkout", "-q", "--detach")
	if c := read(t, dir, false); c.Commit.IsZero() || c.Branch != "" {
		t.Errorf("detached HEAD: %+v", c)
	}
}

// core.worktree places the work tree away from the git dir. git handles
// that, and so must the code state.
func TestCoreWorktree(t *testing.T) {
	dir := newRepo(t)
	gitDir := filepath.Join(t.TempDir(), "repo.git")
	if err := os.Rename(filepath.Join(dir, ".git"), gitDir); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "--git-dir", gitDir, "config", "core.worktree", dir)
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("changed\n"), 0o644))
	if c := read(t, gitDir, true); !c.Dirty || c.Commit.IsZero() || !slices.Equal(c.Changed, []string{"main.go"}) {
		t.Errorf("core.worktree: %+v", c)
	}
}

func TestReadWritesNothing(t *testing.T) {
	dir := newRepo(t)
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("changed\n"), 0o644))
	index := filepath.Join(dir, ".git", "index")
	before, _ := os.Stat(index)
	read(t, dir, true)
	after, _ := os.Stat(index)
	if !before.ModTime().Equal(after.ModTime()) {
		t.Error("reading the code state rewrote the index (an optional lock was taken)")
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	for _, in := range []string{
		"1 M. N... 100644\x00",                    // too few fields
		"# branch.oid " + strings.Repeat("a", 64), // SHA-256
		"x what\x00",
	} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
}

func TestNoGit(t *testing.T) {
	_, err := Read(context.Background(), Options{Dir: t.TempDir(), Git: "git-snap-no-such-git"})
	if err != ErrNoGit {
		t.Errorf("err = %v, want ErrNoGit", err)
	}
}

// must fails the test immediately if a setup step fails.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// gitAllowFail runs git and returns its output whatever its exit status
// (git check-ignore exits 1 when nothing is ignored).
func gitAllowFail(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}
