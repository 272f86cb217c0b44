//go:build linux

package cmdline

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killCorpus writes n Claude Code sessions made from the real ones in
// testdata, each under its own id, and the real session that has
// subagents, with them; it returns the projects folder.
func killCorpus(t *testing.T, dir string, n int) string {
	t.Helper()
	projects := filepath.Join(dir, "projects")
	app := filepath.Join(projects, "app")
	src, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "claude-code"))
	must(t, err)
	must(t, os.MkdirAll(app, 0o777))
	ids := map[string]string{
		"short.jsonl":      "55604662-cf2a-4331-851a-ec234028f8ca",
		"tool_heavy.jsonl": "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
		"subagent.jsonl":   "491e126e-1e71-469c-ade2-fcc8af567c74",
	}
	names := []string{"short.jsonl", "tool_heavy.jsonl", "subagent.jsonl"}
	for i := range n {
		raw, err := os.ReadFile(filepath.Join(src, names[i%3]))
		must(t, err)
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		data := bytes.ReplaceAll(raw, []byte(ids[names[i%3]]), []byte(id))
		must(t, os.WriteFile(filepath.Join(app, id+".jsonl"), data, 0o666))
	}
	const parent = "4d5611e5-241a-462a-8d15-5122611a9569"
	run(t, dir, "cp", "-r", filepath.Join(src, parent+".jsonl"), filepath.Join(src, parent), app)
	return projects
}

// TestImportKilledAtRandomPointsEndsTheSame kills an import of many
// sessions (several packs of a small size) with SIGKILL at random
// points, and checks that the repository is valid after each kill, that
// every session there is whole (at the very snapshot an uninterrupted
// import makes), and that importing again ends with the same sessions
// as the uninterrupted import, leaving no temporary file behind.
func TestImportKilledAtRandomPointsEndsTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	projects := killCorpus(t, dir, 45)
	importArgs := []string{"import", "--from", "claude-code", "--no-progress", "--pack-bytes", "150000", projects}

	ref := filepath.Join(dir, "ref")
	run(t, dir, "git", "init", "-q", ref)
	start := time.Now()
	run(t, ref, bin, importArgs...)
	whole := time.Since(start)
	want := snapRefs(t, ref)
	if n := strings.Count(want, "\n") + 1; n != 46 {
		t.Fatalf("the uninterrupted import made %d sessions, want 46:\n%s", n, want)
	}
	if packs, _ := filepath.Glob(filepath.Join(ref, ".git", "objects", "pack", "pack-*.pack")); len(packs) < 3 {
		t.Fatalf("%d packs: the kills would not fall between packs", len(packs))
	}

	rounds := 2
	if os.Getenv("GIT_SNAP_LONG_TESTS") != "" {
		rounds = 40
	}
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	killedMidway := 0
	for r := range rounds {
		repo := filepath.Join(dir, fmt.Sprintf("r%d", r))
		run(t, dir, "git", "init", "-q", repo)
		after := time.Duration(rnd.Int64N(int64(whole)))
		cmd := exec.Command(bin, importArgs...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo, "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com")
		must(t, cmd.Start())
		time.Sleep(after)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		run(t, repo, "git", "fsck", "--strict", "--no-progress")
		got := snapRefs(t, repo)
		for _, line := range strings.Split(got, "\n") {
			if line != "" && !strings.Contains(want+"\n", line+"\n") {
				t.Fatalf("round %d, killed after %v: a session not as the whole import makes it:\n%s", r, after, line)
			}
		}
		if got != "" && got != want {
			killedMidway++
		}
		run(t, repo, bin, importArgs...)
		run(t, repo, "git", "fsck", "--strict", "--no-progress")
		if again := snapRefs(t, repo); again != want {
			t.Fatalf("round %d, killed after %v: imported again, the sessions differ from an uninterrupted import:\n%s\nwant:\n%s", r, after, again, want)
		}
		if temps, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "pack", "tmp_*")); len(temps) > 0 {
			t.Errorf("round %d: temporary files left: %v", r, temps)
		}
	}
	t.Logf("%d of %d kills fell between the first pack and the last", killedMidway, rounds)
}

// snapRefs lists the session refs of a repository with their commits.
func snapRefs(t *testing.T, repo string) string {
	return run(t, repo, "git", "for-each-ref", "--format=%(objectname) %(refname)", "refs/snap/")
}
