//go:build linux

package refwatch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// repo is a new repository with one commit, and a git runner in it.
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

// moved waits for a signal, failing after 10 s: a signal always comes,
// so the wait never decides the result.
func moved(t *testing.T, w *Watch, what string) {
	t.Helper()
	select {
	case <-w.Moved():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no move signalled", what)
	}
}

// still fails if a signal comes within a while: it can pass wrongly on
// a slow machine, never fail wrongly.
func still(t *testing.T, w *Watch, what string) {
	t.Helper()
	select {
	case <-w.Moved():
		t.Fatalf("%s: a move was signalled", what)
	case <-time.After(200 * time.Millisecond):
	}
}

// starter starts a watch one way.
type starter func(ctx context.Context, commonDir string, trees ...string) (*Watch, error)

// eachWay runs a test with a watch that the system notifies (inotify
// here) and with one that polls every 20 ms, as on macOS.
func eachWay(t *testing.T, test func(t *testing.T, start starter)) {
	t.Run("notified", func(t *testing.T) {
		test(t, func(ctx context.Context, common string, trees ...string) (*Watch, error) {
			return startNotify(ctx, common, trees)
		})
	})
	t.Run("polling", func(t *testing.T) {
		test(t, func(ctx context.Context, common string, trees ...string) (*Watch, error) {
			return startPolling(ctx, common, 20*time.Millisecond, trees)
		})
	})
}

// watching starts a watch of trees in dir's repository until the test
// ends.
func watching(t *testing.T, start starter, dir string, trees ...string) *Watch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := start(ctx, filepath.Join(dir, ".git"), trees...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close(); cancel() })
	return w
}

// Each way git moves a session ref is signalled, a folder made under
// the tree (and the tree itself, not there at the start) is watched from
// then on, and refs outside the tree are not signalled.
func TestSignalsWhatGitMoves(t *testing.T) { eachWay(t, testSignalsWhatGitMoves) }

