package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/snapshot"
)

const geminiChat = "../testdata/gemini/session-2026-01-16T11-01-file-ops-37b7abef.json"

// readJSONDoc reads a whole JSON document with encoding/json alone.
func readJSONDoc(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// countGemini: one model call per gemini message; its tokens: input less
// cached (plus the tool-use prompt), cached as cache reads, output plus
// thoughts; tool calls are toolCalls entries, failed when their status is
// error or cancelled; turns are user messages; times are the messages'.
func countGemini(doc map[string]any) (c counts, thoughts int64) {
	msgs, _ := doc["messages"].([]any)
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		c.span(m)
		switch text(m, "type") {
		case "user":
			c.Turns++
		case "gemini":
			c.ModelCalls++
			c.Input += integer(m, "tokens", "input") - integer(m, "tokens", "cached") + integer(m, "tokens", "tool")
			c.CacheRead += integer(m, "tokens", "cached")
			c.Output += integer(m, "tokens", "output") + integer(m, "tokens", "thoughts")
			thoughts += integer(m, "tokens", "thoughts")
			calls, _ := m["toolCalls"].([]any)
			for _, call := range calls {
				c.ToolCalls++
				if s := text(call, "status"); s == "error" || s == "cancelled" {
					c.ToolFailures++
				}
			}
		}
	}
	return c, thoughts
}

func TestGeminiNumbersMatchTheRawFile(t *testing.T) {
	want, thoughts := countGemini(readJSONDoc(t, geminiChat))
	if want.ModelCalls == 0 || want.ToolCalls == 0 || thoughts == 0 || want.CacheRead == 0 {
		t.Fatalf("the sample lost what this test is about: %+v", want)
	}
	got, e := importedCounts(t, "gemini", geminiChat, "37b7abef-713d-4522-85f0-8ff15a4e6d17")
	got.Messages = 0 // this counter of the older document counts no messages as a person does
	if got != want {
		t.Errorf("trace:\n got %+v\nwant %+v", got, want)
	}
	if !e.Header.Time.Equal(want.Last.Truncate(time.Second)) && !e.Header.Time.Equal(want.Last) {
		t.Errorf("snapshot time %s, want the newest message's %s", e.Header.Time, want.Last)
	}
	if e.Header.Turn != want.Turns {
		t.Errorf("turn %d, want %d", e.Header.Turn, want.Turns)
	}
	t.Logf("%+v, thoughts %d", want, thoughts)
}

