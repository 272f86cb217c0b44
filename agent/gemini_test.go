package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

func geminiRecords(t *testing.T, lines ...string) []any {
	t.Helper()
	var out []any
	for _, l := range lines {
		out = append(out, Element([]byte(l), snapshot.Limits{}))
	}
	return out
}

// Live reads a JSONL chat's lines as the messages it holds: a record
// again with the same id replaces the first in its place; a $set of
// messages adds those the chat lacks and drops none (a resume rebuilds
// the history bare); a $rewindTo drops that message and those after it.
func TestGeminiLiveFollowsTheChat(t *testing.T) {
	lines := geminiRecords(t,
		`{"sessionId":"s1","projectHash":"h","startTime":"2026-11-25T09:00:00.000Z","kind":"main"}`,
		`{"$set":{"messages":[{"id":"ctx","timestamp":"2026-11-25T09:00:00.000Z","type":"user","content":[{"text":"<session_context>x</session_context>"}]}]}}`,
		`{"id":"u1","timestamp":"2026-11-25T09:00:01.000Z","type":"user","content":[{"text":"one"}]}`,
		`{"id":"g1","timestamp":"2026-11-25T09:00:02.000Z","type":"gemini","content":"","tokens":{"input":10,"output":1}}`,
		`{"id":"g1","timestamp":"2026-11-25T09:00:02.000Z","type":"gemini","content":"","tokens":{"input":10,"output":1},"toolCalls":[{"id":"run_shell_command__c1","name":"run_shell_command","args":{},"status":"success"}]}`,
		`{"$set":{"lastUpdated":"2026-11-25T09:00:03.000Z"}}`,
		`{"$set":{"messages":[{"id":"ctx","type":"user","content":[]},{"id":"u1","type":"user","content":[]},{"id":"g1","type":"user","content":[]}]}}`,
		`{"id":"u2","timestamp":"2026-11-25T09:00:04.000Z","type":"user","content":[{"text":"two"}]}`,
		`{"id":"g2","timestamp":"2026-11-25T09:00:05.000Z","type":"gemini","content":"ok"}`,
		`{"$rewindTo":"u2"}`,
	)
	index := make([]int, len(lines))
	for i := range index {
		index[i] = i
	}
	got, at := Gemini{}.Live(lines, index)
	var ids []string
	for _, r := range got {
		ids = append(ids, str(r.(map[string]any), "id"))
	}
	if strings.Join(ids, " ") != "ctx u1 g1" || at[0] != 1 || at[2] != 4 {
		t.Fatalf("live %v at %v", ids, at)
	}
	m := ViewMessage(got[2])
	if len(m.Parts) != 2 || m.Parts[0].CallID != "c1" || m.Parts[1].Kind != snapshot.PartToolResult || m.Usage == nil {
		t.Errorf("g1 as its last line has it: %+v", m)
	}
	if !(Gemini{}).IsPrompt(got[1]) || (Gemini{}).IsPrompt(got[0]) {
		t.Error("the prompt, not the session's context, is the turn")
	}
}

// The records Gemini CLI writes itself as user messages are no prompts.
func TestGeminiPrompts(t *testing.T) {
	for rec, want := range map[string]bool{
		`{"id":"a","timestamp":"t","type":"user","content":[{"text":"Write hello.txt"}]}`:                                          true,
		`{"id":"a","timestamp":"t","type":"user","content":"plain text"}`:                                                          true,
		`{"id":"a","timestamp":"t","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI"}]}`:                false,
		`{"id":"a","timestamp":"t","type":"user","content":[{"text":"<hook_context>x"}]}`:                                          false,
		`{"id":"a","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"x","name":"y","response":{"output":""}}}]}`: false,
		`{"id":"a","timestamp":"t","type":"user","content":[{"text":"scratch\n<state_snapshot>…</state_snapshot>"}]}`:              false,
		`{"id":"a","timestamp":"t","type":"gemini","content":"hi"}`:                                                                false,
	} {
		if got := (Gemini{}).IsPrompt(Element([]byte(rec), snapshot.Limits{})); got != want {
			t.Errorf("%s: prompt %v, want %v", rec, got, want)
		}
	}
}

// The folder Gemini CLI keeps a project's chats in: projects.json's
// name, else the folder whose .project_root names the project, else the
// base name as a slug, numbered past the names other projects hold.
func TestGeminiProjectDir(t *testing.T) {
	dir := t.TempDir()
	g := Gemini{Dir: dir}
	tmp := filepath.Join(dir, "tmp")
	if got := g.projectDir("/src/My App"); got != filepath.Join(tmp, "my-app") {
		t.Errorf("fresh: %s", got)
	}
	write := func(path, data string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(tmp, "my-app", ".project_root"), "/elsewhere/my-app")
	write(filepath.Join(dir, "projects.json"), `{"projects":{"/elsewhere/my-app":"my-app","/x/my-app":"my-app-1"}}`)
	if got := g.projectDir("/src/My App"); got != filepath.Join(tmp, "my-app-2") {
		t.Errorf("taken names: %s", got)
	}
	write(filepath.Join(tmp, "kept", ".project_root"), "/src/My App")
	if got := g.projectDir("/src/My App"); got != filepath.Join(tmp, "kept") {
		t.Errorf("by .project_root: %s", got)
	}
	write(filepath.Join(dir, "projects.json"), `{"projects":{"/src/My App":"named"}}`)
	if got := g.projectDir("/src/My App"); got != filepath.Join(tmp, "named") {
		t.Errorf("by projects.json: %s", got)
	}
}

