package capture

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/snapshot"
)

// write writes a file or fails the test.
func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// appendTo appends to a file or fails the test.
func appendTo(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func splitLines(data []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// sameLines checks restored lines against the raw file's, byte for byte
// where a line is not JSON, JSON-equal where it is.
func sameLines(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d lines back, the file has %d", what, len(got), len(want))
	}
	for i := range want {
		a, errA := snapshot.Parse(got[i], snapshot.Limits{})
		b, errB := snapshot.Parse(want[i], snapshot.Limits{})
		if errA != nil || errB != nil {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%s line %d: %q, want %q", what, i+1, got[i], want[i])
			}
			continue
		}
		if !snapshot.Equal(a, b) {
			t.Fatalf("%s line %d differs", what, i+1)
		}
	}
}

// TestInvalidUTF8LineIsKept: a line of invalid UTF-8 made every later
// hook call fail (canonical JSON refuses it). It is stored raw and
// written back byte for byte, and the lines after it are recorded.
func TestInvalidUTF8LineIsKept(t *testing.T) {
	_, s := newStore(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	data := []byte("{\"type\":\"user\",\"sessionId\":\"s\"}\nnot json \xff\xfe here\n{\"a\":\"\xc3\x28\"}\n" +
		"{\"" + agent.RawBytesKey + "\":\"aGk=\"}\n{\"type\":\"assistant\"}\n")
	write(t, path, data)
	in := Ingest{Store: s, Adapter: agent.ClaudeCode{}}
	p := agent.Payload{Event: "Stop", SessionID: "s", TranscriptPath: path}
	if _, added, err := in.Run(context.Background(), p, storage.SaveOptions{}); err != nil || !added {
		t.Fatalf("run: %v %v", added, err)
	}
	got := restoreTip(t, s, "s")[""]
	want := splitLines(data)
	if len(got) != len(want) {
		t.Fatalf("%d lines back, want %d", len(got), len(want))
	}
	for i := range want { // the lines that are not UTF-8 come back byte for byte
		if i == 0 || i == 4 {
			continue
		}
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("line %d: %q, want %q", i+1, got[i], want[i])
		}
	}
	// And the session goes on.
	appendTo(t, path, "{\"type\":\"user\",\"n\":2}\n")
	if _, added, err := in.Run(context.Background(), p, storage.SaveOptions{}); err != nil || !added {
		t.Fatalf("second run: %v %v", added, err)
	}
}

