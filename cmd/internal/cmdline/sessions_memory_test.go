package cmdline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/internal/heapwatch"
	"github.com/git-snap/git-snap/storage"
)

// sessionsMemoryChild names, in the environment of the child process
// the sessions memory test runs, the repository it lists and whether
// as JSON.
const sessionsMemoryChild = "GIT_SNAP_SESSIONS_MEMORY_CHILD"

// A list of sessions keeps a few hundred bytes a session, the values of
// its line, not every tip's header: sessions held each tip's whole
// header twice, the commit message besides, and every row of output
// before it wrote one (263 MB resident at 100k sessions, 420 MB with
// --json). Here a child process lists 10,000 sessions, and one, as a
// table and as JSON, with the collector kept tight, and samples its
// heap; the difference must stay under 1 KiB a session (it is 650 to
// 760 bytes; it was 2 KB with --json).
func TestSessionsListInBoundedMemory(t *testing.T) {
	if env := os.Getenv(sessionsMemoryChild); env != "" {
		sessionsForMemory(t, env)
		return
	}
	if testing.Short() {
		t.Skip("writes 10,000 commits")
	}
	const n = 10000
	one, many := manySessionsRepo(t, 1), manySessionsRepo(t, n)
	for _, form := range []string{"table", "json"} {
		base := heapwatch.InChild(t, "TestSessionsListInBoundedMemory", sessionsMemoryChild+"="+one+"|"+form)
		peak := heapwatch.InChild(t, "TestSessionsListInBoundedMemory", sessionsMemoryChild+"="+many+"|"+form)
		per := (peak - base) / n
		t.Logf("%s: peak heap %.1f MiB for 1 session, %.1f MiB for %d: %d bytes a session", form, mib(base), mib(peak), n, per)
		if per > 1<<10 {
			t.Errorf("sessions as a %s kept %d bytes a session, over 1 KiB", form, per)
		}
	}
}

// manySessionsRepo is a repository of n sessions of one snapshot each,
// copies by git fast-import of one the store saved, their refs packed.
func manySessionsRepo(t *testing.T, n int) string {
	t.Helper()
	s, paths := openEmpty(t)
	doc := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hello"}}}
	if _, err := s.Save(context.Background(), doc, storage.SaveOptions{Session: "seed"}); err != nil {
		t.Fatal(err)
	}
	git := func(stdin []byte, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", paths.WorkTree}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	msg := strings.TrimRight(git(nil, "log", "-1", "--format=%B", "refs/snap/seed"), "\n") + "\n"
	var tree strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(git(nil, "ls-tree", "refs/snap/seed")), "\n") {
		meta, name, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta) // mode, type, id
		fmt.Fprintf(&tree, "M %s %s %s\n", f[0], f[2], name)
	}
	var in bytes.Buffer
	for i := range n - 1 { // the seed is the nth
		name := fmt.Sprintf("s%06d", i)
		m := strings.Replace(msg, "Snap-Session: seed\n", "Snap-Session: "+name+"\n", 1)
		fmt.Fprintf(&in, "commit refs/snap/%s\ncommitter A <a@example.com> %d +0000\ndata %d\n%s%s\n", name, 1767225600+i, len(m), m, tree.String())
	}
	git(in.Bytes(), "fast-import", "--quiet")
	git(nil, "pack-refs", "--all")
	return paths.WorkTree
}

// sessionsForMemory is the child: it runs git snap sessions on the
// repository env names, as a table or as JSON, and prints the largest
// heap it sampled meanwhile.
func sessionsForMemory(t *testing.T, env string) {
	dir, form, _ := strings.Cut(env, "|")
	ctx := context.Background()
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg, err := config.Load(config.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	d := &deps{repo: s, paths: s.Paths(), cfg: cfg, out: io.Discard, errOut: io.Discard, dir: dir, workDir: dir}
	peak, err := heapwatch.Peak(func() error {
		return runSessions(ctx, d, sessionsOptions{JSON: form == "json"})
	})
	if err != nil {
		t.Fatal(err)
	}
	heapwatch.Report(peak)
}