func testSignalsWhatGitMoves(t *testing.T, start starter) {
	dir, git := repo(t)
	head := git("rev-parse", "HEAD")
	w := watching(t, start, dir, "refs/snap")

	git("update-ref", "refs/heads/other", head)
	git("tag", "v1")
	still(t, w, "a branch and a tag")

	for _, step := range []struct {
		what string
		args []string
	}{
		{"the tree made with its first ref", []string{"update-ref", "refs/snap/a", head}},
		{"a ref in a folder made under the tree", []string{"update-ref", "refs/snap/team/b", head}},
		{"a ref moved in that folder", []string{"update-ref", "refs/snap/team/b", head + "^{tree}"}},
		{"refs packed", []string{"pack-refs", "--all"}},
		{"a packed ref deleted", []string{"update-ref", "-d", "refs/snap/a"}},
	} {
		git(step.args...)
		moved(t, w, step.what)
		// One signal however many events one command made.
		select {
		case <-w.Moved():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Ending the context ends the watch; Close after it returns.
func TestEndsWithContext(t *testing.T) { eachWay(t, testEndsWithContext) }

func testEndsWithContext(t *testing.T, start starter) {
	dir, _ := repo(t)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := start(ctx, filepath.Join(dir, ".git"), "refs/snap")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch went on after its context ended")
	}
	_ = w.Close()
}

// A common dir that is not there is an error that names it.
func TestMissingRepository(t *testing.T) { eachWay(t, testMissingRepository) }

func testMissingRepository(t *testing.T, start starter) {
	common := filepath.Join(t.TempDir(), "nothing", ".git")
	_, err := start(context.Background(), common, "refs/snap")
	if err == nil || !strings.Contains(err.Error(), common) {
		t.Fatalf("err = %v, want one naming %s", err, common)
	}
}

// A refs tree holding a symbolic link to a folder elsewhere and a FIFO
// (planted by hand or by another tool): the watch starts without
// opening the FIFO, and what changes in the linked folder, which is no
// ref of this repository, is not watched.
func TestPlantedLinkAndFIFO(t *testing.T) { eachWay(t, testPlantedLinkAndFIFO) }

func testPlantedLinkAndFIFO(t *testing.T, start starter) {
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
	w := watching(t, start, dir, "refs/snap")
	if err := os.WriteFile(filepath.Join(elsewhere, "x"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	still(t, w, "a file written in a linked folder elsewhere")
	git("update-ref", "refs/snap/a", head+"^{tree}")
	moved(t, w, "a ref moved beside them")
}

// A tree two folders below refs (a refs.prefix such as refs/ai/snap/),
// none of them there at the start: the first session's ref makes both,
// and is signalled; so are refs written in the tree after.
func TestNestedTreeMadeAfterStart(t *testing.T) { eachWay(t, testNestedTreeMadeAfterStart) }

func testNestedTreeMadeAfterStart(t *testing.T, start starter) {
	dir, git := repo(t)
	head := git("rev-parse", "HEAD")
	w := watching(t, start, dir, "refs/ai/snap")
	git("update-ref", "refs/ai/other", head)
	still(t, w, "a ref beside the tree")
	git("update-ref", "refs/ai/snap/a", head)
	moved(t, w, "the tree made with its first ref")
	git("update-ref", "refs/ai/snap/a", head+"^{tree}")
	moved(t, w, "a ref moved in the tree")
	// The refs deleted and their folders removed (git leaves refs/ai).
	git("update-ref", "-d", "refs/ai/other")
	git("update-ref", "-d", "refs/ai/snap/a")
	moved(t, w, "the last ref deleted")
	if err := os.RemoveAll(filepath.Join(dir, ".git", "refs", "ai")); err != nil {
		t.Fatal(err)
	}
	select { // the removal's own signal
	case <-w.Moved():
	case <-time.After(200 * time.Millisecond):
	}
	git("update-ref", "refs/ai/snap/team/b", head)
	moved(t, w, "the tree made again, with a folder in it")
	git("update-ref", "refs/ai/snap/team/b", head+"^{tree}")
	moved(t, w, "a ref moved in the folder made again")
}

// settle takes the signals the events of one step left, so that the
// next step's signal is its own.
func settle(w *Watch) {
	for {
		select {
		case <-w.Moved():
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}

// The tree renamed away and back (by hand, or a tool moving sessions
// aside), then refs written in it and in a folder made under it, and
// git gc: each is signalled.
func TestTreeRenamedAwayAndBack(t *testing.T) { eachWay(t, testTreeRenamedAwayAndBack) }

func testTreeRenamedAwayAndBack(t *testing.T, start starter) {
	dir, git := repo(t)
	head := git("rev-parse", "HEAD")
	git("update-ref", "refs/snap/a", head)
	w := watching(t, start, dir, "refs/snap")
	refs := filepath.Join(dir, ".git", "refs")
	for _, step := range []struct {
		what string
		do   func()
	}{
		{"the tree renamed away", func() { must(t, os.Rename(filepath.Join(refs, "snap"), filepath.Join(refs, "aside"))) }},
		{"the tree renamed back", func() { must(t, os.Rename(filepath.Join(refs, "aside"), filepath.Join(refs, "snap"))) }},
		{"a ref moved in the tree renamed back", func() { git("update-ref", "refs/snap/a", head+"^{tree}") }},
		{"a ref in a folder made in the tree renamed back", func() { git("update-ref", "refs/snap/team/b", head) }},
		{"git gc", func() { git("gc", "-q") }},
	} {
		step.do()
		moved(t, w, step.what)
		settle(w)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// openFiles counts this process's open files.
func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd to count open files in")
	}
	return len(entries)
}

// At 10k sessions a watch holds a few files open, not one a ref: kqueue
// would hold 10k, past macOS's default limit of 256, which is why a
// watch there polls instead. A move among them is still signalled.
func TestTenThousandSessions(t *testing.T) { eachWay(t, testTenThousandSessions) }

func testTenThousandSessions(t *testing.T, start starter) {
	dir, git := repo(t)
	head := git("rev-parse", "HEAD")
	tree := filepath.Join(dir, ".git", "refs", "snap")
	must(t, os.MkdirAll(tree, 0o755))
	for i := range 10000 {
		must(t, os.WriteFile(filepath.Join(tree, fmt.Sprintf("session-%05d", i)), []byte(head+"\n"), 0o644))
	}
	before := openFiles(t)
	w := watching(t, start, dir, "refs/snap", "refs/remotes")
	settle(w)
	if n := openFiles(t) - before; n > 4 {
		t.Errorf("the watch holds %d files open", n)
	}
	git("update-ref", "refs/snap/session-05000", head+"^{tree}")
	moved(t, w, "a ref moved among 10k")
}
