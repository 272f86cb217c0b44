package cmdline

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// The hook and import write every snapshot with its totals, counted as
// its document counts, so that stats, sessions and usage read no
// document: with every stored message deleted from the repository they
// still answer, and answer the same. The hook is fed Claude Code's real
// transcript and its subagents' as the agent writes them, a call after
// each growth; import brings a Codex rollout.
func TestHookAndImportWriteTotalsThatNeedNoDocument(t *testing.T) {
	dir, vars, gitIn, snapIO := snapRepo(t)
	gitIn("", "commit", "-q", "--allow-empty", "-m", "code")
	snap := func(stdin string, args ...string) []byte {
		t.Helper()
		out, _ := snapIO(false, stdin, args...)
		return []byte(out)
	}

	td, _ := filepath.Abs(filepath.Join("..", "..", "..", "testdata"))
	const id = "4d5611e5-241a-462a-8d15-5122611a9569"
	proj := filepath.Join(dir, ".claude-projects")
	type growing struct {
		path string
		data []byte
		done int
	}
	var files []*growing
	for _, f := range []string{id + ".jsonl", id + "/subagents/agent-a2898e3.jsonl", id + "/subagents/agent-acompact-e1f845.jsonl"} {
		data, err := os.ReadFile(filepath.Join(td, "claude-code", f))
		if err != nil {
			t.Fatal(err)
		}
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(proj, f)), 0o755))
		files = append(files, &growing{path: filepath.Join(proj, f), data: data})
	}
	payload := `{"session_id":"` + id + `","transcript_path":"` + filepath.Join(proj, id+".jsonl") + `","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Read"}`
	r := rand.New(rand.NewPCG(7, 7))
	for more := true; more; {
		more = false
		for _, f := range files {
			n := min(len(f.data), f.done+1+r.IntN(len(f.data)/8+1))
			must(t, os.WriteFile(f.path, f.data[:n], 0o644)) // lines cut in the middle too
			f.done = n
			more = more || n < len(f.data)
		}
		snap(payload, "hook", "claude-code")
	}
	snap("", "import", "--from", "codex", filepath.Join(td, "codex-real", "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"))

	// Every snapshot's commit carries what its document counts.
	ctx := context.Background()
	s, err := gitstore.Open(ctx, dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
	must(t, err)
	sessions, err := s.Sessions(ctx)
	if err != nil || len(sessions) != 2 {
		t.Fatalf("%d sessions, %v", len(sessions), err)
	}
	snapshots := 0
	for _, sess := range sessions {
		must(t, s.Walk(ctx, []storage.ID{sess.Tip.ID}, func(e storage.Entry) error {
			snapshots++
			doc, _, err := s.Read(ctx, e.ID)
			if err != nil {
				return err
			}
			want := agent.CountTotals(doc, e.Header.Source)
			want.First, want.Last = want.First.UTC(), want.Last.UTC()
			if !e.Header.Counted || !reflect.DeepEqual(e.Header.Totals, want) {
				t.Errorf("%s #%d: the commit says (counted %v)\n%+v\nthe document counts\n%+v", sess.Name, e.Header.Seq, e.Header.Counted, e.Header.Totals, want)
			}
			return nil
		}))
	}
	s.Close()
	if snapshots < 5 {
		t.Fatalf("%d snapshots: the hook did not record in steps", snapshots)
	}

	reads := [][]string{{"stats", "--json"}, {"stats", id, "--json"}, {"sessions", "--json"}, {"usage", "--daily", "--json"}}
	before := make([][]byte, len(reads))
	for i, args := range reads {
		before[i] = snap("", args...)
	}
	// Take every stored message out of the repository.
	if removeMessages(t, dir, gitIn) == 0 {
		t.Fatal("no message was taken out: the test checks nothing")
	}
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir, getenv: func(k string) string { return vars[k] }}
	if code := e.run(ctx, []string{"show", id}); code == 0 {
		t.Fatal("show read a document whose messages are gone: they were not taken out")
	}
	for i, args := range reads {
		if got := snap("", args...); !bytes.Equal(got, before[i]) {
			t.Errorf("git snap %s, once the messages are gone:\n%s\nbefore:\n%s", strings.Join(args, " "), got, before[i])
		}
	}
}

