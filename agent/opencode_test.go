package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

const openCodeExport = "../testdata/opencode/ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp.json"

// countOpenCode: one model call per assistant message, its info.tokens
// (input; cache read and write; output plus reasoning); tool calls are
// tool parts, failed when their state's status is error; turns are user
// messages with text OpenCode did not add itself (synthetic);
// compactions are user messages with a compaction part; times are the
// messages' creation times.
func countOpenCode(doc map[string]any) counts {
	var c counts
	msgs, _ := doc["messages"].([]any)
	for _, raw := range msgs {
		ms := integer(raw, "info", "time", "created")
		at := time.UnixMilli(ms).UTC()
		if c.First.IsZero() || at.Before(c.First) {
			c.First = at
		}
		if at.After(c.Last) {
			c.Last = at
		}
		parts, _ := field(raw, "parts").([]any)
		typed := false
		for _, p := range parts {
			switch text(p, "type") {
			case "tool":
				c.ToolCalls++
				if text(p, "state", "status") == "error" {
					c.ToolFailures++
				}
			case "compaction":
				c.Compactions++
			case "text":
				typed = typed || field(p, "synthetic") != true
			}
		}
		switch text(raw, "info", "role") {
		case "user":
			if typed {
				c.Turns++
			}
		case "assistant":
			c.ModelCalls++
			c.Input += integer(raw, "info", "tokens", "input")
			c.CacheRead += integer(raw, "info", "tokens", "cache", "read")
			c.CacheWrite += integer(raw, "info", "tokens", "cache", "write")
			c.Output += integer(raw, "info", "tokens", "output") + integer(raw, "info", "tokens", "reasoning")
		}
	}
	return c
}

func TestOpenCodeNumbersMatchTheRawFile(t *testing.T) {
	want := countOpenCode(readJSONDoc(t, openCodeExport))
	if want.ToolFailures == 0 || want.Compactions == 0 || want.CacheWrite == 0 {
		t.Fatalf("the fixture lost what this test is about: %+v", want)
	}
	got, e := importedCounts(t, "opencode", openCodeExport, "ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp")
	if got != want {
		t.Errorf("trace:\n got %+v\nwant %+v", got, want)
	}
	if !e.Header.Time.Equal(want.Last.Truncate(time.Second)) && !e.Header.Time.Equal(want.Last) {
		t.Errorf("snapshot time %s, want the newest message's %s", e.Header.Time, want.Last)
	}
}

// importedCounts imports a document transcript and reads back what trace,
// stats and replay report, checking that they agree.
func importedCounts(t *testing.T, agent, path, session string) (counts, struct{ Header snapshot.Header }) {
	t.Helper()
	_, s := newStore(t)
	a, _ := Lookup(agent, Env{})
	ctx := context.Background()
	name, err := CheckTranscript(a, path, snapshot.Limits{})
	if err != nil || name != session {
		t.Fatalf("check: %q, %v", name, err)
	}
	e, _, err := Ingest{Store: s, Adapter: a}.Import(ctx, name, path)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := s.Read(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, tr := Trace(doc, a)
	got := counts{ModelCalls: tr.ModelCalls, ToolCalls: tr.ToolCalls, ToolFailures: tr.ToolFailures, Turns: tr.Turns, Compactions: tr.Compactions,
		Input: tr.InputTokens, CacheRead: tr.CacheReadTokens, CacheWrite: tr.CacheWriteTokens, Output: tr.OutputTokens, First: tr.First, Last: tr.Last}
	n := NumbersOf(doc, agent)
	if n.ModelCalls != got.ModelCalls || n.InputTokens != got.Input || n.CacheReadTokens != got.CacheRead || n.CacheWriteTokens != got.CacheWrite || n.OutputTokens != got.Output {
		t.Errorf("stats %+v disagree with trace %+v", n, got)
	}
	calls := 0
	for range Replay(doc) {
		calls++
	}
	if calls != got.ModelCalls {
		t.Errorf("replay: %d calls, trace %d", calls, got.ModelCalls)
	}
	return got, struct{ Header snapshot.Header }{e.Header}
}

func TestOpenCodeRestoreEqualsTheExportAtEachSnapshot(t *testing.T) {
	full := readJSONDoc(t, openCodeExport)
	msgs := full["messages"].([]any)
	var versions []map[string]any
	for i := range msgs {
		versions = append(versions, map[string]any{"info": full["info"], "messages": append([]any{}, msgs[:i+1]...)})
	}
	payload := func(path string) []byte {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "session.idle", "session_id": "ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp", "transcript_path": path, "cwd": "/src"})
		return b
	}
	recordVersions(t, "opencode", "ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp.json", versions, payload)
}

func TestOpenCodePluginInstall(t *testing.T) {
	a, _ := Lookup("opencode", Env{Home: "/home/ana"})
	work := t.TempDir()
	file, err := a.SettingsFile(DefaultScope, work)
	if err != nil || file != filepath.Join(work, ".opencode", "plugins", "git-snap.js") {
		t.Fatalf("%s, %v", file, err)
	}
	if user, _ := a.SettingsFile(UserScope, work); user != "/home/ana/.config/opencode/plugins/git-snap.js" {
		t.Errorf("user plugin at %s", user)
	}
	if changed, err := Install(a, file, "git-snap hook opencode"); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	src, _ := os.ReadFile(file)
	for _, want := range []string{`const COMMAND = "git-snap hook opencode"`, "session.idle", "tool.execute.after", "experimental.session.compacting"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the plugin lacks %s", want)
		}
	}
	if changed, _ := Install(a, file, "git-snap hook opencode"); changed {
		t.Error("a second install changed the plugin")
	}
	if changed, _ := Install(a, file, "'/opt/my tools/git-snap' hook opencode"); !changed {
		t.Error("a new command was not written")
	}
	if changed, err := Uninstall(a, file); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the plugin is still there: %v", err)
	}
	mine := []byte("export const Mine = async () => ({})\n")
	if err := os.WriteFile(file, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(a, file, "git-snap hook opencode"); err == nil {
		t.Error("install overwrote a plugin git-snap did not write")
	}
	if _, err := Uninstall(a, file); err == nil {
		t.Error("uninstall removed a plugin git-snap did not write")
	}
	if got, _ := os.ReadFile(file); string(got) != string(mine) {
		t.Error("the user's plugin changed")
	}
}