// A Gemini CLI tool result is what the model was sent (the output of its
// functionResponse), as show, export and search read it, not what the
// CLI showed the user (resultDisplay: "" for read_file, a summary for
// search_file_content).
func TestGeminiToolResultsAreWhatTheModelSaw(t *testing.T) {
	chat := readJSONDoc(t, geminiChat)
	want := map[string]string{} // call id → functionResponse.response.output
	for _, m := range chat["messages"].([]any) {
		calls, _ := field(m, "toolCalls").([]any)
		for _, c := range calls {
			parts, _ := field(c, "result").([]any)
			for _, p := range parts {
				want[text(c, "id")] += text(p, "functionResponse", "response", "output")
			}
		}
	}
	_, s := newStore(t)
	ctx := context.Background()
	a, _ := agent.Lookup("gemini", agent.Env{})
	e, _, err := Ingest{Store: s, Adapter: a}.Import(ctx, "g", geminiChat)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := s.Read(ctx, e.ID)
	seen := 0
	for _, rec := range agent.LiveMessages(doc) {
		for _, p := range agent.ViewMessage(rec).Parts {
			if p.Kind == snapshot.PartToolResult {
				seen++
				if p.Text != want[p.CallID] {
					t.Errorf("%s: result %.80q, the model was sent %.80q", p.CallID, p.Text, want[p.CallID])
				}
			}
		}
	}
	if seen != len(want) || seen == 0 {
		t.Errorf("%d results, the chat has %d", seen, len(want))
	}
	idx, err := search.Open(ctx, s, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hits, err := idx.Search(ctx, search.Query{Pattern: "Cross-platform secrets detection using Gitleaks"})
	if err != nil || len(hits) == 0 || hits[0].Field != search.FieldToolResult || hits[0].Tool != "read_file" {
		t.Errorf("search for a file read_file sent the model: %+v %v", hits, err)
	}
	if hits, _ := idx.Search(ctx, search.Query{Pattern: "Subagent codebase_investigator Finished"}); len(hits) != 0 {
		t.Errorf("search finds what only the CLI showed: %+v", hits)
	}
}

// versions are the documents Gemini CLI writes as the sample session
// grows: a message at a time, and each gemini message first without its
// tool results and tokens, then whole, as the CLI updates it in place.
func geminiVersions(t *testing.T) []map[string]any {
	full := readJSONDoc(t, geminiChat)
	msgs := full["messages"].([]any)
	var out []map[string]any
	with := func(ms []any, updated string) map[string]any {
		d := map[string]any{"messages": ms, "lastUpdated": updated}
		for _, k := range []string{"sessionId", "projectHash", "startTime"} {
			d[k] = full[k]
		}
		return d
	}
	for i, raw := range msgs {
		m := raw.(map[string]any)
		if m["type"] == "gemini" {
			partial := map[string]any{}
			for k, v := range m {
				if k != "tokens" && k != "toolCalls" {
					partial[k] = v
				}
			}
			out = append(out, with(append(append([]any{}, msgs[:i]...), partial), text(m, "timestamp")))
		}
		out = append(out, with(append([]any{}, msgs[:i+1]...), text(m, "timestamp")))
	}
	// /rewind: the last exchange taken back, the chat rewritten shorter.
	out = append(out, with(append([]any{}, msgs[:len(msgs)-2]...), "2026-01-16T12:40:00.000Z"))
	return out
}

func TestGeminiRestoreEqualsTheDocumentAtEachSnapshot(t *testing.T) {
	versions := geminiVersions(t)
	payload := func(path string) []byte {
		b, _ := json.Marshal(map[string]any{"session_id": "37b7abef-713d-4522-85f0-8ff15a4e6d17", "transcript_path": path, "cwd": "/src", "hook_event_name": "AfterTool", "tool_name": "write_file"})
		return b
	}
	s, ids := recordVersions(t, "gemini", "session-2026-01-16T11-01-37b7abef.json", versions, payload)
	// Each partial gemini message was stored, then its whole version: every
	// reader counts the whole ones once (trace and stats each read the
	// live records again, and once counted 8 calls of 9, the last at
	// 12:34:21 instead of 12:34:29).
	want, _ := countGemini(readJSONDoc(t, geminiChat))
	agreeEverywhere(t, s, ids[len(ids)-2], want)
	// After /rewind, the chat is shorter, and so are its numbers.
	rewound := readJSONDoc(t, geminiChat)
	rewound["messages"] = rewound["messages"].([]any)[:len(rewound["messages"].([]any))-2]
	back, _ := countGemini(rewound)
	agreeEverywhere(t, s, ids[len(ids)-1], back)
}

// recordVersions writes each version of a document transcript over the
// last, as the agent rewrites it, records a hook call after each, and
// checks that every snapshot restores the version written before it,
// and that no snapshot holds fewer messages than the one before.
func recordVersions(t *testing.T, agentName, name string, versions []map[string]any, payload func(path string) []byte) (*gitstore.Store, []storage.Entry) {
	t.Helper()
	ctx := context.Background()
	_, s := newStore(t)
	a, _ := agent.Lookup(agentName, agent.Env{})
	path := filepath.Join(t.TempDir(), name)
	in := Ingest{Store: s, Adapter: a}
	var ids []storage.Entry
	for i, v := range versions {
		data, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := a.Decode(payload(path), nil)
		if err != nil {
			t.Fatal(err)
		}
		e, added, err := in.Run(ctx, p, storage.SaveOptions{})
		if err != nil || !added {
			t.Fatalf("version %d: added %v, %v", i, added, err)
		}
		ids = append(ids, e)
		if _, added, _ := in.Run(ctx, p, storage.SaveOptions{}); added {
			t.Fatalf("version %d recorded twice", i)
		}
	}
	stored := 0
	for i, e := range ids {
		doc, back := restoredDocument(t, s, e.ID)
		var want any
		raw, _ := json.Marshal(versions[i])
		_ = json.Unmarshal(raw, &want)
		if !jsonEqual(back, want) {
			t.Fatalf("snapshot %d does not restore the document written then", i)
		}
		msgs, _ := doc[snapshot.MemberMessages].([]any)
		if live := agent.LiveMessages(doc); len(live) != len(versions[i]["messages"].([]any)) {
			t.Errorf("snapshot %d: %d live messages, the document has %d", i, len(live), len(versions[i]["messages"].([]any)))
		}
		if len(msgs) < stored {
			t.Errorf("snapshot %d holds %d messages, fewer than before: history was lost", i, len(msgs))
		}
		stored = len(msgs)
	}
	checkHistoryTotals(t, s, ids[0].Header.Session)
	return s, ids
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestGeminiHookRefusesWhatIsNotAChat(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	a, _ := agent.Lookup("gemini", agent.Env{})
	dir := t.TempDir()
	for name, content := range map[string]string{
		"half.json":   `{"sessionId":"x","messages":[{"id":"1"`, // being written
		"array.json":  `[1,2]`,
		"member.json": `{"sessionId":"x","messages":{"id":"1"}}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		p := agent.Payload{Agent: "gemini", Event: "AfterAgent", SessionID: "s-" + name[:4], TranscriptPath: path}
		if _, added, err := (Ingest{Store: s, Adapter: a}).Run(ctx, p, storage.SaveOptions{}); err == nil || added {
			t.Errorf("%s: recorded (%v), want an error", name, added)
		}
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(geminiChat, link); err != nil {
		t.Fatal(err)
	}
	p := agent.Payload{Agent: "gemini", Event: "AfterAgent", SessionID: "s-link", TranscriptPath: link}
	if _, _, err := (Ingest{Store: s, Adapter: a}).Run(ctx, p, storage.SaveOptions{}); err == nil {
		t.Error("read a chat through a symbolic link")
	}
}

func TestGeminiDecodeFindsTheChat(t *testing.T) {
	home := t.TempDir()
	chats := filepath.Join(home, ".gemini", "tmp", "907f2064", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(chats, "session-2026-01-16T11-01-37b7abef.json")
	if err := os.WriteFile(chat, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	a, _ := agent.Lookup("gemini", agent.Env{Home: home})
	p, err := a.Decode([]byte(`{"session_id":"37b7abef-713d-4522-85f0-8ff15a4e6d17","hook_event_name":"SessionStart","cwd":"/src"}`), nil)
	if err != nil || p.TranscriptPath != chat {
		t.Fatalf("%+v, %v", p, err)
	}
	for _, bad := range []string{`[]`, `{"session_id":"x"}`, `{"hook_event_name":"AfterTool"}`, `{"session_id":"../../*/x","hook_event_name":"AfterTool"}`} {
		p, err := a.Decode([]byte(bad), nil)
		if err == nil && p.TranscriptPath != "" {
			t.Errorf("%s: %+v", bad, p)
		}
	}
}

func TestGeminiTouchedFiles(t *testing.T) {
	doc := readJSONDoc(t, geminiChat)
	a, _ := agent.Lookup("gemini", agent.Env{})
	var got []string
	for _, m := range doc["messages"].([]any) {
		got = append(got, a.TouchedFiles(normalize(t, m))...)
	}
	if len(got) != 3 || got[0] != "hello.md" {
		t.Errorf("touched %v, want hello.md from its three writes", got)
	}
}

// normalize turns an encoding/json value into the store's (numbers as
// snapshot.Number).
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, _ := json.Marshal(v)
	out, err := snapshot.Parse(b, snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// restoredDocument reads snapshot id and the document transcript restore
// gives back from it, decoded.
func restoredDocument(t *testing.T, s *gitstore.Store, id storage.ID) (map[string]any, any) {
	t.Helper()
	doc, _, err := s.Read(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	files, err := agent.Restore(doc)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal(files[""][0], &back); err != nil {
		t.Fatal(err)
	}
	return doc, back
}