// A repository an older version wrote, whose snapshots carry no totals,
// is upgraded once: the first stats counts their documents, saying so on
// a terminal, and remembers them; the second reads no document (their
// messages taken out, it answers the same) and says nothing.
func TestOldSnapshotsUpgradedOnce(t *testing.T) {
	dir, _, gitIn, snapIO := snapRepo(t)
	snap := func(terminal bool, args ...string) (string, string) {
		t.Helper()
		return snapIO(terminal, "", args...)
	}
	const sessions = 25
	for i := range sessions {
		doc := `{"messages":[{"role":"user","content":"question ` + strconv.Itoa(i) + `","time":"2026-01-02T10:00:00Z"},` +
			`{"role":"assistant","id":"m` + strconv.Itoa(i) + `","content":"answer","usage":{"input_tokens":` + strconv.Itoa(10+i) + `,"output_tokens":3},"time":"2026-01-02T10:00:0` + strconv.Itoa(i%10) + `Z"}]}`
		must(t, os.WriteFile(filepath.Join(dir, "d.json"), []byte(doc), 0o644))
		snap(false, "save", "--session", "s"+strconv.Itoa(i), "d.json")
	}
	want, _ := snap(false, "stats", "--json")
	// As an older version wrote them: no Snap-Counted, no totals.
	for i := range sessions {
		ref := "refs/snap/s" + strconv.Itoa(i)
		var msg []string
		tree := ""
		for _, l := range strings.Split(gitIn("", "cat-file", "commit", ref), "\n") {
			if v, ok := strings.CutPrefix(l, "tree "); ok && tree == "" {
				tree = v
			}
			if strings.HasPrefix(l, "Snap-") && !strings.HasPrefix(l, "Snap-Session") && !strings.HasPrefix(l, "Snap-Seq") && !strings.HasPrefix(l, "Snap-Messages") {
				continue
			}
			msg = append(msg, l)
		}
		body := strings.Join(msg[slices.Index(msg, "")+1:], "\n")
		gitIn("", "update-ref", ref, gitIn(body, "commit-tree", tree))
		if strings.Contains(gitIn("", "log", "-1", "--format=%B", ref), "Snap-Counted") {
			t.Fatal("the totals are still there")
		}
	}
	got, progress := snap(true, "stats", "--json")
	if got != want || !strings.Contains(progress, "counting 25/25 snapshots written before totals were kept") {
		t.Fatalf("first stats:\n%s\nprogress %q\nwant\n%s", got, progress, want)
	}
	if removeMessages(t, dir, gitIn) != 2*sessions {
		t.Fatal("the messages were not taken out")
	}
	if again, progress := snap(true, "stats", "--json"); again != want || progress != "" {
		t.Errorf("second stats:\n%s\nprogress %q", again, progress)
	}
}

// snapRepo is a new repository, a runner of git in it (fed stdin) and
// one of git snap in process (stderr a terminal or not), with the
// environment both see.
func snapRepo(t *testing.T) (dir string, vars map[string]string, gitIn func(stdin string, args ...string) string, snap func(terminal bool, stdin string, args ...string) (string, string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed")
	}
	dir = t.TempDir()
	vars = map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, ".config"), "GIT_CONFIG_NOSYSTEM": "1", "TZ": "UTC",
		"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}
	gitIn = func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		for k, v := range vars {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	snap = func(terminal bool, stdin string, args ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, dir: dir, errTerminal: terminal, getenv: func(k string) string { return vars[k] }}
		if code := e.run(context.Background(), args); code != 0 {
			t.Fatalf("git snap %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
		}
		return out.String(), errOut.String()
	}
	gitIn("", "init", "-q", "-b", "main")
	return dir, vars, gitIn, snap
}

// removeMessages takes every stored message of every session out of the
// repository (they are loose objects), and says how many it took.
func removeMessages(t *testing.T, dir string, gitIn func(stdin string, args ...string) string) int {
	t.Helper()
	removed := 0
	for _, c := range strings.Fields(gitIn("", "log", "--format=%H", "--glob=refs/snap/*")) {
		for _, blob := range strings.Fields(gitIn("", "ls-tree", "-r", "--object-only", c, "messages")) {
			if os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])) == nil {
				removed++
			}
		}
	}
	return removed
}
