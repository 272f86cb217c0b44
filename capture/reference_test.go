package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/report"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// counts are the numbers a careful reader finds in a raw transcript.
type counts struct {
	// Messages are those a person counts: prompts, answers, tool calls
	// and their results.
	Messages                                                int
	ModelCalls, ToolCalls, ToolFailures, Turns, Compactions int
	Input, CacheRead, CacheWrite, Output                    int64
	First, Last                                             time.Time
}

// realSessions are every real transcript in testdata: the agent, the main
// file and the files recorded with it (subagents).
var realSessions = []struct {
	agent, file string
	also        []string
}{
	{"claude-code", "claude-code/short.jsonl", nil},
	{"claude-code", "claude-code/tool_heavy.jsonl", nil},
	{"claude-code", "claude-code/subagent.jsonl", nil},
	{"claude-code", "claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", []string{
		"claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl",
		"claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl",
	}},
	{"codex", "codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl", nil},
	{"codex", "codex-real/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl", nil},
	{"codex", "codex-real/plangate-sample.jsonl", nil},
	// Written by the agents themselves in the live-agent suite (see
	// testdata/live/SOURCE.md): Claude Code 2.1.328, Codex 0.169.0.
	{"claude-code", "live/claude-code/6770d186-a816-4df6-a9b4-d9dc16b84fa9.jsonl", nil},
	{"codex", "live/codex/rollout-2026-11-25T07-37-37-01a211a3-7e80-7a72-8c19-58ed6c22e482.jsonl", nil},
	// Gemini CLI 0.61.0, its appended JSONL chat.
	{"gemini", "live/gemini/session-2026-11-25T09-50-ee947b54.jsonl", nil},
	// Copilot CLI 1.0.102, its events.jsonl with session.usage_record
	// events, and the lines written after sessionEnd returned.
	{"copilot", "live/copilot/9d362af6-ca39-4eea-868c-df2047196cc0/events.jsonl", nil},
	// Copilot CLI 1.0.34, which writes no usage record: its tokens are in
	// each run's session.shutdown alone.
	{"copilot", "live/copilot-1.0.34/f91ef169-272f-4c76-92f8-b4fc78466758/events.jsonl", nil},
	// OpenCode 1.18.33: what opencode export printed after the run, one
	// JSON document whose messages are the records.
	{"opencode", "live/opencode/ses_de3085fdeffe73Ib9EawIKH7Xu.json", nil},
	// Gemini CLI's older chat, one JSON document it rewrites.
	{"gemini", "gemini/session-2026-01-16T11-01-file-ops-37b7abef.json", nil},
	// The five agents added next, from the live-agent suite: Qwen Code
	// 0.24.4, pi 0.73.1, Cline 3.0.65 (its messages document), Kilo 7.7.7
	// (its export, OpenCode's shape) and Droid 0.225.1 (its JSONL, its
	// tokens in the settings document beside it).
	{"qwen", "live/qwen/3bdb31e7-9243-4b50-82d6-426c73cc46ca.jsonl", nil},
	{"pi", "live/pi/2026-11-29T00-03-34-856Z_01a2249d-3f47-70ae-962a-d775f997ed24.jsonl", nil},
	{"cline", "live/cline/1795910525784_ay8kj.messages.json", nil},
	{"kilo", "live/kilo/ses_ddb623addffeksZhTNH1WGQpjA.json", nil},
	{"droid", "live/droid/33f56dc1-5ce4-41df-9e6c-a4e12121e032.jsonl", nil},
}

// TestNumbersMatchTheRawFiles imports every real session and checks what
// stats, trace and replay report against a count made here from the raw
// JSONL (or JSON document) with encoding/json alone, by the rules of
// docs/design.md §8; and imports it again with every file cut before its
// final newline, as other tools often copy transcripts: nothing may be
// lost, and the restored files are the lines read, JSON-equal.
func TestNumbersMatchTheRawFiles(t *testing.T) {
	for _, rs := range realSessions {
		for _, cut := range []bool{false, true} {
			name := filepath.Base(rs.file)
			if cut {
				name += "/no-final-newline"
			}
			t.Run(name, func(t *testing.T) {
				root := filepath.Join("..", "testdata")
				if cut {
					root = copies(t, append([]string{rs.file}, rs.also...), true)
				}
				checkRealSession(t, rs.agent, root, rs.file, rs.also)
			})
		}
		if len(rs.also) > 0 {
			// Without its subagents' files: their work is read from the
			// copies of their records the parent holds.
			t.Run(filepath.Base(rs.file)+"/without-subagent-files", func(t *testing.T) {
				checkRealSession(t, rs.agent, copies(t, []string{rs.file}, false), rs.file, nil)
			})
		}
	}
}