// TestRewrittenTranscriptIsANewGeneration: a transcript the agent rewrote
// (shorter, or the same length with other bytes before the offset) was
// read on from the old offset. It is recorded again from its start as a
// new generation, the earlier lines kept under name~0.
func TestRewrittenTranscriptIsANewGeneration(t *testing.T) {
	_, s := newStore(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	first := []byte("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n")
	write(t, path, first)
	var warnings []string
	in := Ingest{Store: s, Adapter: agent.ClaudeCode{}, Warn: func(m string) { warnings = append(warnings, m) }}
	p := agent.Payload{Event: "Stop", SessionID: "s", TranscriptPath: path}
	run := func() {
		t.Helper()
		if _, _, err := in.Run(context.Background(), p, storage.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	// Same size, other bytes: only the fingerprint tells.
	second := []byte("{\"n\":7}\n{\"n\":8}\n{\"n\":9}\n")
	write(t, path, second)
	run()
	// Shorter.
	third := []byte("{\"m\":1}\n")
	write(t, path, third)
	run()
	files := restoreTip(t, s, "s")
	sameLines(t, "~0", files["~0"], splitLines(first))
	sameLines(t, "~1", files["~1"], splitLines(second))
	sameLines(t, "main", files[""], splitLines(third))
	if len(warnings) != 2 || !strings.Contains(warnings[0], "rewritten") || !strings.Contains(warnings[1], "generation 2") {
		t.Errorf("warnings: %q", warnings)
	}
	// Appending after a rewrite is an append again.
	appendTo(t, path, "{\"m\":2}\n")
	run()
	sameLines(t, "main", restoreTip(t, s, "s")[""], splitLines(append(third, "{\"m\":2}\n"...)))
	if len(warnings) != 2 {
		t.Errorf("an append was taken for a rewrite: %q", warnings[2:])
	}
}

// TestMissingTranscriptIsReported: a payload naming a transcript that
// does not exist made an empty snapshot and said nothing.
func TestMissingTranscriptIsReported(t *testing.T) {
	_, s := newStore(t)
	var warnings []string
	in := Ingest{Store: s, Adapter: agent.ClaudeCode{}, Warn: func(m string) { warnings = append(warnings, m) }}
	missing := filepath.Join(t.TempDir(), "gone.jsonl")
	ctx := context.Background()
	if _, _, err := in.Run(ctx, agent.Payload{Event: "SessionStart", SessionID: "s", TranscriptPath: missing}, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("SessionStart comes before the transcript: %q", warnings)
	}
	if _, _, err := in.Run(ctx, agent.Payload{Event: "Stop", SessionID: "s", TranscriptPath: missing}, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], missing) || !strings.Contains(warnings[0], "does not exist") {
		t.Errorf("warnings: %q", warnings)
	}
}

// TestLongTranscriptInSteps: a transcript longer than MaxReadBytes is
// read in steps, each its own snapshot; with a budget spent at once a
// call takes one step and the next call goes on, and no line is lost.
func TestLongTranscriptInSteps(t *testing.T) {
	_, s := newStore(t)
	src, err := os.ReadFile(filepath.Join("..", "testdata", "claude-code", "tool_heavy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	write(t, path, src)
	longest := 0
	for _, l := range splitLines(src) {
		longest = max(longest, len(l)+1)
	}
	in := Ingest{Store: s, Adapter: agent.ClaudeCode{}, MaxReadBytes: int64(longest), Budget: 1}
	p := agent.Payload{Event: "Stop", SessionID: "s", TranscriptPath: path}
	calls := 0
	for ; calls < 1000; calls++ {
		_, added, err := in.Run(context.Background(), p, storage.SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !added {
			break
		}
	}
	if calls < 2 {
		t.Errorf("%d calls read %d bytes in steps of %d", calls, len(src), longest)
	}
	sameLines(t, "main", restoreTip(t, s, "s")[""], splitLines(src))
	// Without a budget (an import), one call reads it all.
	_, s2 := newStore(t)
	in.Store, in.Budget = s2, 0
	if _, _, err := in.Run(context.Background(), p, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "main", restoreTip(t, s2, "s")[""], splitLines(src))
}

// TestOldLayoutSubagent: Claude Code 2.0 and before wrote a subagent's
// transcript beside its parent's, named by SubagentStop; it is recorded
// in the parent's session and read on at later calls.
func TestOldLayoutSubagent(t *testing.T) {
	_, s := newStore(t)
	dir := t.TempDir()
	session := "4d5611e5-241a-462a-8d15-5122611a9569"
	real := filepath.Join("..", "testdata", "claude-code")
	mainData, _ := os.ReadFile(filepath.Join(real, session+".jsonl"))
	subData, _ := os.ReadFile(filepath.Join(real, session, "subagents", "agent-a2898e3.jsonl"))
	mainPath, subPath := filepath.Join(dir, session+".jsonl"), filepath.Join(dir, "agent-a2898e3.jsonl")
	write(t, mainPath, mainData)
	half := bytes.Index(subData[len(subData)/2:], []byte("\n")) + len(subData)/2 + 1
	write(t, subPath, subData[:half])
	in := Ingest{Store: s, Adapter: agent.ClaudeCode{}}
	ctx := context.Background()
	if _, _, err := in.Run(ctx, agent.Payload{Event: "SubagentStop", SessionID: session, TranscriptPath: mainPath, Subagent: subPath}, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	write(t, subPath, subData)
	// A later tool call names no subagent: the file is read on all the same.
	if _, _, err := in.Run(ctx, agent.Payload{Event: "PostToolUse", Tool: "Bash", SessionID: session, TranscriptPath: mainPath}, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	files := restoreTip(t, s, session)
	sameLines(t, "subagent", files["agent-a2898e3.jsonl"], splitLines(subData))
	sameLines(t, "main", files[""], splitLines(mainData))
	// A payload naming a file that is not a transcript is not read.
	found, err := agent.ClaudeCode{}.Transcripts(agent.Payload{Event: "SubagentStop", SessionID: session, TranscriptPath: mainPath, Subagent: "/etc/passwd"})
	if err != nil || found["subagents/passwd"] != "" {
		t.Errorf("SubagentStop naming /etc/passwd finds %v, %v", found, err)
	}
	// Another session's agent file beside it is not taken.
	other := bytes.ReplaceAll(subData, []byte(session), []byte("11111111-241a-462a-8d15-5122611a9569"))
	write(t, filepath.Join(dir, "agent-b000000.jsonl"), other)
	found, err = agent.ClaudeCode{}.Transcripts(agent.Payload{Event: "Stop", SessionID: session, TranscriptPath: mainPath})
	if err != nil || len(found) != 1 || found["agent-a2898e3.jsonl"] != subPath {
		t.Errorf("Stop finds %v, %v", found, err)
	}
}

// TestOwnSettingsNotTouched: install writes agents' settings files into
// the work tree; they are git-snap's, never files the agent touched.
func TestOwnSettingsNotTouched(t *testing.T) {
	dir, s := newStore(t)
	for _, f := range []string{".claude/settings.local.json", ".claude/settings.json", ".codex/hooks.json", ".codex/config.toml", ".git-snap.yaml", "app.go"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, f), []byte("x\n"))
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	write(t, path, []byte("{\"type\":\"user\"}\n"))
	changed := []string{".claude/settings.local.json", ".claude/settings.json", ".codex/hooks.json", ".codex/config.toml", ".git-snap.yaml", "app.go"}
	in := Ingest{Store: s, Adapter: agent.ClaudeCode{}, WorkTree: dir, Changed: func(context.Context) ([]string, error) { return changed, nil }, MaxFileBytes: 1 << 20}
	if _, _, err := in.Run(context.Background(), agent.Payload{Event: "Stop", SessionID: "s", TranscriptPath: path}, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	tip, _ := s.SessionTip("s")
	doc, _, err := s.Read(context.Background(), tip)
	if err != nil {
		t.Fatal(err)
	}
	touched, _ := doc["touched_files"].([]any)
	files, _ := doc[snapshot.MemberFiles].(map[string]any)
	if len(touched) != 1 || touched[0] != "app.go" || len(files) != 1 || files["app.go"] == nil {
		t.Errorf("touched %v, files %v; want app.go alone", touched, files)
	}
}
