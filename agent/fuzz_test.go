package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// FuzzDecode: any hook payload, on stdin or as Codex's notify argument,
// decodes or gives an error; nothing panics, and a decoded payload names
// its session and event.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/w/a"}}`), "")
	f.Add([]byte(`{"session_id":"s","hook_event_name":"Stop","transcript_path":null}`), "")
	f.Add([]byte(``), `{"type":"agent-turn-complete","thread-id":"019d","cwd":"/w"}`)
	f.Add([]byte(`[1,2]`), `{"type":"other"}`)
	f.Add([]byte(`{"session_id":1}`), "{")
	home := f.TempDir() // an empty Codex home: no rollout is found
	f.Fuzz(func(t *testing.T, stdin []byte, arg string) {
		for _, a := range []Adapter{ClaudeCode{}, Codex{Home: home}} {
			p, err := a.Decode(stdin, []string{arg})
			if err == nil && (p.SessionID == "" || p.Event == "") {
				t.Fatalf("%s decoded a payload with no session or event: %+v", a.Name(), p)
			}
			if err == nil {
				p.Label()
				_, _ = a.Transcripts(p) // anything but a panic is fine
			}
		}
	})
}

// FuzzTranscript: any transcript bytes read into elements that write back
// as the lines read (JSON-equal, or the same bytes for a line that is not
// JSON), and the adapters' record readers never panic.
func FuzzTranscript(f *testing.F) {
	// A few real lines each: small seeds keep the fuzzer's minimising quick.
	addSeedLines(f, filepath.Join("..", "testdata", "claude-code", "tool_heavy.jsonl"))
	addSeedLines(f, filepath.Join("..", "testdata", "codex", "rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl"))
	f.Add([]byte("{\"a\":1}\n{\"b\":"))
	f.Add([]byte("\"just a string\"\nnot json\n\n"))
	path := filepath.Join(f.TempDir(), "t.jsonl") // one per fuzzing process
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		lines, _, err := Lines(path, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var recs []any
		for _, l := range lines {
			recs = append(recs, readsBack(t, l))
		}
		for _, a := range Adapters(Env{}) {
			_ = a.Check(recs) // refusing is fine; panicking is not
		}
		doc := map[string]any{snapshot.MemberMessages: recs}
		for range Replay(doc) {
		}
		Trace(doc, ClaudeCode{})
		_, _ = LayoutFrom(map[string]any{"transcript": map[string]any{"files": recs, "runs": recs}})
	})
}

func addSeedLines(f *testing.F, path string) {
	lines, _, err := Lines(path, 0, 0)
	if err != nil {
		return
	}
	for _, l := range lines[3:min(len(lines), 9)] {
		if len(l) < 2000 {
			f.Add(append(l, '\n'))
		}
	}
}

// readsBack reads one line as a stored element, checks that it writes
// back as it was, and puts it through every record reader.
func readsBack(t *testing.T, l []byte) any {
	e := Element(l, snapshot.Limits{MaxDepth: 200})
	back, err := LineOf(e)
	if err != nil {
		t.Fatalf("%q: %v", l, err)
	}
	if s, raw := e.(string); raw {
		if s != string(l) {
			t.Fatalf("raw line %q came back as %q", l, back)
		}
	} else if v, err := snapshot.Parse(l, snapshot.Limits{MaxDepth: 200}); err != nil || !snapshot.Equal(v, e) {
		t.Fatalf("line %q came back as %q", l, back)
	}
	for _, a := range Adapters(Env{}) {
		a.IsPrompt(e)
		a.TouchedFiles(e)
	}
	ViewMessage(e)
	return e
}
