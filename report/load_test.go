package report

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

const (
	p1   = `{"role": "user", "content": "make a v2"}`
	ans1 = `{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "Edit", "input": {"file_path": "a.go"}}]}`
	res1 = `{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "ok"}]}`
	p2   = `{"role": "user", "content": "add b"}`
	ans2 = `{"role": "assistant", "content": [{"type": "tool_use", "id": "c2", "name": "Write", "input": {"file_path": "b.go"}}]}`
	res2 = `{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2", "content": "denied", "is_error": true}]}`
)

// saveTurns records a session as a hook would: at each prompt and at
// each turn's end, with the files as they were then. Between the turns
// the user adds user.txt.
func saveTurns(t *testing.T) *gitstore.Store {
	t.Helper()
	s := newStore(t)
	saveDoc(t, s, "t", `{"messages": [`+p1+`], "files": {"a.go": {"content": "v1\n"}}}`)
	e2 := saveDoc(t, s, "t", `{"messages": [`+p1+`,`+ans1+`,`+res1+`], "files": {"a.go": {"content": "v2\n"}}}`)
	saveDoc(t, s, "t", `{"messages": [`+p1+`,`+ans1+`,`+res1+`,`+p2+`], "files": {"a.go": {"content": "v2\n"}, "user.txt": {"content": "mine\n"}}}`)
	saveDoc(t, s, "t", `{"messages": [`+p1+`,`+ans1+`,`+res1+`,`+p2+`,`+ans2+`,`+res2+`], "files": {"a.go": {"content": "v2\n"}, "user.txt": {"content": "mine\n"}, "b.go": {"content": "b\n"}}}`)
	saveDoc(t, s, "other", `{"messages": [`+p1+`]}`)
	if _, err := s.SetCheckpoint(context.Background(), "green", e2.ID, "", false); err != nil {
		t.Fatal(err)
	}
	return s
}

func paths(t Turn) []string {
	var out []string
	for _, f := range t.Files {
		out = append(out, f.Op+" "+f.Path)
	}
	return out
}

func TestTurnsCarryTheirFilesAndCheckpoints(t *testing.T) {
	sess := loadSession(t, saveTurns(t), "t", Options{})
	if len(sess.Turns) != 2 {
		t.Fatalf("%d turns, want 2", len(sess.Turns))
	}
	t1, t2 := sess.Turns[0], sess.Turns[1]
	if got := paths(t1); !slices.Equal(got, []string{"changed a.go"}) {
		t.Errorf("turn 1 files %q, want a.go changed", got)
	}
	if got := paths(t2); !slices.Equal(got, []string{"added b.go"}) {
		t.Errorf("turn 2 files %q, want b.go added and not the user's file", got)
	}
	last := t1.Items[len(t1.Items)-1]
	if last.Kind != KindCheckpoint || last.Text != "green" {
		t.Errorf("turn 1 ends with %+v, want the checkpoint green", last)
	}
	call := t2.Items[0]
	if call.Kind != KindTool || call.ID != "tool-4-0" || !call.Tool.Failed || call.Tool.Result != "denied" || t1.Items[0].Tool.Failed {
		t.Errorf("turn 2's call %+v %+v", call, call.Tool)
	}
}

// A range shows what happened after its start: the turn it starts in is
// left out when nothing of it is in the range, ids stay those of the
// whole session, and the numbers are the range's.
func TestRange(t *testing.T) {
	s := saveTurns(t)
	sess := loadSession(t, s, "t", Options{From: "t~2"})
	if len(sess.Turns) != 1 || sess.Turns[0].N != 2 || sess.Turns[0].Items[0].ID != "tool-4-0" {
		t.Fatalf("turns %+v", sess.Turns)
	}
	if got := paths(sess.Turns[0]); !slices.Equal(got, []string{"added b.go"}) {
		t.Errorf("files %q", got)
	}
	if n := sess.Numbers; n.Turns != 1 || n.ToolCalls != 1 || n.ToolFailures != 1 || sess.FromSeq != 2 || sess.Seq != 4 {
		t.Errorf("numbers %+v, from #%d to #%d", n, sess.FromSeq, sess.Seq)
	}
	// From the end of turn 1 to the prompt of turn 2: a turn with only its prompt.
	sess = loadSession(t, s, "t~1", Options{From: "t~2"})
	if len(sess.Turns) != 1 || sess.Turns[0].Prompt != "add b" || len(sess.Turns[0].Items) != 0 {
		t.Errorf("turns %+v", sess.Turns)
	}
	// Inside one snapshot: nothing happened.
	if sess = loadSession(t, s, "t", Options{From: "t"}); len(sess.Turns) != 0 {
		t.Errorf("an empty range has turns %+v", sess.Turns)
	}
	for _, bad := range []struct{ from, to string }{{"t", "t~1"}, {"other", "t"}} {
		_, err := loadRev(context.Background(), s, bad.to, Options{From: bad.from})
		var re *RangeError
		if !errors.As(err, &re) {
			t.Errorf("range %s..%s: %v, want a RangeError", bad.from, bad.to, err)
		}
	}
	if _, err := loadRev(context.Background(), s, "t", Options{From: "t~9"}); err == nil {
		t.Errorf("a range from a snapshot that is not there loads")
	}
	for _, r := range []string{"t", "..t", "t..", "a..b..c", ""} {
		if _, _, err := ParseRange(r); err == nil {
			t.Errorf("ParseRange(%q) took it", r)
		}
	}
}

// An editing call's input reads as the diff it asks for, whatever tool
// wrote it: old and new text, a list of them, new content, a patch.
func TestInputDiff(t *testing.T) {
	for _, c := range []struct {
		input string
		want  []string
	}{
		{`{"file_path": "/src/a.go", "old_string": "x := 1\n", "new_string": "x := 2\n"}`, []string{"--- a/src/a.go\n+++ b/src/a.go\n", "-x := 1\n+x := 2\n"}},
		{`{"file_path": "a.go", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}`, []string{"-a\n+b\n", "-c\n+d\n"}},
		{`{"file_path": "n.go", "content": "package n\n"}`, []string{"--- /dev/null\n+++ b/n.go\n", "+package n\n"}},
		{`"*** Begin Patch\n*** Add File: x\n+y\n*** End Patch"`, []string{"*** Add File: x\n+y\n"}},
		{`{"command": "ls"}`, nil},
		{`{"content": "no file named"}`, nil},
	} {
		v, err := snapshot.Parse([]byte(c.input), snapshot.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		got := inputDiff(v)
		if (got == "") != (c.want == nil) {
			t.Errorf("%s: diff %q", c.input, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.input, got, w)
			}
		}
	}
}

// What is left out is said: records that are not conversation by kind,
// and a harness's events.
func TestNotShownIsSaid(t *testing.T) {
	s := newStore(t)
	saveDoc(t, s, "e", `{"messages": [`+p1+`, {"type": "progress"}, {"type": "progress"}], "events": [{"type": "start", "ts_ms": 1}, {"type": "end", "ts_ms": 2}]}`)
	sess := loadSession(t, s, "e", Options{})
	var md, page strings.Builder
	if err := WriteMarkdown(context.Background(), &md, sess); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(context.Background(), &page, sess, HTMLOptions{Fragment: true}); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{md.String(), page.String()} {
		if !strings.Contains(out, "2 records that are not conversation (progress ×2)") || !strings.Contains(out, "2 lifecycle events") {
			t.Errorf("what is not shown is not said:\n%s", out)
		}
	}
}
