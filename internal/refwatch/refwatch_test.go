//go:build linux

package refwatch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// repo creates a repository with one commit. It returns the
// repository's directory and a function that runs git in it.
func repo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "one")
	return dir, git
}

// waitSignal waits for a change signal and fails the test after 10 s.
// The signal is expected to arrive, so the timeout never decides the
// result on a working watch.
func waitSignal(t *testing.T, w *Watch, what string) {
	t.Helper()
	select {
	case <-w.Moved():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no change signalled", what)
	}
}

// noSignal fails the test if a change signal arrives within 200 ms. On
// a slow machine it can pass when it should fail, but it never fails
// when it should pass.
func noSignal(t *testing.T, w *Watch, what string) {
	t.Helper()
	select {
	case <-w.Moved():
		t.Fatalf("%s: a change was signalled", what)
	case <-time.After(200 * time.Millisecond):
	}
}

// startWatch watches trees in dir's repository until the test ends.
func startWatch(t *testing.T, dir string, trees ...string) *Watch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := Start(ctx, filepath.Join(dir, ".git"), trees...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close(); cancel() })
	return w
}

// Every way git changes a session ref is signalled. A directory created
// under the tree, and the tree itself when it does not exist at the
// start, is watched from then on. Refs outside the tree are not
// signalled.
func TestSignalsWhatGitMoves(t *testing.T) {
	dir, git := repo(t)
	head := git("rev-parse", "HEAD")
	w := startWatch(t, dir, "refs/snap")

	git("update-ref", "refs/heads/other", head)
	git("tag", "v1")
	noSignal(t, w, "a branch and a tag")

	for _, step := range []struct {
		what string
		args []string
	}{
		{"the tree created with its first ref", []string{"update-ref", "refs/snap/a", head}},
		{"a ref in a directory created under the tree", []string{"update-ref", "refs/snap/team/b", head}},
		{"a ref updated in that directory", []string{"update-ref", "refs/snap/team/b", head + "^{tree}"}},
		{"refs packed", []string{"pack-refs", "--all"}},
		{"a packed ref deleted", []string{"update-ref", "-d", "refs/snap/a"}},
	} {
		git(step.args...)
		waitSignal(t, w, step.what)
		// One command may cause several events but leaves at most one
		// pending signal; drain it.
		select {
		case <-w.Moved():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Cancelling the context stops the watch, and a later Close returns.
func TestEndsWithContext(t *testing.T) {
	dir, _ := repo(t)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := Start(ctx, filepath.Join(dir, ".git"), "refs/snap")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch kept running after its context was cancelled")
	}
	_ = w.Close()
}

// A common dir that does not exist is an error that names it.
func TestMissingRepository(t *testing.T) {
	common := filepath.Join(t.TempDir(), "nothing", ".git")
	_, err := Start(context.Background(), common, "refs/snap")
	if err == nil || !strings.Contains(err.Error(), common) {
		t.Fatalf("err = %v, want one naming %s", err, common)
	}
}

// A refs tree may hold a symbolic link to a directory elsewhere and a
// FIFO, created by hand or by another tool. The watch starts without
// opening the FIFO, and does not watch the linked directory, which
// holds no refs of this repository.
func TestPlantedLinkAndFIFO(t *testing.T) {
	dir, git := repo(t)
	head := git("rev-parse", "HEAD")
	git("update-ref", "refs/snap/a", head)
	elsewhere := t.TempDir()
	tree := filepath.Join(dir, ".git", "refs", "snap")
	if err := os.Symlink(elsewhere, filepath.Join(tree, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(tree, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, dir, "refs/snap")
	if err := os.WriteFile(filepath.Join(elsewhere, "x"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noSignal(t, w, "a file written in a linked directory elsewhere")
	git("update-ref", "refs/snap/a", head+"^{tree}")
	waitSignal(t, w, "a ref updated next to them")
}

// The tree may sit two directories below refs (a refs.prefix such as
// refs/ai/snap/), with neither directory existing at the start. The
// first session's ref creates both and is signalled, and so are refs
// written in the tree later.
func TestNestedTreeMadeAfterStart(t *testing.T) {
	dir, git := repo(t)
	head := git("rev-parse", "HEAD")
	w := startWatch(t, dir, "refs/ai/snap")
	git("update-ref", "refs/ai/other", head)
	noSignal(t, w, "a ref next to the tree")
	git("update-ref", "refs/ai/snap/a", head)
	waitSignal(t, w, "the tree created with its first ref")
	git("update-ref", "refs/ai/snap/a", head+"^{tree}")
	waitSignal(t, w, "a ref updated in the tree")
	// Delete the refs and remove their directories (git leaves refs/ai).
	git("update-ref", "-d", "refs/ai/other")
	git("update-ref", "-d", "refs/ai/snap/a")
	waitSignal(t, w, "the last ref deleted")
	if err := os.RemoveAll(filepath.Join(dir, ".git", "refs", "ai")); err != nil {
		t.Fatal(err)
	}
	select { // drain the signal caused by the removal
	case <-w.Moved():
	case <-time.After(200 * time.Millisecond):
	}
	git("update-ref", "refs/ai/snap/team/b", head)
	waitSignal(t, w, "the tree created again, with a directory in it")
	git("update-ref", "refs/ai/snap/team/b", head+"^{tree}")
	waitSignal(t, w, "a ref updated in the recreated directory")
}

// drainSignals receives the signals left by one step's events, so that
// the next step's signal comes from that step alone.
func drainSignals(w *Watch) {
	for {
		select {
		case <-w.Moved():
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}

// Each of these is signalled: the tree renamed away and back (by hand,
// or by a tool that moves sessions aside), a ref written in it, a ref
// written in a directory created under it, and git gc.
func TestTreeRenamedAwayAndBack(t *testing.T) {
	dir, git := repo(t)
	head := git("rev-parse", "HEAD")
	git("update-ref", "refs/snap/a", head)
	w := startWatch(t, dir, "refs/snap")
	refs := filepath.Join(dir, ".git", "refs")
	for _, step := range []struct {
		what string
		do   func()
	}{
		{"the tree renamed away", func() { must(t, os.Rename(filepath.Join(refs, "snap"), filepath.Join(refs, "aside"))) }},
		{"the tree renamed back", func() { must(t, os.Rename(filepath.Join(refs, "aside"), filepath.Join(refs, "snap"))) }},
		{"a ref updated in the tree renamed back", func() { git("update-ref", "refs/snap/a", head+"^{tree}") }},
		{"a ref in a directory created in the tree renamed back", func() { git("update-ref", "refs/snap/team/b", head) }},
		{"git gc", func() { git("gc", "-q") }},
	} {
		step.do()
		waitSignal(t, w, step.what)
		drainSignals(w)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
