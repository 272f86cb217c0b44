package cmdline

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// crashDoc is the document of save n: m messages, most of them the same
// as earlier saves', so that saves take from one to tens of milliseconds.
func crashDoc(n, m int) map[string]any {
	msgs := make([]any, m)
	for j := range msgs {
		msgs[j] = map[string]any{"id": fmt.Sprint(j), "role": "user", "content": fmt.Sprintf("message %d %s", j, strings.Repeat("x", 200))}
	}
	return map[string]any{"n": n, "messages": msgs}
}

// TestSavesKilledAtRandomMoments kills saves with SIGKILL at random
// moments and checks after each kill that the repository is valid, that
// the session's ref names a complete snapshot (one of those saved), and
// that the next save works: 20 kills, 200 with GIT_SNAP_LONG_TESTS set;
// GIT_SNAP_CRASH_KILLS sets another number.
func TestSavesKilledAtRandomMoments(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	kills := rounds("GIT_SNAP_CRASH_KILLS", 20, 200)
	bin := buildBinary(t)
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q", "-b", "main")
	run(t, dir, "git", "commit", "-q", "--allow-empty", "-m", "code")
	rng := rand.New(rand.NewPCG(7, 7))
	saved := map[int]map[string]any{}
	interrupted, lockWarnings := 0, 0
	for i := range kills {
		n := 2 * i
		doc := crashDoc(n, 1+rng.IntN(1500))
		saved[n] = doc
		data, _ := snapshot.Marshal(doc)
		cmd := exec.Command(bin, "save", "--session", "crash")
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(data)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(12000)) * time.Microsecond)
		_ = cmd.Process.Kill() // it may have finished already: Wait says which
		if err := cmd.Wait(); err != nil {
			interrupted++
		}
		// The repository is valid: dangling objects are allowed, nothing else.
		run(t, dir, "git", "fsck", "--strict", "--no-progress")
		// The ref, if any, names a complete snapshot that was saved.
		if _, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "refs/snap/crash").Output(); err == nil {
			out := run(t, dir, bin, "restore", "crash")
			got, err := snapshot.ParseDocument([]byte(out), snapshot.Limits{})
			if err != nil {
				t.Fatalf("kill %d: the tip does not read back: %v", i, err)
			}
			k, _ := got["n"].(snapshot.Number).Int64()
			if !snapshot.Equal(got, saved[int(k)]) {
				t.Fatalf("kill %d: the tip holds a document that was never saved (n=%d)", i, k)
			}
		}
		// The next save works, whatever the killed one left behind.
		next := crashDoc(n+1, 3)
		saved[n+1] = next
		data, _ = snapshot.Marshal(next)
		cmd = exec.Command(bin, "save", "--session", "crash")
		cmd.Dir, cmd.Stdin, cmd.Stderr = dir, bytes.NewReader(data), &stderr
		if out, err := cmd.Output(); err != nil {
			t.Fatalf("kill %d: the next save failed: %v\n%s%s", i, err, out, stderr.String())
		}
		if strings.Contains(stderr.String(), "removed") {
			lockWarnings++
		}
	}
	t.Logf("%d saves killed (%d before they finished), %d stale locks cleared with a warning", kills, interrupted, lockWarnings)
	if interrupted == 0 {
		t.Error("no save was interrupted: the kills came too late to test anything")
	}
}

// TestPrunesKilledAndRacingKeepCheckpoints runs prunes six at a time,
// staggered, on a growing session with checkpoints, killing two of each
// six at a random moment; git gc --prune=now must then find every checkpoint
// still naming a snapshot (a prune killed between moving the session's
// ref and its tags, or racing another, used to delete them). It runs 3
// rounds, 12 with GIT_SNAP_LONG_TESTS set.
func TestPrunesKilledAndRacingKeepCheckpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q", "-b", "main")
	run(t, dir, "git", "commit", "-q", "--allow-empty", "-m", "code")
	rng := rand.New(rand.NewPCG(3, 3))
	save := func(n int) {
		data, _ := snapshot.Marshal(crashDoc(n, 20))
		cmd := exec.Command(bin, "save", "--session", "p")
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("save: %v\n%s", err, out)
		}
	}
	var names []string
	for round := range rounds("", 3, 12) {
		for i := range 4 {
			save(round*10 + i)
		}
		name := fmt.Sprintf("cp%d", round)
		run(t, dir, bin, "checkpoint", name, "p~1")
		names = append(names, name)
		var cmds []*exec.Cmd
		for range 6 { // staggered, so that one reads what another is rewriting
			cmd := exec.Command(bin, "prune", "p", "--keep-last", "3")
			cmd.Dir = dir
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
			time.Sleep(time.Duration(rng.IntN(4000)) * time.Microsecond)
		}
		time.Sleep(time.Duration(rng.IntN(20000)) * time.Microsecond)
		_ = cmds[0].Process.Kill()
		_ = cmds[3].Process.Kill()
		for _, cmd := range cmds {
			_ = cmd.Wait() // killed, or lost the race: either is allowed
		}
		run(t, dir, "git", "fsck", "--strict", "--no-progress")
		clearKilledLocks(t, bin, dir)
	}
	run(t, dir, "git", "gc", "-q", "--prune=now")
	run(t, dir, "git", "fsck", "--strict", "--no-progress")
	for _, name := range names {
		if out := run(t, dir, bin, "show", "snap/p/"+name); !strings.Contains(out, "message") {
			t.Errorf("checkpoint %s shows %.200q", name, out)
		}
	}
}

// clearKilledLocks removes the ref locks a killed writer left, as git's
// own killed processes leave theirs (and git gc then refuses to run),
// once git snap doctor has named each, as it tells the user to.
func clearKilledLocks(t *testing.T, bin, dir string) {
	t.Helper()
	var locks []string
	_ = filepath.WalkDir(filepath.Join(dir, ".git", "refs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".lock") {
			locks = append(locks, path)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(dir, ".git", "packed-refs.lock")); err == nil {
		locks = append(locks, filepath.Join(dir, ".git", "packed-refs.lock"))
	}
	if len(locks) == 0 {
		return
	}
	cmd := exec.Command(bin, "doctor")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	for _, l := range locks {
		if !strings.Contains(string(out), l) {
			t.Errorf("a killed writer left %s, which doctor does not name:\n%s", l, out)
		}
		_ = os.Remove(l)
	}
}
