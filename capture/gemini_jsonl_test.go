package capture

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

const geminiLive = "../testdata/live/gemini/session-2026-11-25T09-50-ee947b54.jsonl"

// geminiLines reads a JSONL chat's lines as written.
func geminiLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	return lines[:len(lines)-1] // after the last newline, nothing
}

// geminiHook records one hook call of the session on the chat at path.
func geminiHook(t *testing.T, in Ingest, path, event string) storage.Entry {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"session_id": "ee947b54-9891-4991-99f9-ecf0c7dc68bb", "transcript_path": path, "cwd": "/src/repo", "hook_event_name": event})
	p, err := in.Adapter.Decode(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, added, err := in.Run(context.Background(), p, storage.SaveOptions{})
	if err != nil {
		t.Fatalf("%s: %v", event, err)
	}
	if !added { // nothing new: the session's last snapshot
		tip, err := in.Store.SessionTip(p.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		e.ID = tip
	}
	return e
}

// The live chat appended a line at a time, a hook call after each: every
// snapshot restores the lines written so far, line for line; PreCompress
// sets no checkpoint when nothing was compressed; a compression Gemini
// CLI then writes (the history set to its summary, the model's
// acknowledgement and the newest messages) sets pre-compact once, on the
// snapshot before it, and counts once though a resume sets that history
// again; a rewind drops the messages taken back from the numbers.
func TestGeminiJSONLChatRecordsLineByLine(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	a, _ := agent.Lookup("gemini", agent.Env{})
	in := Ingest{Store: s, Adapter: a}
	path := filepath.Join(t.TempDir(), "session-2026-11-25T09-50-ee947b54.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var written []string
	write := func(lines ...string) {
		for _, l := range lines {
			if _, err := f.WriteString(l); err != nil {
				t.Fatal(err)
			}
			written = append(written, l)
		}
	}
	restored := func(e storage.Entry) []string {
		doc, _, err := s.Read(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		files, err := agent.Restore(doc)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range files[""] {
			out = append(out, string(l))
		}
		return out
	}
	for i, l := range geminiLines(t, geminiLive) {
		write(l)
		e := geminiHook(t, in, path, "PreCompress")
		got := restored(e)
		if len(got) != i+1 {
			t.Fatalf("after line %d: %d lines restored", i+1, len(got))
		}
		for k := range got {
			a, _ := snapshot.Parse([]byte(got[k]), snapshot.Limits{})
			b, _ := snapshot.Parse([]byte(written[k]), snapshot.Limits{})
			if !snapshot.Equal(a, b) {
				t.Fatalf("after line %d: line %d differs", i+1, k+1)
			}
		}
	}
	checkpoints := func() []storage.Checkpoint {
		cps, err := s.Checkpoints(ctx, "ee947b54-9891-4991-99f9-ecf0c7dc68bb", false)
		if err != nil {
			t.Fatal(err)
		}
		return cps
	}
	if cps := checkpoints(); len(cps) != 0 {
		t.Fatalf("PreCompress with no compression set checkpoints: %+v", cps)
	}
	before := geminiHook(t, in, path, "PreCompress")
	n := agent.NumbersOf(mustRead(t, s, before), "gemini")
	if n.ModelCalls != 3 || n.ToolCalls != 1 || n.Turns != 2 || n.Messages != 6 || n.Compactions != 0 {
		t.Fatalf("numbers of the live chat: %+v", n)
	}

	// A compression: the history set to the summary, the acknowledgement
	// and the newest messages.
	compressed := `{"$set":{"messages":[{"id":"sum1","timestamp":"2026-11-25T09:51:00.000Z","type":"user","content":[{"text":"<state_snapshot>wrote hello.txt</state_snapshot>"}]},{"id":"ack1","timestamp":"2026-11-25T09:51:00.000Z","type":"gemini","content":[{"text":"Got it. Thanks for the additional context!"}]},{"id":"640cc962-be0e-45a4-9d32-7a34f5888534","timestamp":"2026-11-25T09:50:21.828Z","type":"gemini","content":[{"text":"It holds one line."}]}],"lastUpdated":"2026-11-25T09:51:00.000Z"}}` + "\n"
	write(compressed)
	after := geminiHook(t, in, path, "AfterAgent")
	cps := checkpoints()
	if len(cps) != 1 || cps[0].Name != agent.PreCompactCheckpoint || cps[0].Target != before.ID {
		t.Fatalf("after a compression: checkpoints %+v, want %s on %s", cps, agent.PreCompactCheckpoint, before.ID)
	}
	n = agent.NumbersOf(mustRead(t, s, after), "gemini")
	if n.Compactions != 1 || n.ModelCalls != 3 || n.Turns != 2 {
		t.Errorf("after a compression (the older messages were sent and answered): %+v", n)
	}
	// Set again (a resume): no new compaction, the checkpoint stays.
	write(compressed)
	again := geminiHook(t, in, path, "SessionStart")
	if cps := checkpoints(); len(cps) != 1 || cps[0].Target != before.ID {
		t.Errorf("the same compression set again moved the checkpoint: %+v", cps)
	}
	if n := agent.NumbersOf(mustRead(t, s, again), "gemini"); n.Compactions != 1 {
		t.Errorf("the same compression counted again: %+v", n)
	}
	// A rewind to the second prompt takes it and its answer back.
	write(`{"$rewindTo":"f340b7a1-617e-41e6-9f23-1e5482f6ae1c"}` + "\n")
	rewound := geminiHook(t, in, path, "AfterAgent")
	if n := agent.NumbersOf(mustRead(t, s, rewound), "gemini"); n.Turns != 1 || n.ModelCalls != 2 {
		t.Errorf("after a rewind to the second prompt: %+v", n)
	}
}

func mustRead(t *testing.T, s *gitstore.Store, e storage.Entry) map[string]any {
	t.Helper()
	doc, _, err := s.Read(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// A session recorded from an older .json chat goes on when Gemini CLI
// 0.61 resumes it into a .jsonl one that holds it all again: the lines
// are the session now (restored line for line, counted once), the
// document's records kept as the file's earlier generation.
func TestGeminiJSONChatGoesOnInJSONL(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	a, _ := agent.Lookup("gemini", agent.Env{})
	in := Ingest{Store: s, Adapter: a}
	dir := t.TempDir()
	doc := readJSONDoc(t, geminiChat)
	data, _ := json.Marshal(doc)
	old := filepath.Join(dir, "session-2026-01-16T11-01-37b7abef.json")
	if err := os.WriteFile(old, data, 0o600); err != nil {
		t.Fatal(err)
	}
	geminiHookAt(t, in, "37b7abef-713d-4522-85f0-8ff15a4e6d17", old)
	head := map[string]any{}
	for _, k := range []string{"sessionId", "projectHash", "startTime", "lastUpdated"} {
		head[k] = doc[k]
	}
	var lines []string
	for _, v := range append([]any{head}, doc["messages"].([]any)...) {
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(old+"l", []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := geminiHookAt(t, in, "37b7abef-713d-4522-85f0-8ff15a4e6d17", old+"l")
	got := mustRead(t, s, e)
	want, _ := countGemini(doc)
	n := agent.NumbersOf(got, "gemini")
	if n.ModelCalls != want.ModelCalls || n.ToolCalls != want.ToolCalls || n.Turns != want.Turns || n.InputTokens != want.Input || n.OutputTokens != want.Output {
		t.Errorf("numbers %+v, the chat's %+v", n, want)
	}
	files, err := agent.Restore(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(files[""]) != len(lines) || len(files["~0"]) == 0 {
		t.Fatalf("restored %d lines (and %d of the document), the chat has %d", len(files[""]), len(files["~0"]), len(lines))
	}
	for i, l := range files[""] {
		a, _ := snapshot.Parse(l, snapshot.Limits{})
		b, _ := snapshot.Parse([]byte(lines[i]), snapshot.Limits{})
		if !snapshot.Equal(a, b) {
			t.Fatalf("line %d differs", i+1)
		}
	}
	if _, entry, _ := s.Read(ctx, e.ID); entry.Header.Turn != want.Turns {
		t.Errorf("turn %d, want %d", entry.Header.Turn, want.Turns)
	}
	// resume puts the JSONL chat back where Gemini CLI 0.61 looks.
	home := t.TempDir()
	path, _, err := agent.Gemini{Dir: home}.ResumeTarget("37b7abef-713d-4522-85f0-8ff15a4e6d17", got)
	if want := filepath.Join(home, "tmp", "src", "chats", "session-2026-01-16T11-01-37b7abef.jsonl"); err != nil || path != want {
		t.Errorf("resume to %s (%v), want %s", path, err, want)
	}
}

func geminiHookAt(t *testing.T, in Ingest, session, path string) storage.Entry {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": path, "cwd": "/src", "hook_event_name": "AfterAgent"})
	p, err := in.Adapter.Decode(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, added, err := in.Run(context.Background(), p, storage.SaveOptions{})
	if err != nil || !added {
		t.Fatalf("%s: added %v, %v", path, added, err)
	}
	return e
}
