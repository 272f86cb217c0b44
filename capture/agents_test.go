package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/storage"
)

const (
	copilotLog       = "../testdata/copilot/6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a/events.jsonl"
	cursorTranscript = "../testdata/cursor/3c0f5a9e-7b21-4d8e-9f61-2a4b6c8d0e1f.jsonl"
)

// countCursor: a model call per run of assistant lines between user
// lines, tokens unrecorded; tool calls are tool_use blocks, none known to
// fail; turns are user lines; no times.
func countCursor(records []map[string]any) counts {
	var c counts
	open := false
	for _, r := range records {
		switch text(r, "role") {
		case "user":
			c.Turns++
			open = false
		case "assistant":
			if !open {
				c.ModelCalls++
				open = true
			}
		}
		blocks, _ := field(r, "message", "content").([]any)
		for _, b := range blocks {
			if text(b, "type") == "tool_use" {
				c.ToolCalls++
			}
		}
	}
	return c
}

func TestJSONLAgentsNumbersMatchTheRawFiles(t *testing.T) {
	for _, tc := range []struct {
		agent, file, session string
		count                func([]map[string]any) counts
	}{
		{"copilot", copilotLog, "6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a", countCopilotEvents},
		{"cursor", cursorTranscript, "3c0f5a9e-7b21-4d8e-9f61-2a4b6c8d0e1f", countCursor},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			want := tc.count(readJSONL(t, tc.file))
			if want.ToolCalls == 0 || want.ModelCalls == 0 {
				t.Fatalf("the fixture lost what this test is about: %+v", want)
			}
			got, _ := importedCounts(t, tc.agent, tc.file, tc.session)
			if want.Messages == 0 { // this counter counts no messages as a person does
				got.Messages = 0
			}
			if tc.agent == "cursor" { // no tokens recorded: output is estimated from the text, and said so
				got.Output = 0
			}
			if got != want {
				t.Errorf("trace:\n got %+v\nwant %+v", got, want)
			}
			t.Logf("%+v", want)
		})
	}
}

// TestJSONLAgentsRestoreEachSnapshot grows each transcript a line at a
// time, records a hook call after each, and restores every snapshot.
func TestJSONLAgentsRestoreEachSnapshot(t *testing.T) {
	for _, tc := range []struct{ agent, file, payload string }{
		{"copilot", copilotLog, `{"sessionId":"6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a","timestamp":1781810030000,"cwd":"/src","toolName":"edit","toolArgs":"{\"path\":\"CHANGELOG.md\"}"}`},
		{"cursor", cursorTranscript, `{"conversation_id":"3c0f5a9e-7b21-4d8e-9f61-2a4b6c8d0e1f","generation_id":"g1","hook_event_name":"stop","workspace_roots":["/src"],"transcript_path":"PATH","status":"completed","loop_count":0}`},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			ctx := context.Background()
			_, s := newStore(t)
			home := t.TempDir()
			a, _ := agent.Lookup(tc.agent, agent.Env{Home: home})
			src, _ := os.ReadFile(tc.file)
			lines := bytes.SplitAfter(src, []byte("\n"))
			path := filepath.Join(t.TempDir(), filepath.Base(tc.file))
			if tc.agent == "copilot" {
				path = filepath.Join(home, ".copilot", "session-state", "6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a", "events.jsonl")
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			in := Ingest{Store: s, Adapter: a}
			for i := 1; i < len(lines); i++ {
				if err := os.WriteFile(path, bytes.Join(lines[:i], nil), 0o600); err != nil {
					t.Fatal(err)
				}
				p, err := a.Decode([]byte(strings.Replace(tc.payload, "PATH", path, 1)), []string{"postToolUse"})
				if err != nil || p.TranscriptPath != path {
					t.Fatalf("decode: %+v, %v", p, err)
				}
				e, added, err := in.Run(ctx, p, storage.SaveOptions{})
				if err != nil || !added {
					t.Fatalf("line %d: %v %v", i, added, err)
				}
				doc, _, _ := s.Read(ctx, e.ID)
				files, err := agent.Restore(doc)
				if err != nil {
					t.Fatal(err)
				}
				if len(files[""]) != i {
					t.Fatalf("snapshot %d restores %d lines", i, len(files[""]))
				}
				for k, l := range files[""] {
					var x, y any
					_ = json.Unmarshal(l, &x)
					_ = json.Unmarshal(lines[k], &y)
					if !jsonEqual(x, y) {
						t.Fatalf("snapshot %d, line %d differs", i, k+1)
					}
				}
			}
		})
	}
}