// Folder trust: install trusts the project for hooks in its settings,
// and doctor says so; a folder the user distrusted is left, and said;
// hooks in the user's settings need none.
func TestGeminiFolderTrust(t *testing.T) {
	dir := t.TempDir()
	g := Gemini{Dir: filepath.Join(dir, ".gemini")}
	work := filepath.Join(dir, "repo")
	hooks := filepath.Join(work, ".gemini", "settings.json")
	status := func() Status { return g.Needs(hooks, work)[0].Status }
	if status() != Fail {
		t.Fatalf("untrusted: %+v", g.Needs(hooks, work))
	}
	ch, err := g.TrustFolder(hooks, work)
	if err != nil || !ch.Done || status() != OK {
		t.Fatalf("trust: %+v %v, then %+v", ch, err, g.Needs(hooks, work))
	}
	if ch, _ := g.TrustFolder(hooks, work); ch.What != "" {
		t.Errorf("trusted again: %+v", ch)
	}
	if err := os.WriteFile(g.TrustedFolders(), []byte(`{"`+dir+`": "TRUST_FOLDER", "`+work+`": "DO_NOT_TRUST"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if ch, _ := g.TrustFolder(hooks, work); ch.Done || ch.Manual == "" || status() != Fail {
		t.Errorf("distrusted: %+v, %+v", ch, g.Needs(hooks, work))
	}
	if err := os.WriteFile(g.TrustedFolders(), []byte(`{"`+filepath.Join(work, "sub")+`": "TRUST_PARENT"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if status() != OK {
		t.Errorf("TRUST_PARENT of a subfolder: %+v", g.Needs(hooks, work))
	}
	if n := g.Needs(filepath.Join(g.Dir, "settings.json"), work); len(n) != 1 || n[0].Name != "gemini hooks on" {
		t.Errorf("user hooks: %+v", n)
	}
}

// A resume started in another minute begins a second file of the
// session; the hooks read the first.
func TestGeminiHooksReadTheFirstChat(t *testing.T) {
	chats := t.TempDir()
	first := filepath.Join(chats, "session-2026-11-25T09-46-ac0db586.jsonl")
	second := filepath.Join(chats, "session-2026-11-25T09-47-ac0db586.jsonl")
	other := filepath.Join(chats, "session-2026-11-25T09-45-ac0db586.jsonl")
	for path, id := range map[string]string{first: "ac0db586-c6d3", second: "ac0db586-c6d3", other: "ac0db586-ffff"} {
		if err := os.WriteFile(path, []byte(`{"sessionId":"`+id+`","projectHash":"h"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Gemini{}.Decode([]byte(`{"session_id":"ac0db586-c6d3","hook_event_name":"SessionStart","transcript_path":"`+second+`"}`), nil)
	if err != nil || p.TranscriptPath != first {
		t.Errorf("read %s (%v), want %s", p.TranscriptPath, err, first)
	}
}

// import --from gemini finds Gemini CLI 0.61's JSONL chats and the older
// .json ones below a folder, each its session, named by the sessionId
// its first line or document gives.
func TestGeminiImportFindsBothChats(t *testing.T) {
	dir := t.TempDir()
	copyTo := func(src, dst string) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyTo("../testdata/live/gemini/session-2026-11-25T09-50-ee947b54.jsonl", filepath.Join(dir, "tmp", "repo", "chats", "session-2026-11-25T09-50-ee947b54.jsonl"))
	copyTo("../testdata/gemini/session-2026-01-16T11-01-file-ops-37b7abef.json", filepath.Join(dir, "tmp", strings.Repeat("ab", 32), "chats", "session-2026-01-16T11-01-37b7abef.json"))
	copyTo("../testdata/gemini/SOURCE.md", filepath.Join(dir, "tmp", "repo", "logs.json"))
	a, _ := Lookup("gemini", Env{})
	plan, err := PlanImport(a, dir, []string{"."}, snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, it := range plan.Items {
		got[it.Session] = IsDocumentFile(a, it.Path)
	}
	if len(got) != 2 || got["ee947b54-9891-4991-99f9-ecf0c7dc68bb"] || !got["37b7abef-713d-4522-85f0-8ff15a4e6d17"] {
		t.Errorf("import plan %+v", plan)
	}
}
