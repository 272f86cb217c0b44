package cmdline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/storage"
)

// The tests here call run functions in process, on a real repository
// the library writes, beside the scripts that run the whole binary.

// base is the time of the fixture's first snapshot.
var base = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// fixture makes a repository with two sessions: a, five snapshots ten
// minutes apart from base, checkpoint green on a#3 then moved to a#4;
// b, two snapshots at 11:00 and 11:10. Its deps write to out.
func fixture(t *testing.T) (d *deps, out *bytes.Buffer) {
	t.Helper()
	ctx := context.Background()
	s, paths := openEmpty(t)
	labels := map[string][]string{
		"a": {"start", "PostToolUse Edit", "PostToolUse Bash", "PostToolUse Edit", "Stop"},
		"b": {"start", "Stop"},
	}
	for _, sess := range []string{"a", "b"} {
		for i, label := range labels[sess] {
			at := base.Add(time.Duration(i) * 10 * time.Minute)
			if sess == "b" {
				at = at.Add(time.Hour)
			}
			doc := map[string]any{"messages": []any{map[string]any{"role": "user", "content": fmt.Sprint(sess, i)}}}
			if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: sess, Label: label, Time: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, rev := range []string{"a~2", "a~1"} {
		id, err := s.Resolve(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetCheckpoint(ctx, "green", id, "", true); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(config.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	out = &bytes.Buffer{}
	return &deps{repo: s, paths: paths, cfg: cfg, out: out, errOut: out, dir: paths.WorkTree, workDir: paths.WorkTree}, out
}

// seqs reads log --json output as session#seq, in order.
func seqs(t *testing.T, out []byte) string {
	t.Helper()
	var log render.LogJSON
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	var got []string
	for _, e := range log.Snapshots {
		got = append(got, fmt.Sprintf("%s#%d", e.Session, e.Seq))
	}
	return strings.Join(got, " ")
}

func TestRunLogFilters(t *testing.T) {
	d, out := fixture(t)
	d.errOut = &bytes.Buffer{} // which session log took, when it took one
	at := func(hhmm string) time.Time {
		t, _ := time.Parse("2006-01-02 15:04", "2026-03-02 "+hhmm)
		return t
	}
	for _, tc := range []struct {
		name    string
		session string // the default session
		o       logOptions
		want    string
	}{
		{"no default session: the most recently active", "", logOptions{}, "b#2 b#1"},
		{"the default session", "a", logOptions{}, "a#5 a#4 a#3 a#2 a#1"},
		{"--session over the default", "a", logOptions{Session: "b"}, "b#2 b#1"},
		{"--all over the default", "a", logOptions{All: true}, "b#2 b#1 a#5 a#4 a#3 a#2 a#1"},
		{"REV -n", "", logOptions{Revs: []string{"a"}, Max: 2}, "a#5 a#4"},
		{"REV~N", "", logOptions{Revs: []string{"a~2"}}, "a#3 a#2 a#1"},
		{"--since --until", "", logOptions{All: true, Since: at("10:25"), Until: at("11:05")}, "b#1 a#5 a#4"},
		{"--since is inclusive", "", logOptions{All: true, Since: at("11:10")}, "b#2"},
		{"--label glob", "", logOptions{All: true, Label: "PostToolUse *"}, "a#4 a#3 a#2"},
		{"--label -n", "", logOptions{All: true, Label: "Stop", Max: 1}, "b#2"},
		{"--checkpoint: where it is and was", "b", logOptions{Checkpoint: "green"}, "a#4 a#3"},
		{"--checkpoint within REV", "", logOptions{Revs: []string{"a~2"}, Checkpoint: "green"}, "a#3"},
		{"--checkpoint elsewhere", "", logOptions{Revs: []string{"b"}, Checkpoint: "green"}, ""},
		{"--label --until -n", "", logOptions{All: true, Label: "*Edit", Until: at("10:15"), Max: 5}, "a#2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out.Reset()
			d.session = tc.session
			tc.o.JSON = true
			if err := runLog(context.Background(), d, tc.o); err != nil {
				t.Fatal(err)
			}
			if got := seqs(t, out.Bytes()); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRunLogOneline(t *testing.T) {
	d, out := fixture(t)
	if err := runLog(context.Background(), d, logOptions{Revs: []string{"a~1"}, Max: 2, Oneline: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for i, want := range []string{` a#4 2026-03-02 10:30 (green) PostToolUse Edit`, ` a#3 2026-03-02 10:20 PostToolUse Bash`} {
		if !strings.HasSuffix(lines[i], want) || len(lines[i]) != 12+len(want) {
			t.Errorf("line %d: %q, want an id and %q", i+1, lines[i], want)
		}
	}
	err := runLog(context.Background(), d, logOptions{Revs: []string{"nosuch"}})
	if exitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), `"nosuch"`) {
		t.Errorf("an unknown REV: %v (exit %d)", err, exitCode(err))
	}
}

func TestRunPruneDryRun(t *testing.T) {
	d, out := fixture(t)
	ctx := context.Background()
	before, _ := d.repo.Sessions(ctx)
	o := pruneOptions{PruneOptions: gitstore.PruneOptions{KeepLast: 1, KeepCheckpoints: true, DryRun: true}}
	if err := runPrune(ctx, d, o); err != nil {
		t.Fatal(err)
	}
	if want := "b: kept 1, would remove 1\na: kept 3, would remove 2\n"; out.String() != want {
		t.Errorf("every session:\n%s\nwant:\n%s", out, want)
	}
	out.Reset()
	o.Sessions, o.KeepFirst = []string{"a"}, true
	if err := runPrune(ctx, d, o); err != nil {
		t.Fatal(err)
	}
	if want := "a: kept 4, would remove 1\n"; out.String() != want {
		t.Errorf("a with --keep-first: %q, want %q", out, want)
	}
	after, _ := d.repo.Sessions(ctx)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("a dry run changed the sessions:\n%v\n%v", before, after)
	}
	o.Sessions = []string{"nosuch"}
	if err := runPrune(ctx, d, o); exitCode(err) != 2 {
		t.Errorf("a missing session: %v", err)
	}
}

func TestRunSessionsJSON(t *testing.T) {
	d, out := fixture(t)
	ctx := context.Background()
	if err := runSessions(ctx, d, sessionsOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got render.SessionsJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	tipA, _ := d.repo.Resolve(ctx, "a")
	tipB, _ := d.repo.Resolve(ctx, "b")
	str := func(s string) *string { return &s }
	want := render.SessionsJSON{SchemaVersion: 1, Sessions: []render.SessionJSON{
		{Name: "b", Ref: "refs/snap/b", Snapshots: 2, First: str("2026-03-02T11:00:00.000Z"), Last: str("2026-03-02T11:10:00.000Z"), LastLabel: str("Stop"), Agent: str("cli"), Tip: tipB.String()},
		{Name: "a", Ref: "refs/snap/a", Snapshots: 5, First: str("2026-03-02T10:00:00.000Z"), Last: str("2026-03-02T10:40:00.000Z"), LastLabel: str("Stop"), Agent: str("cli"), Tip: tipA.String()},
	}}
	for i := range got.Sessions { // tokens and cost: what stats counts, checked there
		if got.Sessions[i].Tokens == nil || got.Sessions[i].Cost == nil {
			t.Errorf("session %s: no tokens or cost", got.Sessions[i].Name)
		}
		got.Sessions[i].Tokens, got.Sessions[i].Cost = nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	out.Reset()
	d.repo, _ = openEmpty(t)
	if err := runSessions(ctx, d, sessionsOptions{JSON: true}); err != nil || !strings.Contains(out.String(), `"sessions": []`) {
		t.Errorf("no sessions: %q %v", out, err)
	}
}

// TestRunSaveAppliesRetention: save prunes through the library's policy
// once a session grows a tenth past retention.max_per_session.
func TestRunSaveAppliesRetention(t *testing.T) {
	d, out := fixture(t)
	ctx := context.Background()
	d.cfg.Retention.MaxPerSession = 4
	d.session = "b"
	for _, session := range []string{"", "", "a"} { // b from the default, then a
		d.in = strings.NewReader(`{"messages":[{"role":"user","content":"more"}]}`)
		if err := runSave(ctx, d, saveOptions{Session: session, NoCode: true}); err != nil {
			t.Fatal(err)
		}
	}
	counts := map[string]int{}
	sessions, _ := d.repo.Sessions(ctx)
	for _, s := range sessions {
		counts[s.Name] = s.Tip.Header.Seq
	}
	if counts["b"] != 4 || counts["a"] != 4 {
		t.Errorf("after saves: %v, want b at 4 (not due) and a pruned back to 4\n%s", counts, out)
	}
	d.session = ""
	if err := runSave(ctx, d, saveOptions{}); exitCode(err) != 2 || !strings.Contains(err.Error(), "save needs a session") {
		t.Errorf("no session: %v", err)
	}
}

// openEmpty opens a new repository with no sessions, whose clock stands
// at base.
func openEmpty(t *testing.T) (*gitsnap.Repository, gitstore.Paths) {
	t.Helper()
	dir := t.TempDir()
	paths, err := gitstore.InitRepo(filepath.Join(dir, ".git"), dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gitsnap.OpenPaths(context.Background(), paths, gitsnap.Options{
		GitEnv: gitstore.GitEnv{CommitterName: "Ada", CommitterEmail: "ada@example.com"},
		Now:    func() time.Time { return base },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, paths
}
