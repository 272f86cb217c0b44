package cmdline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// built is the git-snap binary the process tests run, with the hook
// program beside it as it is installed, compiled by the first of them to
// need it and removed when the tests end (see TestMain): a build takes
// seconds, a handful of them most of these tests' time.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// buildBinary compiles git-snap (and git-snap-hook beside it) once for
// tests that run it as a process.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "git-snap-test-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "git-snap")
		if out, err := exec.Command("go", "build", "-o", built.dir+string(filepath.Separator), "../../git-snap", "../../git-snap-hook").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// removeBuilt removes the binary buildBinary compiled, if any.
func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// rounds is how many rounds a long process test runs: short by default,
// enough to take every path in seconds; full when $GIT_SNAP_LONG_TESTS
// is set (as .ci/run sets it); or what the variable env names says, when
// env is not empty and it holds a positive number.
func rounds(env string, short, full int) int {
	if n, err := strconv.Atoi(os.Getenv(env)); env != "" && err == nil && n > 0 {
		return n
	}
	if os.Getenv("GIT_SNAP_LONG_TESTS") != "" {
		return full
	}
	return short
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestProcessesRace runs 8 git-snap processes at once, saving into one
// session and into one session each, while git update-ref, git pack-refs
// --all and git gc --auto run beside them. Every snapshot must land, in
// one unbroken chain per session, no ref may ever be read empty, and
// git fsck must be clean. Each process saves 4 times, 25 with
// GIT_SNAP_LONG_TESTS set; GIT_SNAP_STRESS_SAVES sets another number (the
// long run in CONTRIBUTING.md uses 200).
func TestProcessesRace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	saves := rounds("GIT_SNAP_STRESS_SAVES", 4, 25)
	const writers = 8
	bin := buildBinary(t)
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q", "-b", "main")
	run(t, dir, "git", "commit", "-q", "--allow-empty", "-m", "code")
	run(t, dir, "git", "config", "gc.auto", "50") // let gc --auto really pack
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var bg sync.WaitGroup
	var emptyReads, gitRuns atomic.Int64
	background := func(f func()) {
		bg.Add(1)
		go func() {
			defer bg.Done()
			for ctx.Err() == nil {
				f()
			}
		}()
	}
	background(func() { runQuiet(dir, "git", "pack-refs", "--all"); gitRuns.Add(1) })
	background(func() { runQuiet(dir, "git", "gc", "--auto", "--quiet"); gitRuns.Add(1) })
	background(func() {
		runQuiet(dir, "git", "update-ref", "refs/heads/side", "HEAD")
		runQuiet(dir, "git", "update-ref", "-d", "refs/heads/side")
		gitRuns.Add(1)
	})
	background(func() { // a reader: once the shared ref exists, it never reads empty
		existed := started(dir) // before the read: a read begun earlier may rightly miss it
		out, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "refs/snap/shared").Output()
		if err == nil && len(bytes.TrimSpace(out)) != 40 || err != nil && existed {
			emptyReads.Add(1)
		}
	})

	var wg sync.WaitGroup
	errs := make(chan error, writers*2)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range saves {
				for _, session := range []string{"shared", fmt.Sprintf("own-%d", w)} {
					doc := fmt.Sprintf(`{"writer":%d,"save":%d,"messages":[{"id":"%d-%d","role":"user","content":"x"}]}`, w, i, w, i)
					cmd := exec.Command(bin, "save", "--session", session, "--label", fmt.Sprintf("w%d-%d", w, i))
					cmd.Dir, cmd.Stdin = dir, strings.NewReader(doc)
					if out, err := cmd.CombinedOutput(); err != nil {
						errs <- fmt.Errorf("writer %d save %d: %v\n%s", w, i, err, out)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	bg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := emptyReads.Load(); n > 0 {
		t.Errorf("refs/snap/shared was read empty or missing %d times", n)
	}
	checkChain(t, dir, "shared", writers*saves)
	for w := range writers {
		checkChain(t, dir, fmt.Sprintf("own-%d", w), saves)
	}
	labels := run(t, dir, "git", "log", "--format=%s", "snap/shared")
	seen := map[string]bool{}
	for _, l := range strings.Split(labels, "\n") {
		seen[l] = true
	}
	if len(seen) != writers*saves {
		t.Errorf("%d distinct snapshots on the shared session, want %d", len(seen), writers*saves)
	}
	run(t, dir, "git", "fsck", "--strict", "--no-dangling")
	t.Logf("%d writers × %d saves × 2 sessions; %d git commands ran beside them", writers, saves, gitRuns.Load())
}

// started reports whether the shared session exists yet, as git sees it.
func started(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git", "snap", "cache", "tip", "refs%snap%shared", "state"))
	return err == nil
}

func runQuiet(dir string, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	_ = cmd.Run() // failures (a lock held by a writer) are expected and harmless
	time.Sleep(time.Millisecond)
}

// checkChain checks that a session's chain holds n snapshots numbered
// n, n-1, …, 1 by their Snap-Seq trailers, each the parent of the next.
func checkChain(t *testing.T, dir, session string, n int) {
	t.Helper()
	out := run(t, dir, "git", "log", "--first-parent", "--format=%(trailers:key=Snap-Seq,valueonly)", "snap/"+session)
	var seqs []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			seqs = append(seqs, l)
		}
	}
	if len(seqs) != n {
		t.Fatalf("session %s: %d snapshots, want %d", session, len(seqs), n)
	}
	for i, s := range seqs {
		if s != strconv.Itoa(n-i) {
			t.Fatalf("session %s: snapshot %d from the tip has Snap-Seq %s, want %d", session, i, s, n-i)
		}
	}
}
