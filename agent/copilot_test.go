package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// The trusted folder: install adds the repository to trustedFolders in
// config.json, keeping the comment lines Copilot CLI writes at its top
// and the other settings; a folder that holds the repository trusts it;
// a config.json that is not JSON is not edited, and what to add is said.
func TestCopilotTrustedFolder(t *testing.T) {
	dir := t.TempDir()
	c := Copilot{Home: filepath.Join(dir, ".copilot")}
	work := filepath.Join(dir, "repo")
	hooks := filepath.Join(work, ".github", "hooks", "git-snap.json")
	status := func() Status { return c.Needs(hooks, work)[0].Status }
	if err := os.MkdirAll(c.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	const head = "// User settings belong in settings.json.\n// This file is managed automatically.\n"
	if err := os.WriteFile(c.UserConfig(), []byte(head+`{"firstLaunchAt": "2026-11-25T10:38:09.478Z", "trustedFolders": ["/elsewhere"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := c.Needs(hooks, work); status() != Fail || !strings.Contains(n[0].Fix, "git snap install copilot trusts it") {
		t.Fatalf("untrusted: %+v", n)
	}
	ch, err := c.TrustFolder(hooks, work)
	if err != nil || !ch.Done || status() != OK {
		t.Fatalf("trust: %+v %v, then %+v", ch, err, c.Needs(hooks, work))
	}
	data, _ := os.ReadFile(c.UserConfig())
	if !strings.HasPrefix(string(data), head) || !strings.Contains(string(data), `"firstLaunchAt": "2026-11-25T10:38:09.478Z"`) || !strings.Contains(string(data), `"/elsewhere"`) {
		t.Errorf("config.json after trust:\n%s", data)
	}
	if ch, _ := c.TrustFolder(hooks, work); ch.What != "" {
		t.Errorf("trusted again: %+v", ch)
	}
	if err := os.WriteFile(c.UserConfig(), []byte(head+`{"trustedFolders": ["`+dir+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if status() != OK {
		t.Errorf("a parent folder trusted: %+v", c.Needs(hooks, work))
	}
	if err := os.WriteFile(c.UserConfig(), []byte(`{"trustedFolders": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if ch, err := c.TrustFolder(hooks, work); err != nil || ch.Done || !strings.Contains(ch.Manual, `"trustedFolders": ["`+work+`"]`) || status() != Fail {
		t.Errorf("broken config.json: %+v %v", ch, err)
	}
	if n := c.Needs(filepath.Join(dir, "elsewhere.json"), work); len(n) != 0 {
		t.Errorf("hooks outside the repository: %+v", n)
	}
}

// Tokens come from session.usage_record, whose inputTokens count the
// cache reads and writes; the assistant.message of the same apiCallId is
// the same call, and its outputTokens (when a release writes them) are
// not taken over the record's.
func TestCopilotUsageRecords(t *testing.T) {
	lines := []string{
		`{"type":"user.message","data":{"content":"go"},"id":"u1","timestamp":"2026-11-25T10:00:00Z"}`,
		`{"type":"session.usage_record","data":{"usage":{"model":"gpt-4.1","inputTokens":6903,"outputTokens":41,"cacheReadTokens":2301,"cacheWriteTokens":3401,"apiCallId":"c1"}},"id":"r1","timestamp":"2026-11-25T10:00:01Z"}`,
		`{"type":"assistant.message","data":{"messageId":"m1","model":"gpt-4.1","content":"","outputTokens":40,"toolRequests":[{"toolCallId":"t1","name":"bash","arguments":{"command":"ls"}}],"apiCallId":"c1"},"id":"a1","timestamp":"2026-11-25T10:00:02Z"}`,
		`{"type":"tool.execution_complete","data":{"toolCallId":"t1","success":true,"result":{"content":"x"}},"id":"x1","timestamp":"2026-11-25T10:00:03Z"}`,
		`{"type":"session.usage_record","data":{"usage":{"model":"gpt-4.1","inputTokens":100,"outputTokens":7,"cacheReadTokens":60,"cacheWriteTokens":0,"apiCallId":"c2"}},"id":"r2","timestamp":"2026-11-25T10:00:04Z"}`,
		`{"type":"assistant.message","data":{"messageId":"m2","model":"gpt-4.1","content":"done","toolRequests":[],"apiCallId":"c2"},"id":"a2","timestamp":"2026-11-25T10:00:05Z"}`,
		`{"type":"session.shutdown","data":{},"id":"s1","timestamp":"2026-11-25T10:00:06Z"}`,
	}
	var msgs []any
	for _, l := range lines {
		msgs = append(msgs, Element([]byte(l), snapshot.Limits{}))
	}
	calls := snapshot.ModelCalls(msgs, ViewMessage)
	if len(calls) != 2 {
		t.Fatalf("%d calls: %+v", len(calls), calls)
	}
	want := []snapshot.Usage{{Input: 1201, CacheRead: 2301, CacheWrite: 3401, Output: 41}, {Input: 40, CacheRead: 60, Output: 7}}
	for i, c := range calls {
		if c.Usage != want[i] || c.Estimated || c.Model != "gpt-4.1" || c.ID != []string{"c1", "c2"}[i] {
			t.Errorf("call %d: %+v, want %+v", i+1, c, want[i])
		}
	}
	c := Copilot{}
	if !c.Ended(msgs[6]) || c.Ended(msgs[5]) || !c.WritesAfter(Payload{Event: "sessionEnd"}) || c.WritesAfter(Payload{Event: "agentStop"}) {
		t.Error("the lines after sessionEnd")
	}
}

// Copilot CLI 1.0 sends toolArgs as an object; older releases its JSON.
func TestCopilotToolArgs(t *testing.T) {
	c := Copilot{Home: "/home/ana/.copilot"}
	for _, args := range []string{`{"path":"a.go"}`, `"{\"path\":\"a.go\"}"`} {
		p, err := c.Decode([]byte(`{"sessionId":"6f1d2c3b","toolName":"edit","toolArgs":`+args+`}`), []string{"postToolUse"})
		if err != nil || p.ToolInput["path"] != "a.go" {
			t.Errorf("toolArgs %s: %+v %v", args, p.ToolInput, err)
		}
	}
}

// Resume writes events.jsonl where Copilot CLI looks for the session,
// and says how to resume it in the project's folder.
func TestCopilotResumeTarget(t *testing.T) {
	c := Copilot{Home: "/home/ana/.copilot"}
	path, cmd, err := c.ResumeTarget("9d362af6-ca39-4eea-868c-df2047196cc0", map[string]any{"cwd": "/src/demo"})
	if err != nil || path != "/home/ana/.copilot/session-state/9d362af6-ca39-4eea-868c-df2047196cc0/events.jsonl" || cmd != "cd /src/demo && copilot --resume 9d362af6-ca39-4eea-868c-df2047196cc0" {
		t.Errorf("%s, %q, %v", path, cmd, err)
	}
	if _, _, err := c.ResumeTarget("../x", nil); err == nil {
		t.Error("a session id that leaves session-state was taken")
	}
}

// doctor finds git-snap's entries in a flat hooks file (Copilot CLI's
// {bash, powershell} entries), and only the agent's.
func TestHookCommandsFlat(t *testing.T) {
	file := filepath.Join(t.TempDir(), "git-snap.json")
	c := Copilot{}
	if _, err := c.InstallHook(file, "git-snap hook copilot"); err != nil {
		t.Fatal(err)
	}
	got, err := HookCommands(file, "copilot")
	if err != nil || len(got) != len(c.Events()) || got["sessionEnd"][0] != "git-snap hook copilot sessionEnd" {
		t.Errorf("%v %v", got, err)
	}
	if got, _ := HookCommands(file, "cursor"); len(got) != 0 {
		t.Errorf("another agent's: %v", got)
	}
}

// Copilot CLI 1.0.34 writes no usage record: each run's session.shutdown
// has its tokens by model, and the runs add up; its messages' output
// counts are not counted again. With usage records, those count and the
// shutdowns, the session's totals so far in later releases, do not.
func TestCopilotRunTotals(t *testing.T) {
	shutdown := func(id string, calls, in, read, out int) string {
		return fmt.Sprintf(`{"type":"session.shutdown","data":{"modelMetrics":{"claude-sonnet-4.6":{"requests":{"count":%d},"usage":{"inputTokens":%d,"outputTokens":%d,"cacheReadTokens":%d,"cacheWriteTokens":0}}}},"id":"%s","timestamp":"2026-11-25T10:00:09Z"}`, calls, in, out, read, id)
	}
	lines := []string{
		`{"type":"session.start","data":{"sessionId":"f91ef169-272f-4c76-92f8-b4fc78466758","selectedModel":"claude-sonnet-4.6"},"id":"e0","timestamp":"2026-11-25T10:00:00Z"}`,
		`{"type":"user.message","data":{"content":"go"},"id":"u1","timestamp":"2026-11-25T10:00:01Z"}`,
		`{"type":"assistant.message","data":{"messageId":"m1","content":"","outputTokens":40,"toolRequests":[{"toolCallId":"t1","name":"bash","arguments":{}}]},"id":"a1","timestamp":"2026-11-25T10:00:02Z"}`,
		`{"type":"tool.execution_complete","data":{"toolCallId":"t1","success":true,"result":{"content":"x"}},"id":"x1","timestamp":"2026-11-25T10:00:03Z"}`,
		`{"type":"assistant.message","data":{"messageId":"m2","content":"done","outputTokens":7},"id":"a2","timestamp":"2026-11-25T10:00:04Z"}`,
		shutdown("s1", 2, 1000, 600, 47),
		`{"type":"user.message","data":{"content":"more"},"id":"u2","timestamp":"2026-11-25T10:01:01Z"}`,
		`{"type":"assistant.message","data":{"messageId":"m3","content":"ok","outputTokens":5},"id":"a3","timestamp":"2026-11-25T10:01:02Z"}`,
		shutdown("s2", 1, 500, 200, 5),
	}
	var msgs []any
	for _, l := range lines {
		msgs = append(msgs, Element([]byte(l), snapshot.Limits{}))
	}
	doc := map[string]any{snapshot.MemberMessages: msgs}
	n := NumbersOf(doc, "copilot")
	want := snapshot.Usage{Input: 700, CacheRead: 800, Output: 52}
	if n.ModelCalls != 3 || n.ByModel["claude-sonnet-4.6"] != want || len(n.ByModel) != 1 || n.Estimated {
		t.Errorf("numbers %+v, want 3 calls of claude-sonnet-4.6 %+v", n, want)
	}
	st := snapshot.ComputeStats(doc, ViewMessage)
	if st.ModelCalls != 3 || st.InputTokens != 700 || st.CacheReadTokens != 800 || st.OutputTokens != 52 {
		t.Errorf("stats %+v", st)
	}
	outs := 0
	for range Replay(doc) {
		outs++
	}
	if outs != 3 {
		t.Errorf("replay: %d outputs, want the 3 responses", outs)
	}
	if id := (Copilot{}).SessionID(msgs[:3]); id != "f91ef169-272f-4c76-92f8-b4fc78466758" {
		t.Errorf("session id %q", id)
	}
	// A release that writes usage records: they count, and the shutdown
	// (its totals so far) does not again.
	record := `{"type":"session.usage_record","data":{"usage":{"model":"gpt-4.1","inputTokens":100,"outputTokens":7,"cacheReadTokens":60,"cacheWriteTokens":0,"apiCallId":"c9"}},"id":"r9","timestamp":"2026-11-25T10:02:00Z"}`
	doc[snapshot.MemberMessages] = append(msgs[:len(msgs):len(msgs)], Element([]byte(record), snapshot.Limits{}))
	if n := NumbersOf(doc, "copilot"); n.InputTokens != 40 || n.CacheReadTokens != 60 {
		t.Errorf("with a usage record: %+v, want its tokens alone", n)
	}
}

// An events.jsonl imported from elsewhere than its session's folder is
// named by session.start's sessionId.
func TestCopilotSessionNamedByItsStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copied", "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "live", "copilot-1.0.34", "f91ef169-272f-4c76-92f8-b4fc78466758", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if name, err := CheckTranscript(Copilot{}, path, snapshot.Limits{}); err != nil || name != "f91ef169-272f-4c76-92f8-b4fc78466758" {
		t.Errorf("named %q (%v)", name, err)
	}
}
