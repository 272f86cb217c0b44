package cmdline

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
)

// replayRealSession records the long real Claude Code session through the
// hook, as the agent wrote it, into a new repository (testdocs.Replay):
// the files it edits start as its Reads showed them, committed by a
// person; each Edit and Write is made to the work tree when the
// transcript shows its result, a hook call after it; its one commit git
// took is made when its result comes. It returns the repository and git
// and git snap runners in it.
func replayRealSession(t *testing.T) (dir string, gitIn func(stdin string, args ...string) string, snap func(args ...string) string) {
	t.Helper()
	dir, _, gitIn, snapIO := snapRepo(t)
	snap = func(args ...string) string {
		t.Helper()
		out, _ := snapIO(false, "", args...)
		return out
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "claude-code", testdocs.RealSession+".jsonl"))
	must(t, err)
	r := testdocs.NewReplay(data, testdocs.RealProject)
	for path, content := range r.Start {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644))
	}
	gitIn("", "add", "-A")
	gitIn("", "commit", "-q", "-m", "the project before the session")
	transcript := filepath.Join(t.TempDir(), testdocs.RealSession+".jsonl") // outside the work tree: the agent's commit takes everything
	err = r.Run(dir, func(st testdocs.ReplayStep) error {
		if err := os.WriteFile(transcript, st.Transcript, 0o644); err != nil {
			return err
		}
		payload := `{"session_id":"` + testdocs.RealSession + `","transcript_path":"` + transcript + `","cwd":"` + dir + `","hook_event_name":"` + st.Event + `","tool_name":"` + st.Tool + `"}`
		snapIO(false, payload, "hook", "claude-code")
		return nil
	}, func(msg string) error {
		gitIn("", "add", "-A")
		gitIn("", "commit", "-q", "-m", msg)
		return nil
	})
	must(t, err)
	return dir, gitIn, snap
}

// The long real session in testdata, recorded through the hook as the
// agent wrote it: blame tells each line of a file it wrote, rewrote
// whole a turn later, and a person then changed, as the transcript
// says, line by line (testdata/blame/transcript_computers.txt, written
// by reading the transcript: its Write of the file in turn 1, its Edit
// adding the @moduledoc, its Write of the whole file in turn 2).
func TestBlameRealSession(t *testing.T) {
	dir, gitIn, snap := replayRealSession(t)
	const file = "lib/spotter_web/live/transcript_computers.ex"
	path := filepath.Join(dir, file)
	old, err := os.ReadFile(path)
	must(t, err)
	edited := strings.Replace(string(old), "depends_on([:messages, :session_cwd])", "depends_on([:session_cwd, :messages])", 1)
	must(t, os.WriteFile(path, []byte(edited), 0o644))
	gitIn("", "commit", "-q", "-am", "a person reorders the inputs")

	got := snap("blame", file)
	want, err := os.ReadFile(filepath.Join("testdata", "blame", "transcript_computers.txt"))
	must(t, err)
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		g, w := "", ""
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		re := regexp.MustCompile(`^` + strings.ReplaceAll(regexp.QuoteMeta(w), regexp.QuoteMeta("{id}"), "[0-9a-f]+") + `$`)
		if !re.MatchString(g) || i >= len(gotLines) || i >= len(wantLines) {
			t.Fatalf("line %d:\n got %q\nwant %q\nwhole:\n%s", i+1, g, w, got)
		}
	}
}
