package capture

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/snapshot"
)

const openCodeExport = "../testdata/opencode/ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp.json"

// countOpenCode: one model call per assistant message, its info.tokens
// (input; cache read and write; output plus reasoning); tool calls are
// tool parts, failed when their state's status is error; turns are user
// messages with text OpenCode did not add itself (synthetic);
// compactions are user messages with a compaction part; times are the
// messages' creation times. Messages, as a person counts them, are the
// turns, the answers (assistant messages with some text that is not
// blank), the tool calls and their results (a tool part whose state is
// completed or error has one).
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
		typed, said := false, false
		for _, p := range parts {
			switch text(p, "type") {
			case "tool":
				c.ToolCalls++
				c.Messages++
				switch text(p, "state", "status") {
				case "error":
					c.ToolFailures++
					c.Messages++
				case "completed":
					c.Messages++
				}
			case "compaction":
				c.Compactions++
			case "text":
				typed = typed || field(p, "synthetic") != true
				said = said || strings.TrimSpace(text(p, "text")) != ""
			}
		}
		switch text(raw, "info", "role") {
		case "user":
			if typed {
				c.Turns++
				c.Messages++
			}
		case "assistant":
			if said {
				c.Messages++
			}
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
func importedCounts(t *testing.T, agentName, path, session string) (counts, struct{ Header snapshot.Header }) {
	t.Helper()
	_, s := newStore(t)
	a, _ := agent.Lookup(agentName, agent.Env{})
	ctx := context.Background()
	name, err := agent.CheckTranscript(a, path, snapshot.Limits{})
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
	_, tr := agent.Trace(doc, a)
	got := counts{Messages: tr.Messages, ModelCalls: tr.ModelCalls, ToolCalls: tr.ToolCalls, ToolFailures: tr.ToolFailures, Turns: tr.Turns, Compactions: tr.Compactions,
		Input: tr.InputTokens, CacheRead: tr.CacheReadTokens, CacheWrite: tr.CacheWriteTokens, Output: tr.OutputTokens, First: tr.First, Last: tr.Last}
	n := agent.NumbersOf(doc, agentName)
	if n.ModelCalls != got.ModelCalls || n.InputTokens != got.Input || n.CacheReadTokens != got.CacheRead || n.CacheWriteTokens != got.CacheWrite || n.OutputTokens != got.Output {
		t.Errorf("stats %+v disagree with trace %+v", n, got)
	}
	calls := 0
	for range agent.Replay(doc) {
		calls++
	}
	if calls != got.ModelCalls {
		t.Errorf("replay: %d calls, trace %d", calls, got.ModelCalls)
	}
	want := got
	if n.Estimated {
		want.Output = 0
	}
	agreeEverywhere(t, s, e, want)
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
	s, ids := recordVersions(t, "opencode", "ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp.json", versions, payload)
	// Each message was recorded as the export grew: every reader counts
	// the last version once.
	agreeEverywhere(t, s, ids[len(ids)-1], countOpenCode(full))
}

// A plugin call that finishes after OpenCode exited (its session.idle
// call, cut short by the exit and run on) gives an export older than
// the one git snap hook recorded separately from opencode export: its
// info.time.updated is earlier, and it is not recorded over the newer
// one. A newer export is.
func TestOpenCodeEarlierExportIsNotRecorded(t *testing.T) {
	ctx := context.Background()
	full := readJSONDoc(t, openCodeExport)
	at := func(doc map[string]any, updated int64, n int) map[string]any {
		info := map[string]any{}
		for k, v := range doc["info"].(map[string]any) {
			info[k] = v
		}
		info["time"] = map[string]any{"created": 1768560000000, "updated": updated}
		msgs := doc["messages"].([]any)
		return map[string]any{"info": info, "messages": msgs[:n]}
	}
	msgs := len(full["messages"].([]any))
	_, s := newStore(t)
	a, _ := agent.Lookup("opencode", agent.Env{})
	path := filepath.Join(t.TempDir(), "ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp.json")
	record := func(doc map[string]any) bool {
		data, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := a.Decode([]byte(`{"hook_event_name":"session.idle","session_id":"ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp","transcript_path":"`+path+`"}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, added, err := Ingest{Store: s, Adapter: a}.Run(ctx, p, storage.SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return added
	}
	restored := func() any {
		tip, _ := s.SessionTip("ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp")
		_, back := restoredDocument(t, s, tip)
		return back
	}
	asJSON := func(v any) any {
		data, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(data, &out)
		return out
	}
	newer := at(full, 1768560070000, msgs)
	if !record(newer) {
		t.Fatal("the export was not recorded")
	}
	if record(at(full, 1768560050000, msgs-2)) {
		t.Error("an earlier export was recorded over a newer one")
	}
	if !jsonEqual(restored(), asJSON(newer)) {
		t.Error("the session no longer restores the newer export")
	}
	later := at(full, 1768560090000, msgs-1) // a message undone since: newer, and shorter
	if !record(later) || !jsonEqual(restored(), asJSON(later)) {
		t.Error("a newer export was not recorded")
	}
}

const openCodeLive = "../testdata/live/opencode/ses_de3085fdeffe73Ib9EawIKH7Xu.json"

// OpenCode rewrites messages it has written: the plugin's export at
// tool.execute.after holds the first answer with its tool call running
// and no tokens yet; at session.idle the call is done and counted; after
// the run, the first prompt gains its summary.diffs. Each version of the
// live export so rewritten is recorded, and each snapshot counts what
// that version holds, no message twice and none short.
func TestOpenCodeNumbersAfterRewrites(t *testing.T) {
	final := readJSONDoc(t, openCodeLive)
	clone := func(v any) map[string]any {
		data, _ := json.Marshal(v)
		var out map[string]any
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber()
		if err := dec.Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	msgs := final["messages"].([]any)
	prompt := clone(msgs[0])
	delete(prompt["info"].(map[string]any), "summary")
	running := clone(msgs[1])
	running["info"].(map[string]any)["tokens"] = map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}
	parts := running["parts"].([]any)[:2] // step-start and the tool, not yet done
	tool := parts[1].(map[string]any)
	tool["state"] = map[string]any{"status": "running", "input": tool["state"].(map[string]any)["input"]}
	running["parts"] = parts
	versions := []map[string]any{
		{"info": final["info"], "messages": []any{prompt, running}},
		{"info": final["info"], "messages": []any{prompt, msgs[1], msgs[2]}},
		{"info": final["info"], "messages": []any{msgs[0], msgs[1], msgs[2]}},
		final,
	}
	payload := func(path string) []byte {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "session.idle", "session_id": "ses_de3085fdeffe73Ib9EawIKH7Xu", "transcript_path": path})
		return b
	}
	s, ids := recordVersions(t, "opencode", "ses_de3085fdeffe73Ib9EawIKH7Xu.json", versions, payload)
	for i, v := range versions {
		want := countOpenCode(clone(v))
		if i == 0 && (want.ToolCalls != 1 || want.ModelCalls != 1 || want.Input != 0) {
			t.Fatalf("the first version lost what this test is about: %+v", want)
		}
		agreeEverywhere(t, s, ids[i], want)
	}
	// The totals each snapshot's commit carries (stats reads them) are
	// its document's, messages rewritten and stored again included.
	if n := checkHistoryTotals(t, s, "ses_de3085fdeffe73Ib9EawIKH7Xu"); n != len(versions) {
		t.Errorf("%d snapshots, %d versions", n, len(versions))
	}
}