func TestCursorFindsTheCLITranscript(t *testing.T) {
	home := t.TempDir()
	id := "3c0f5a9e-7b21-4d8e-9f61-2a4b6c8d0e1f"
	for _, rel := range []string{"cli/agent-transcripts/" + id + ".jsonl", "ide/agent-transcripts/" + id + "/" + id + ".jsonl"} {
		dir := filepath.Join(home, ".cursor", "projects")
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		a, _ := agent.Lookup("cursor", agent.Env{Home: home})
		p, err := a.Decode([]byte(`{"conversation_id":"`+id+`","hook_event_name":"postToolUse","transcript_path":null,"workspace_roots":["/src/demo"],"tool_name":"Shell"}`), nil)
		if err != nil || p.TranscriptPath == "" || p.CWD != "/src/demo" {
			t.Fatalf("%+v %v", p, err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := agent.Lookup("cursor", agent.Env{Home: home})
	for _, bad := range []string{`{"conversation_id":"../x","hook_event_name":"stop"}`, `{"conversation_id":"*","hook_event_name":"stop"}`} {
		if p, err := a.Decode([]byte(bad), nil); err == nil && p.TranscriptPath != "" {
			t.Errorf("%s found %s", bad, p.TranscriptPath)
		}
	}
}

func TestCopilotDecode(t *testing.T) {
	a, _ := agent.Lookup("copilot", agent.Env{Home: "/home/ana"})
	p, err := a.Decode([]byte(`{"sessionId":"6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a","timestamp":1,"cwd":"/src","toolName":"edit","toolArgs":"{\"path\":\"a.go\"}","toolResult":{"resultType":"success"}}`), []string{"postToolUse"})
	if err != nil || p.Event != "postToolUse" || p.Tool != "edit" || p.ToolInput["path"] != "a.go" ||
		p.TranscriptPath != "/home/ana/.copilot/session-state/6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a/events.jsonl" {
		t.Errorf("%+v %v", p, err)
	}
	for _, bad := range []string{`{"sessionId":"x"}`, `{"sessionId":"../../etc"}`, `"text"`} {
		p, err := a.Decode([]byte(bad), nil)
		if err == nil && strings.Contains(p.TranscriptPath, "..") {
			t.Errorf("%s: %+v", bad, p)
		}
	}
	if !a.ChangesFiles(p) || a.ChangesFiles(agent.Payload{Tool: "view"}) {
		t.Error("ChangesFiles")
	}
}

func TestNewAgentsTouchedFiles(t *testing.T) {
	for _, tc := range []struct {
		agent, file string
		want        []string
	}{
		{"copilot", copilotLog, []string{"/home/ana/src/demo/CHANGELOG.md", "/home/ana/src/demo/NOTES.md"}},
		{"cursor", cursorTranscript, []string{"/home/ana/src/demo/config.go", "/home/ana/src/demo/MIGRATION.md"}},
	} {
		a, _ := agent.Lookup(tc.agent, agent.Env{})
		var got []string
		for _, r := range readJSONL(t, tc.file) {
			got = append(got, a.TouchedFiles(normalize(t, r))...)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s touched %v, want %v", tc.agent, got, tc.want)
		}
	}
}
