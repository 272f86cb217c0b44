package render

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

func parse(t *testing.T, js string) any {
	t.Helper()
	v, err := snapshot.Parse([]byte(js), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// conversation writes msgs as show writes a session no agent recorded.
func conversation(w io.Writer, p Palette, msgs []any) {
	c := NewConversation(w, p, ConversationOptions{})
	for i, raw := range msgs {
		c.Record(i, raw)
	}
	c.End()
}

// A conversation with a tool call that fails: the call, its failure and
// the records that are not conversation, counted at the end.
func TestConversationWithAFailingToolCall(t *testing.T) {
	msgs := parse(t, `[
		{"role": "user", "content": "run the tests"},
		{"role": "assistant", "content": [
			{"type": "thinking", "thinking": "the tests first"},
			{"type": "text", "text": "Running them."},
			{"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "go test ./..."}}
		]},
		{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "exit status 1", "is_error": true}]},
		{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2", "content": "ok"}]},
		{"role": "progress"},
		{"role": "progress"}
	]`).([]any)
	plain := strings.Join([]string{
		"[0] user",
		"    run the tests",
		"[1] assistant",
		"    (thinking) the tests first",
		"    Running them.",
		`    → Bash {"command":"go test ./..."}`,
		"[2] user",
		"    ← failed exit status 1",
		"[3] user",
		"    ← ok ok",
		"(2 other records not shown: progress ×2; --json shows everything)",
		"",
	}, "\n")
	var b bytes.Buffer
	conversation(&b, Palette{}, msgs)
	if b.String() != plain {
		t.Errorf("without colour:\n%s\nwant\n%s", b.String(), plain)
	}

	b.Reset()
	conversation(&b, Palette{On: true}, msgs)
	got := b.String()
	for _, want := range []string{
		"\x1b[1m[0] user\x1b[m\n",
		"    \x1b[2m(thinking) the tests first\x1b[m\n",
		"    \x1b[36m→ Bash\x1b[m {\"command\":\"go test ./...\"}\n",
		"    \x1b[31m← failed\x1b[m exit status 1\n",
		"    \x1b[32m← ok\x1b[m ok\n",
		"\x1b[2m(2 other records not shown: progress ×2; --json shows everything)\x1b[m\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("with colour, %q is missing from\n%q", want, got)
		}
	}
	if stripped := strings.NewReplacer("\x1b[1m", "", "\x1b[2m", "", "\x1b[31m", "", "\x1b[32m", "", "\x1b[36m", "", "\x1b[m", "").Replace(got); stripped != plain {
		t.Errorf("colour changes more than the escapes:\n%s", stripped)
	}
}

// DiffStat counts the conversation and the members a person reads; what
// is not conversation and git-snap's bookkeeping are counted separately, and
// all of it with All.
func TestDiffStat(t *testing.T) {
	msg := map[string]any{"role": "user", "content": "hi"}
	d := &snapshot.Diff{
		Messages: []snapshot.ElementChange{{Op: snapshot.OpAdded, Index: 3, After: msg}, {Op: snapshot.OpAdded, Index: 4, After: msg},
			{Op: snapshot.OpChanged, Index: 1, Before: msg, After: msg}, {Op: snapshot.OpAdded, Index: 5, After: map[string]any{"type": "progress"}}},
		Events:  []snapshot.ElementChange{{Op: snapshot.OpRemoved, Index: 0}},
		Members: []snapshot.MemberChange{{Op: snapshot.OpChanged, Path: "$.settings.model"}, {Op: snapshot.OpChanged, Path: "$.transcript.files[0].offset"}},
		Files:   []snapshot.FileChange{{Op: snapshot.OpChanged, Path: "main.go", Added: 2, Removed: 1}, {Op: snapshot.OpAdded, Path: "b.go", Added: 5}},
		Tokens:  snapshot.TokenDelta{Input: 1200, Output: -3, Estimated: true},
	}
	want := `messages: 2 added, 0 removed, 1 changed
events:   0 added, 1 removed, 0 changed
members:  1 changed paths
files:    changed main.go (+2 -1)
files:    added b.go (+5 -0)
tokens: +1200 input, +0 cache read, +0 cache write, -3 output (estimated where usage was not recorded)
left out: 1 record that is not conversation (added progress ×1), 1 changed path of git-snap's bookkeeping (transcript); git snap diff --all shows them
`
	var b bytes.Buffer
	DiffStat(&b, d)
	if b.String() != want {
		t.Errorf("DiffStat:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	DiffStatWith(&b, d, DiffOptions{All: true})
	if !strings.HasPrefix(b.String(), "messages: 3 added, 0 removed, 1 changed\nevents:   0 added, 1 removed, 0 changed\nmembers:  2 changed paths\n") || strings.Contains(b.String(), "left out") {
		t.Errorf("DiffStat --all:\n%s", b.String())
	}
}

func TestDiffColoursOnlyWhenOn(t *testing.T) {
	d := &snapshot.Diff{
		Files: []snapshot.FileChange{{Op: snapshot.OpChanged, Path: "a.txt", Patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n"}},
	}
	var plain, coloured bytes.Buffer
	Diff(&plain, Palette{}, d)
	Diff(&coloured, Palette{On: true}, d)
	want := "files\nM a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\ntokens: +0 input, +0 cache read, +0 cache write, +0 output\n"
	if plain.String() != want {
		t.Errorf("without colour:\n%q\nwant\n%q", plain.String(), want)
	}
	if !strings.Contains(coloured.String(), "\x1b[33mM\x1b[m a.txt\n") || !strings.Contains(coloured.String(), "\x1b[31m-old\x1b[m\n") {
		t.Errorf("with colour:\n%q", coloured.String())
	}
	var empty bytes.Buffer
	Diff(&empty, Palette{On: true}, &snapshot.Diff{})
	if empty.String() != "no differences\n" {
		t.Errorf("an empty diff: %q", empty.String())
	}
}

func TestYAMLKeepsNumbersAndOrder(t *testing.T) {
	var b bytes.Buffer
	if err := YAML(&b, parse(t, `{"b": 12345678901234567890, "a": [1.5, -2, null, true, "x"]}`)); err != nil {
		t.Fatal(err)
	}
	want := "a:\n  - 1.5\n  - -2\n  - null\n  - true\n  - x\nb: 12345678901234567890\n"
	if b.String() != want {
		t.Errorf("YAML:\n%s\nwant\n%s", b.String(), want)
	}
}