// copies copies files of testdata into a temporary folder, at the same
// relative paths, each without its final newline when cut (one that has
// none is copied as it is); it returns the folder.
func copies(t *testing.T, files []string, cut bool) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range withSettings(files) {
		data, err := os.ReadFile(filepath.Join("..", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if cut && !strings.HasSuffix(f, settingsSuffix) {
			data = bytes.TrimSuffix(data, []byte("\n"))
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// settingsSuffix ends the document Droid keeps beside a session's JSONL,
// with its tokens: it is read with the session, never cut.
const settingsSuffix = ".settings.json"

// withSettings is files and, for each JSONL file, the settings document
// beside it when there is one.
func withSettings(files []string) []string {
	out := slices.Clone(files)
	for _, f := range files {
		s := strings.TrimSuffix(f, ".jsonl") + settingsSuffix
		if _, err := os.Stat(filepath.Join("..", "testdata", s)); err == nil && strings.HasSuffix(f, ".jsonl") {
			out = append(out, s)
		}
	}
	return out
}

// checkRealSession imports the session whose main file and subagents'
// (also) are below root, and checks every reader's numbers against the
// count of the raw files, and the restored files against their lines.
func checkRealSession(t *testing.T, agentName, root, file string, also []string) {
	t.Helper()
	files := append([]string{file}, also...)
	var records []map[string]any
	var exported map[string]any // a transcript that is one document
	var settings map[string]any // Droid's, beside its JSONL
	for _, f := range files {
		if agentName == "droid" {
			settings = readJSONDoc(t, filepath.Join(root, strings.TrimSuffix(f, ".jsonl")+settingsSuffix))
		}
		if isDocument(agentName, f) {
			exported = readJSONDoc(t, filepath.Join(root, f))
			if m, ok := exported["messages"].([]any); ok {
				for _, r := range m {
					records = append(records, r.(map[string]any))
				}
			}
			continue
		}
		records = append(records, readJSONL(t, filepath.Join(root, f))...)
	}
	if settings != nil {
		records = append(records, settings) // recorded as one record, whole
	}
	callTime := map[string]time.Time{} // a response's first record's time, by its id
	for _, r := range records {
		at, err := time.Parse(time.RFC3339Nano, text(r, "timestamp"))
		if id := text(r, "message", "id"); err == nil && text(r, "type") == "assistant" && callTime[id].IsZero() {
			callTime[id] = at
		}
		if id := text(r, "data", "message", "message", "id"); err == nil && text(r, "type") == "progress" && id != "" && callTime[id].IsZero() {
			callTime[id] = at
		}
	}
	want := referenceCount(t, agentName, records, exported, settings)

	_, s := newStore(t)
	a, err := agent.Lookup(agentName, agent.Env{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var warnings []string
	e, _, err := Ingest{Store: s, Adapter: a, Warn: func(m string) { warnings = append(warnings, m) }}.Import(ctx, "s", filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("the import warned: %q", warnings)
	}
	doc, _, err := s.Read(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if msgs, _ := doc[snapshot.MemberMessages].([]any); exported == nil && len(msgs) != len(records) {
		t.Fatalf("imported %d records, the files have %d", len(msgs), len(records))
	}
	if exported == nil && settings == nil {
		sameLinesRestored(t, doc, root, file, also)
	}
	_, tr := agent.Trace(doc, a)
	got := counts{
		Messages: tr.Messages, ModelCalls: tr.ModelCalls, ToolCalls: tr.ToolCalls, ToolFailures: tr.ToolFailures, Turns: tr.Turns, Compactions: tr.Compactions,
		Input: tr.InputTokens, CacheRead: tr.CacheReadTokens, CacheWrite: tr.CacheWriteTokens, Output: tr.OutputTokens,
		First: tr.First, Last: tr.Last,
	}
	if want.Messages == 0 {
		got.Messages = 0 // this agent's counter counts no messages as a person does
	}
	st := snapshot.ComputeStats(doc, agent.ViewMessage)
	if st.Estimated { // no usage recorded: the output is a guess from the text, and says so
		if want.Input+want.CacheRead+want.CacheWrite+want.Output != 0 {
			t.Errorf("tokens estimated where the file records them")
		}
		got.Output, st.OutputTokens = 0, 0
	}
	if got != want {
		t.Errorf("trace:\n got %+v\nwant %+v", got, want)
	}
	n := 0
	prev := time.Time{}
	for o := range agent.Replay(doc) {
		n++
		// Calls come in the order they were made, subagents' among the main session's.
		if at := callTime[o.ID]; o.ID != "" && at.Before(prev) {
			t.Errorf("replay: call %d (%s) at %s comes after one at %s", o.Call, o.ID, at, prev)
		} else if o.ID != "" {
			prev = at
		}
	}
	if n != want.ModelCalls {
		t.Errorf("replay: %d outputs, want %d", n, want.ModelCalls)
	}
	if !e.Header.Time.Equal(want.Last.Truncate(time.Second)) && !e.Header.Time.Equal(want.Last) {
		t.Errorf("snapshot time %s, want the newest record's %s", e.Header.Time, want.Last)
	}
	if !e.Header.Counted {
		t.Errorf("the imported snapshot keeps no totals in its commit: the first stats would read its document")
	}
	agreeEverywhere(t, s, e, want)
	t.Logf("%s: %+v", file, want)
}

// isDocument reports whether an agent's transcript file is one JSON
// document rather than lines.
func isDocument(agentName, file string) bool {
	switch agentName {
	case "opencode", "kilo", "cline":
		return true
	}
	return agentName == "gemini" && strings.HasSuffix(file, ".json")
}

// referenceCount counts the records of a session as its agent's
// counter here does.
func referenceCount(t *testing.T, agentName string, records []map[string]any, exported, settings map[string]any) counts {
	t.Helper()
	switch {
	case agentName == "codex":
		return countCodex(records)
	case agentName == "gemini" && exported != nil:
		c, _ := countGemini(exported)
		return c
	case agentName == "gemini":
		return countGeminiLines(t, records)
	case agentName == "copilot":
		return countCopilotEvents(records)
	case agentName == "opencode", agentName == "kilo":
		return countOpenCode(exported)
	case agentName == "qwen":
		return countQwen(records)
	case agentName == "pi":
		return countPi(records)
	case agentName == "cline":
		return countCline(exported)
	case agentName == "droid":
		return countDroid(records, settings)
	}
	return countClaude(records)
}

// sameLinesRestored checks that restoring the snapshot gives each file's
// lines back, JSON-equal (a line that is not JSON, byte for byte).
func sameLinesRestored(t *testing.T, doc map[string]any, root, file string, also []string) {
	t.Helper()
	restored, err := agent.Restore(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(file)
	for _, f := range append([]string{file}, also...) {
		key := ""
		if f != file {
			rel, _ := filepath.Rel(dir, f)
			key = filepath.ToSlash(rel)
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		got := restored[key]
		if len(got) != len(want) {
			t.Errorf("%s: %d lines restored, the file has %d", f, len(got), len(want))
			continue
		}
		for i := range want {
			a, err1 := snapshot.Parse(got[i], snapshot.Limits{})
			b, err2 := snapshot.Parse(want[i], snapshot.Limits{})
			if (err1 != nil || err2 != nil || !snapshot.Equal(a, b)) && !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s line %d differs:\n got %.200s\nwant %.200s", f, i+1, got[i], want[i])
				break
			}
		}
	}
}

// countGeminiLines counts a Gemini CLI 0.61 JSONL chat: a message is
// each id of a line that has one, as its last such line has it; a
// message a $set's messages hold that no line has before (the session's
// context) is one too, at its first $set. One model call per gemini
// message, its tokens: input less cached (plus the tool-use prompt),
// cached as cache reads, output plus thoughts. Tool calls are toolCalls
// entries, failed when their status is error or cancelled, each with its
// result; turns are user messages with text that is not Gemini CLI's
// <session_context>; answers are gemini messages with text. A message's
// time is that of its first line. The chat has no $rewindTo.
func countGeminiLines(t *testing.T, records []map[string]any) counts {
	var order []string
	last := map[string]map[string]any{}
	first := map[string]time.Time{}
	note := func(m map[string]any) {
		id := text(m, "id")
		if _, seen := last[id]; !seen {
			order = append(order, id)
			first[id], _ = time.Parse(time.RFC3339Nano, text(m, "timestamp"))
		}
		last[id] = m
	}
	for _, r := range records {
		switch {
		case r["$rewindTo"] != nil:
			t.Fatal("the chat rewinds; this count does not follow rewinds")
		case text(r, "id") != "":
			note(r)
		case r["$set"] != nil:
			msgs, _ := field(r, "$set", "messages").([]any)
			for _, raw := range msgs {
				if m, _ := raw.(map[string]any); text(m, "id") != "" && last[text(m, "id")] == nil {
					note(m)
				}
			}
		}
	}
	var c counts
	for _, id := range order {
		m := last[id]
		if at := first[id]; !at.IsZero() {
			if c.First.IsZero() || at.Before(c.First) {
				c.First = at
			}
			if at.After(c.Last) {
				c.Last = at
			}
		}
		switch text(m, "type") {
		case "user":
			parts, _ := m["content"].([]any)
			for _, p := range parts {
				if s := text(p, "text"); s != "" && !strings.HasPrefix(s, "<session_context>") {
					c.Turns++
					c.Messages++
					break
				}
			}
		case "gemini":
			c.ModelCalls++
			c.Input += integer(m, "tokens", "input") - integer(m, "tokens", "cached") + integer(m, "tokens", "tool")
			c.CacheRead += integer(m, "tokens", "cached")
			c.Output += integer(m, "tokens", "output") + integer(m, "tokens", "thoughts")
			if text(m, "content") != "" {
				c.Messages++
			}
			calls, _ := m["toolCalls"].([]any)
			for _, call := range calls {
				c.ToolCalls++
				c.Messages += 2 // the call and its result
				if s := text(call, "status"); s == "error" || s == "cancelled" {
					c.ToolFailures++
				}
			}
		}
	}
	return c
}

// countCopilotEvents counts a Copilot CLI events.jsonl: one model call
// per session.usage_record, its tokens: inputTokens less the cache reads
// and writes it counts in, each of those, and the output. A log without
// usage records (1.0.34) has its tokens only in each run's
// session.shutdown: the sum over the runs of every model's
// modelMetrics, its requests the model calls; without those either, a
// call per assistant.message and its outputTokens. Turns are
// user.message events; tool calls are the toolRequests of the
// assistant.message events, failed when their tool.execution_complete
// says success false. Messages are the turns, the answers (an
// assistant.message with text), the tool calls and their results. The
// span is every event's timestamp.
func countCopilotEvents(records []map[string]any) counts {
	var c, fromRecords, fromRuns, fromMessages counts
	records2 := false
	messages := map[string]bool{}
	for _, r := range records {
		c.span(r)
		switch text(r, "type") {
		case "session.usage_record":
			records2 = true
			fromRecords.ModelCalls++
			read, write := integer(r, "data", "usage", "cacheReadTokens"), integer(r, "data", "usage", "cacheWriteTokens")
			fromRecords.Input += integer(r, "data", "usage", "inputTokens") - read - write
			fromRecords.CacheRead += read
			fromRecords.CacheWrite += write
			fromRecords.Output += integer(r, "data", "usage", "outputTokens")
		case "session.shutdown":
			metrics, _ := field(r, "data", "modelMetrics").(map[string]any)
			for _, mm := range metrics {
				read, write := integer(mm, "usage", "cacheReadTokens"), integer(mm, "usage", "cacheWriteTokens")
				fromRuns.ModelCalls += int(integer(mm, "requests", "count"))
				fromRuns.Input += integer(mm, "usage", "inputTokens") - read - write
				fromRuns.CacheRead += read
				fromRuns.CacheWrite += write
				fromRuns.Output += integer(mm, "usage", "outputTokens")
			}
		case "user.message":
			c.Turns++
			c.Messages++
		case "assistant.message":
			if id := text(r, "data", "messageId"); !messages[id] {
				messages[id] = true
				fromMessages.ModelCalls++
			}
			fromMessages.Output += integer(r, "data", "outputTokens")
			if strings.TrimSpace(text(r, "data", "content")) != "" {
				c.Messages++
			}
			reqs, _ := field(r, "data", "toolRequests").([]any)
			c.ToolCalls += len(reqs)
			c.Messages += len(reqs)
		case "tool.execution_complete":
			c.Messages++
			if field(r, "data", "success") == false {
				c.ToolFailures++
			}
		case "session.compaction_complete":
			c.Compactions++
		}
	}
	calls := fromMessages
	switch {
	case records2:
		calls = fromRecords
	case fromRuns.ModelCalls > 0:
		calls = fromRuns
	}
	c.ModelCalls, c.Input, c.CacheRead, c.CacheWrite, c.Output = calls.ModelCalls, calls.Input, calls.CacheRead, calls.CacheWrite, calls.Output
	return c
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rec map[string]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&rec); err != nil {
			rec = map[string]any{} // a line that is not JSON is kept, and counts for nothing
		}
		out = append(out, rec)
	}
	return out
}

func field(v any, path ...string) any {
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

func text(v any, path ...string) string {
	s, _ := field(v, path...).(string)
	return s
}

func integer(v any, path ...string) int64 {
	n, _ := field(v, path...).(json.Number)
	i, _ := n.Int64()
	return i
}

// span widens first and last by a record's top-level timestamp.
func (c *counts) span(rec map[string]any) {
	at, err := time.Parse(time.RFC3339Nano, text(rec, "timestamp"))
	if err != nil {
		return
	}
	if c.First.IsZero() || at.Before(c.First) {
		c.First = at
	}
	if at.After(c.Last) {
		c.Last = at
	}
}

// countClaude: one model call per message.id of the assistant records
// (and of the subagents' responses progress records mirror), its last
// record's usage; tool calls are tool_use blocks, failed when a
// tool_result for their id says is_error; turns are the user's own text
// records, and slash commands the model answers before the next one.
// Messages are the turns, the tool calls, the tool_result blocks and the
// assistant records with text; api-request-blob records, copies of what
// Claude Code sent, are none. A subagent's work counts once: from its own
// file when that is read, else from the copies of its records that
// agent_progress records hold in its parent's transcript.
func countClaude(records []map[string]any) counts {
	var c counts
	results, answers := 0, 0
	usage := map[string]any{}
	var ids []string
	failed := map[string]bool{}
	var calls []string
	pendingCommand := false
	filed := map[string]bool{} // subagents whose own file is read
	for _, r := range records {
		if r["isSidechain"] == true {
			filed[text(r, "agentId")] = true
		}
	}
	for _, r := range records {
		c.span(r)
		if inner, ok := field(r, "data", "message").(map[string]any); ok && text(r, "type") == "progress" &&
			text(r, "data", "type") == "agent_progress" && !filed[text(r, "data", "agentId")] {
			// the subagent's file is missing: the copy is its record
			r = map[string]any{"isSidechain": true}
			for k, v := range inner {
				r[k] = v
			}
		}
		typ := text(r, "type")
		own := typ == "user" && r["isMeta"] != true && r["isSidechain"] != true && r["isCompactSummary"] != true
		content := field(r, "message", "content")
		s, isText := content.(string)
		switch {
		case typ == "system" && text(r, "subtype") == "compact_boundary":
			c.Compactions++
		case own && isText && strings.Contains(s, "<command-name>"):
			pendingCommand = true
		case own && isText:
			pendingCommand = false
			if !strings.HasPrefix(s, "<") {
				c.Turns++
			}
		case typ == "progress" && text(r, "data", "type") == "agent_progress" && text(r, "data", "message", "type") == "assistant" &&
			field(r, "data", "message", "message", "usage") != nil:
			// a subagent's response, mirrored into its parent's transcript
			// as it ran: the same response as in the subagent's own file
			// (its id), the only record of it when that file is missing
			id := text(r, "data", "message", "message", "id")
			if _, seen := usage[id]; !seen {
				ids = append(ids, id)
			}
			usage[id] = field(r, "data", "message", "message", "usage")
		case typ == "assistant":
			if pendingCommand && r["isSidechain"] != true {
				c.Turns++
				pendingCommand = false
			}
			id := text(r, "message", "id")
			if _, seen := usage[id]; !seen {
				ids = append(ids, id)
			}
			usage[id] = field(r, "message", "usage")
		}
		if typ == "api-request-blob" {
			continue
		}
		blocks, _ := content.([]any)
		said := typ == "assistant" && isText && strings.TrimSpace(s) != ""
		for _, b := range blocks {
			switch text(b, "type") {
			case "tool_use":
				if typ == "assistant" {
					calls = append(calls, text(b, "id"))
				}
			case "tool_result":
				failed[text(b, "tool_use_id")] = field(b, "is_error") == true
				results++
			case "text":
				said = said || typ == "assistant" && strings.TrimSpace(text(b, "text")) != ""
			}
		}
		if said {
			answers++
		}
	}
	for _, id := range ids {
		c.ModelCalls++
		u := usage[id]
		c.Input += integer(u, "input_tokens")
		c.CacheRead += integer(u, "cache_read_input_tokens")
		c.CacheWrite += integer(u, "cache_creation_input_tokens")
		c.Output += integer(u, "output_tokens")
	}
	c.ToolCalls = len(calls)
	for _, id := range calls {
		if failed[id] {
			c.ToolFailures++
		}
	}
	c.Messages = c.Turns + c.ToolCalls + results + answers
	return c
}

// countCodex: model calls are the distinct running totals of token_count
// events (a repeated total is the event written twice), tokens the last
// total with cached input separately; without totals, a model call is a run of
// response items the model wrote (reasoning, assistant messages, calls)
// between inputs (user or developer messages, call outputs). Tool calls
// are call items, failed when their output's exit code is not 0; turns
// are user_message events or, in 0.169, which writes none, item_completed
// events of a UserMessage (the same prompt twice before an answer is one);
// compactions are compacted lines. Messages are the turns, the tool calls,
// their outputs and the assistant messages with text. Cache writes
// (cache_write_input_tokens, 0.169) are counted separately from the input.
func countCodex(records []map[string]any) counts {
	var c counts
	results, answers := 0, 0
	prompt, promptKind, open := "", "", false // the last prompt and its event, while no answer came
	var last map[string]any
	totals := 0
	lastKey := ""
	runs, inRun := 0, false
	calls := map[string]bool{}
	var order []string
	for _, r := range records {
		c.span(r)
		p, _ := r["payload"].(map[string]any)
		switch text(r, "type") {
		case "compacted":
			c.Compactions++
		case "event_msg":
			typed := ""
			switch text(p, "type") {
			case "user_message":
				typed = "user_message:" + text(p, "message")
			case "item_completed":
				if text(p, "item", "type") == "UserMessage" {
					var parts []string
					for _, part := range field(p, "item", "content").([]any) {
						parts = append(parts, text(part, "text"))
					}
					typed = "item_completed:" + strings.Join(parts, "\n")
				}
			}
			if typed != "" {
				// The same prompt as another event before an answer is one.
				if kind, t, _ := strings.Cut(typed, ":"); !open || t != prompt || kind == promptKind {
					c.Turns++
					prompt, promptKind, open = t, kind, true
				}
			}
			switch text(p, "type") {
			case "user_message":
			case "token_count":
				if tot, ok := field(p, "info", "total_token_usage").(map[string]any); ok {
					key, _ := json.Marshal(tot)
					if string(key) != lastKey {
						totals++
						lastKey, last = string(key), tot
					}
				}
			}
		case "response_item":
			switch kind := text(p, "type"); kind {
			case "reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
				if !inRun {
					runs++
					inRun = true
				}
				open = false
				if kind != "reasoning" {
					c.ToolCalls++
					order = append(order, text(p, "call_id"))
				}
			case "message":
				if text(p, "role") == "assistant" {
					if !inRun {
						runs++
						inRun = true
					}
					open = false
					for _, part := range field(p, "content").([]any) {
						if strings.TrimSpace(text(part, "text")) != "" {
							answers++
							break
						}
					}
				} else {
					inRun = false
				}
			case "function_call_output", "custom_tool_call_output":
				inRun = false
				results++
				calls[text(p, "call_id")] = exitCode(text(p, "output")) != 0
			}
		}
	}
	for _, id := range order {
		if id != "" && calls[id] {
			c.ToolFailures++
		}
	}
	if totals > 0 {
		c.ModelCalls = totals
		c.CacheRead = integer(last, "cached_input_tokens")
		c.CacheWrite = integer(last, "cache_write_input_tokens")
		c.Input = integer(last, "input_tokens") - c.CacheRead - c.CacheWrite
		c.Output = integer(last, "output_tokens")
	} else {
		c.ModelCalls = runs
	}
	c.Messages = c.Turns + c.ToolCalls + results + answers
	return c
}

// exitCode of a Codex tool output: {"output", "metadata": {"exit_code"}},
// or text whose header says "Process exited with code N".
func exitCode(out string) int64 {
	var wrapped struct {
		Metadata struct {
			ExitCode json.Number `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(out), &wrapped) == nil {
		n, _ := wrapped.Metadata.ExitCode.Int64()
		return n
	}
	for _, line := range strings.Split(out, "\n") {
		if line == "Output:" {
			break
		}
		if rest, ok := strings.CutPrefix(line, "Process exited with code "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return n
		}
	}
	return 0
}

// numbersCounts are the counts a reader's agent.Numbers say.
func numbersCounts(n agent.Numbers) counts {
	c := counts{
		Messages: n.Messages, ModelCalls: n.ModelCalls, ToolCalls: n.ToolCalls, ToolFailures: n.ToolFailures, Turns: n.Turns, Compactions: n.Compactions,
		Input: n.InputTokens, CacheRead: n.CacheReadTokens, CacheWrite: n.CacheWriteTokens, Output: n.OutputTokens,
		First: n.First, Last: n.Last,
	}
	if n.Estimated { // no usage recorded: the output is a guess from the text, and says so
		c.Output = 0
	}
	return c
}

// agreeEverywhere checks that every reader of snapshot e reports want:
// the document's numbers, show's (read a record at a time), the totals its commit keeps (what stats, sessions and
// usage add up), export's and the viewer's session (report.Load: its
// numbers and the tool calls its turns show, subagents' among them) and
// replay's calls.
func agreeEverywhere(t *testing.T, s *gitstore.Store, e storage.Entry, want counts) {
	t.Helper()
	// Only the Claude Code, Codex and Gemini JSONL counters count messages as a person
	// does; the other agents' are compared on the rest.
	numbersCounts := func(n agent.Numbers) counts {
		c := numbersCounts(n)
		if want.Messages == 0 {
			c.Messages = 0
		}
		return c
	}
	ctx := context.Background()
	doc, entry, err := s.Read(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := agent.NumbersOf(doc, entry.Header.Source); numbersCounts(n) != want {
		t.Errorf("the document's numbers:\n got %+v\nwant %+v", numbersCounts(n), want)
	}
	rest, _, err := s.ReadWithoutMessages(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The snapshot as gitsnap.Show reads it, which this package's tests
	// cannot import: gitsnap imports capture.
	recs, err := session.LiveRecords(ctx, s, entry, rest)
	if err != nil {
		t.Fatal(err)
	}
	snap := &session.Snapshot{Rev: e.ID.String(), Entry: entry, Others: rest, Records: recs, Reader: agent.ReaderFor(entry.Header.Source)}
	if n, err := snap.Numbers(ctx); err != nil || numbersCounts(n) != want {
		t.Errorf("show (a record at a time): %v\n got %+v\nwant %+v", err, numbersCounts(n), want)
	}
	sameFirstRecords(t, s, entry, rest)
	totals, ok, err := s.Totals(ctx, []storage.Entry{entry})
	if err != nil || !ok[0] {
		t.Fatalf("totals: %v %v", ok, err)
	}
	h := entry.Header
	h.Counted, h.Totals = true, totals[0]
	hn, _ := agent.NumbersOfHeader(h)
	if got := numbersCounts(hn); got != want {
		t.Errorf("stats (the commit's totals):\n got %+v\nwant %+v", got, want)
	}
	sess, err := report.Load(ctx, s, snap, report.Options{NoFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := numbersCounts(sess.Numbers); got != want {
		t.Errorf("export:\n got %+v\nwant %+v", got, want)
	}
	tools, failed := 0, 0
	var walk func(items []report.Item)
	walk = func(items []report.Item) {
		for _, it := range items {
			if it.Kind == report.KindTool {
				tools++
				if it.Tool.Failed {
					failed++
				}
				if it.Tool.Subagent != nil {
					walk(it.Tool.Subagent.Items)
				}
			}
			if it.Subagent != nil {
				walk(it.Subagent.Items)
			}
		}
	}
	for _, turn := range sess.Turns {
		walk(turn.Items)
	}
	if tools != want.ToolCalls || failed != want.ToolFailures {
		t.Errorf("export shows %d tool calls (%d failed), want %d (%d)", tools, failed, want.ToolCalls, want.ToolFailures)
	}
	calls := 0
	for range agent.Replay(doc) {
		calls++
	}
	if calls != want.ModelCalls {
		t.Errorf("replay: %d calls, want %d", calls, want.ModelCalls)
	}
}

// sameFirstRecords checks that a snapshot's first live records, listed
// alone (the viewer's title), are LiveRecords's first ones, from their
// stored order and their threads, and that the snapshot holds them by
// their key (session.FirstKey, what the viewer carries a title over
// by).
func sameFirstRecords(t *testing.T, s *gitstore.Store, e storage.Entry, rest map[string]any) {
	t.Helper()
	ctx := context.Background()
	all, err := session.LiveRecords(ctx, s, e, rest)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 7, 256, all.Len() + 1} {
		first, ok, err := session.FirstLiveRecords(ctx, s, e, rest, n)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue // read with LiveRecords instead
		}
		if want := min(n, all.Len()); first.Len() != want {
			t.Fatalf("first %d live records: %d, want %d", n, first.Len(), want)
		}
		for k := range first.Len() {
			a, err1 := first.At(ctx, k)
			b, err2 := all.At(ctx, k)
			if err1 != nil || err2 != nil || !snapshot.Equal(a, b) || first.Thread(k) != all.Thread(k) {
				t.Fatalf("first %d live records: record %d differs (%v %v)", n, k, err1, err2)
			}
		}
		if key, ok := first.Key(first.Len()); !ok {
			t.Fatalf("first %d live records: no key", n)
		} else if has, err := session.HasFirstRecords(ctx, s, e, key); err != nil || !has {
			t.Fatalf("first %d live records: the snapshot they were read from does not hold them (%v)", n, err)
		}
	}
}

// TestCodexTotalsBeforeTheirResponses counts a real rollout rewritten as
// Codex 0.39 writes one, each call's token_count before its response:
// the numbers are the reference's, as for the rollout written in order.
func TestCodexTotalsBeforeTheirResponses(t *testing.T) {
	const file = "codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
	data, err := os.ReadFile(filepath.Join("..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	runStart, moved := -1, 0 // where the responses since the last input begin
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var r map[string]any
		if json.Unmarshal(l, &r) != nil {
			out = append(out, l)
			continue
		}
		p, _ := r["payload"].(map[string]any)
		kind := text(p, "type")
		switch {
		case kind == "token_count" && runStart >= 0:
			out = append(out[:runStart], append([][]byte{l}, out[runStart:]...)...)
			runStart = -1
			moved++
			continue
		case text(r, "type") == "response_item" && (kind == "reasoning" || kind == "function_call" || kind == "custom_tool_call" ||
			kind == "web_search_call" || kind == "message" && text(p, "role") == "assistant"):
			if runStart < 0 {
				runStart = len(out)
			}
		case text(r, "type") == "response_item" || kind == "user_message":
			runStart = -1
		}
		out = append(out, l)
	}
	if moved < 10 {
		t.Fatalf("only %d token counts moved", moved)
	}
	root := t.TempDir()
	path := filepath.Join(root, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(bytes.Join(out, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRealSession(t, "codex", root, file, nil)
}
