package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-snap/git-snap/snapshot"
)

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s has no description or input schema", tool.Name)
		}
	}
	slices.Sort(names)
	return names
}

// TestListTools: a server lists the reading tools, and the writing ones
// only with AllowWrite; reading tools say they are read-only.
func TestListTools(t *testing.T) {
	f := sharedFixture(t)
	want := slices.Sorted(slices.Values(ReadTools))
	if got := toolNames(t, f.client(t, Options{})); !slices.Equal(got, want) {
		t.Errorf("read-only server lists %v, want %v", got, want)
	}
	want = slices.Sorted(slices.Values(append(slices.Clone(ReadTools), WriteTools...)))
	if got := toolNames(t, f.client(t, Options{AllowWrite: true})); !slices.Equal(got, want) {
		t.Errorf("--allow-write server lists %v, want %v", got, want)
	}
	res, err := f.client(t, Options{}).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tool.Name)
		}
	}
}

type searchAnswer struct {
	Hits []struct {
		Session string `json:"session"`
		Line    string `json:"line"`
		Field   string `json:"field"`
		Message int    `json:"message"`
	} `json:"hits"`
	Sessions []struct {
		Session string `json:"session"`
	} `json:"sessions"`
	Omitted int    `json:"omitted"`
	Note    string `json:"note"`
}

// TestSearchFindsRealSessions: the first prompt typed in each real
// transcript comes back from search, in its session, whatever the
// syntax and case asked for.
func TestSearchFindsRealSessions(t *testing.T) {
	f := sharedFixture(t)
	cs := f.client(t, Options{})
	if len(f.prompts) < 3 {
		t.Fatalf("found prompts in %d transcripts, want every one: %v", len(f.prompts), f.prompts)
	}
	for session, prompt := range f.prompts {
		needle := prompt[:min(len(prompt), 40)]
		for _, args := range []map[string]any{
			{"pattern": needle, "syntax": "fixed"},
			{"pattern": regexp.QuoteMeta(needle), "syntax": "extended"},
			{"pattern": strings.ToUpper(needle), "syntax": "fixed", "ignore_case": true},
			{"pattern": needle, "syntax": "fixed", "session": session},
		} {
			var a searchAnswer
			decode(t, ok(t, cs, ToolSearch, args), &a)
			found := false
			for _, h := range a.Hits {
				if h.Session == session && strings.Contains(strings.ToLower(h.Line), strings.ToLower(needle)) {
					found = true
				}
				if args["session"] != nil && h.Session != session {
					t.Errorf("search %v: hit in session %s", args, h.Session)
				}
			}
			if !found {
				t.Errorf("search %v: no hit in %s with %q; got %+v", args, session, needle, a.Hits)
			}
		}
	}
	// sessions_only names each session once.
	var a searchAnswer
	decode(t, ok(t, cs, ToolSearch, map[string]any{"pattern": "e", "sessions_only": true}), &a)
	if len(a.Hits) != 0 || len(a.Sessions) < len(f.sessions)-2 {
		t.Errorf("sessions_only: %d hits and %d sessions", len(a.Hits), len(a.Sessions))
	}
	// max_results bounds the hits, and the answer says there are more.
	decode(t, ok(t, cs, ToolSearch, map[string]any{"pattern": "e", "max_results": 3}), &a)
	if len(a.Hits) != 3 || a.Note == "" {
		t.Errorf("max_results 3: %d hits, note %q", len(a.Hits), a.Note)
	}
}

type sessionsAnswer struct {
	Sessions []struct {
		Name   string `json:"name"`
		Agent  string `json:"agent"`
		Remote string `json:"remote"`
		Rev    string `json:"rev"`
		Tip    string `json:"tip"`
	} `json:"sessions"`
	Matched int `json:"matched"`
	Omitted int `json:"omitted"`
}

// TestListSessions: every session is listed, fetched ones with their
// remote and a rev that reads them; filters keep only what they match.
func TestListSessions(t *testing.T) {
	f := sharedFixture(t)
	cs := f.client(t, Options{})
	var a sessionsAnswer
	decode(t, ok(t, cs, ToolListSessions, nil), &a)
	got := map[string]string{}
	for _, s := range a.Sessions {
		got[s.Name] = s.Agent
		if s.Remote != "" {
			if s.Rev != f.remote {
				t.Errorf("fetched session %s: rev %q, want %q", s.Name, s.Rev, f.remote)
			}
			if text := ok(t, cs, ToolShow, map[string]any{"rev": s.Rev}); !strings.Contains(text, "# Session "+s.Name) {
				t.Errorf("show of the fetched session's rev: %.200s", text)
			}
		}
	}
	for name, ag := range f.sessions {
		if got[name] != ag {
			t.Errorf("session %s: agent %q listed, want %q", name, got[name], ag)
		}
	}
	if _, ok := got["teammate-demo"]; !ok {
		t.Errorf("the fetched session is not listed: %v", got)
	}
	decode(t, ok(t, cs, ToolListSessions, map[string]any{"agent": "codex"}), &a)
	if len(a.Sessions) == 0 {
		t.Error("agent codex: no session")
	}
	for _, s := range a.Sessions {
		if s.Agent != "codex" {
			t.Errorf("agent codex lists %s of %s", s.Name, s.Agent)
		}
	}
	decode(t, ok(t, cs, ToolListSessions, map[string]any{"limit": 2}), &a)
	if len(a.Sessions) != 2 || a.Matched != len(f.sessions)+1 {
		t.Errorf("limit 2: %d listed of %d matched, want 2 of %d", len(a.Sessions), a.Matched, len(f.sessions)+1)
	}
	decode(t, ok(t, cs, ToolListSessions, map[string]any{"since": "2100-01-01"}), &a)
	if len(a.Sessions) != 0 {
		t.Errorf("since 2100: %d sessions", len(a.Sessions))
	}
}

// TestShow: a session reads as Markdown with its prompt, one turn reads
// alone, a captured file reads as it was saved, and paging with offset
// gives back the whole text, each page within the budget.
func TestShow(t *testing.T) {
	f := sharedFixture(t)
	cs := f.client(t, Options{})
	// A server whose budget holds a whole session: a subagent's work shown
	// before the first prompt can fill the default one.
	big := f.client(t, Options{Budget: 1 << 26})
	for session, prompt := range f.prompts {
		text := ok(t, big, ToolShow, map[string]any{"session": session})
		if !strings.Contains(text, prompt) || !strings.Contains(text, "## Turn 1") {
			t.Errorf("show %s: prompt %q or turn 1 missing: %.300s", session, prompt, text)
		}
		turn := ok(t, cs, ToolShow, map[string]any{"rev": session, "turn": 1})
		if !strings.Contains(turn, prompt) || strings.Contains(turn, "## Turn 2") {
			t.Errorf("show %s turn 1: %.300s", session, turn)
		}
	}
	msg := fails(t, cs, ToolShow, map[string]any{"rev": "demo", "turn": 999})
	if !strings.Contains(msg, "has turns 1 to") {
		t.Errorf("turn 999: %s", msg)
	}

	// A captured file, as the demo's last step saved it.
	steps := demoSteps(t)
	files := steps[len(steps)-1].Doc[snapshot.MemberFiles].(map[string]any)
	for path, v := range files {
		content := v.(map[string]any)["content"].(string)
		if got := ok(t, cs, ToolShow, map[string]any{"rev": "demo", "path": path}); got != content {
			t.Errorf("show path %s: %q, want %q", path, got, content)
		}
	}

	// Paging: a small budget cuts, offset reads the rest, the pages join up
	// to the whole, read from a server whose budget holds it (the
	// shortest of the real sessions, to keep the pages few).
	var session, whole string
	for s := range f.prompts {
		text := ok(t, big, ToolShow, map[string]any{"rev": s})
		if whole == "" || len(text) < len(whole) {
			session, whole = s, text
		}
	}
	if strings.Contains(whole, "[cut:") || utf8.RuneCountInString(whole) < 1500 {
		t.Fatalf("%s: %d characters whole, cut or too short to page", session, utf8.RuneCountInString(whole))
	}
	const limit = 500
	var joined strings.Builder
	offset := 0
	note := regexp.MustCompile(`\n\n\[cut: characters \d+ to (\d+) of (\d+) shown; call again with offset=(\d+) for the rest\]$`)
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("paging does not end")
		}
		page := ok(t, cs, ToolShow, map[string]any{"rev": session, "offset": offset, "max_chars": limit})
		if n := utf8.RuneCountInString(page); n > limit {
			t.Fatalf("page at %d has %d characters, over %d", offset, n, limit)
		}
		m := note.FindStringSubmatch(page)
		if m == nil {
			joined.WriteString(page)
			break
		}
		joined.WriteString(strings.TrimSuffix(page, m[0]))
		if m[2] != strconv.Itoa(utf8.RuneCountInString(whole)) {
			t.Errorf("note says %s characters in all, the text has %d", m[2], utf8.RuneCountInString(whole))
		}
		next, _ := strconv.Atoi(m[3])
		if next <= offset {
			t.Fatalf("offset %d does not move on: %s", offset, m[0])
		}
		offset = next
	}
	if joined.String() != whole {
		t.Errorf("the pages joined differ from the whole (%d and %d characters)", utf8.RuneCountInString(joined.String()), utf8.RuneCountInString(whole))
	}
}

// TestDiffSnapshotsAndCheckpoints: diff compares two snapshots as text,
// counts or JSON; list_snapshots and list_checkpoints list the demo's.
func TestDiffSnapshotsAndCheckpoints(t *testing.T) {
	f := sharedFixture(t)
	cs := f.client(t, Options{})
	ctx := context.Background()
	a, err := f.store.Resolve(ctx, "demo~1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.store.Resolve(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	text := ok(t, cs, ToolDiff, map[string]any{"from": "demo~1", "to": "demo"})
	if !strings.HasPrefix(text, "diff "+a.String()[:12]+".."+b.String()[:12]) {
		t.Errorf("diff text: %.200s", text)
	}
	if same := ok(t, cs, ToolDiff, map[string]any{"from": "demo~1..demo"}); same != text {
		t.Errorf("from A..B differs from from A to B:\n%s\n%s", same, text)
	}
	var j struct {
		From, To string
		Messages []any
	}
	decode(t, ok(t, cs, ToolDiff, map[string]any{"from": "demo~1", "to": "demo", "format": "json"}), &j)
	if j.From != a.String() || j.To != b.String() || len(j.Messages) == 0 {
		t.Errorf("diff json: from %s to %s, %d messages", j.From, j.To, len(j.Messages))
	}
	if stat := ok(t, cs, ToolDiff, map[string]any{"from": "demo", "format": "stat"}); !strings.Contains(stat, "message") {
		t.Errorf("diff stat: %s", stat)
	}

	steps := demoSteps(t)
	var snaps struct {
		Snapshots []struct {
			Seq         int      `json:"seq"`
			Checkpoints []string `json:"checkpoints"`
		} `json:"snapshots"`
		Note string `json:"note"`
	}
	decode(t, ok(t, cs, ToolListSnapshots, map[string]any{"rev": "demo"}), &snaps)
	if len(snaps.Snapshots) != len(steps) || snaps.Snapshots[0].Seq != len(steps) {
		t.Errorf("list_snapshots demo: %+v, want %d newest first", snaps.Snapshots, len(steps))
	}
	decode(t, ok(t, cs, ToolListSnapshots, map[string]any{"session": "demo", "limit": 2}), &snaps)
	if len(snaps.Snapshots) != 2 || snaps.Note == "" {
		t.Errorf("list_snapshots limit 2: %d, note %q", len(snaps.Snapshots), snaps.Note)
	}

	var want []string
	for _, st := range steps {
		if st.Checkpoint != "" {
			want = append(want, st.Checkpoint)
		}
	}
	var cps struct {
		Checkpoints []struct {
			Session string `json:"session"`
			Name    string `json:"name"`
		} `json:"checkpoints"`
	}
	decode(t, ok(t, cs, ToolListCheckpoints, map[string]any{"session": "demo"}), &cps)
	var got []string
	for _, cp := range cps.Checkpoints {
		got = append(got, cp.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("list_checkpoints demo: %v, want %v", got, want)
	}
}

// TestBadCalls: what a tool cannot do is an error saying what to fix,
// and the server answers the next call as before; a read-only server
// writes nothing whatever it is asked.
func TestBadCalls(t *testing.T) {
	f := sharedFixture(t)
	cs := f.client(t, Options{})
	before := refsOf(t, f.dir)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolSearch, map[string]any{"pattern": "x", "bogus": 1}, `search does not take "bogus": its arguments are pattern,`},
		{ToolShow, map[string]any{"turn": "one"}, "turn"},
		{ToolSearch, map[string]any{"pattern": "(", "syntax": "extended"}, `pattern "(" cannot be searched`},
		{ToolSearch, map[string]any{"pattern": `a\(b`}, `pattern "a\\(b" cannot be searched`},
		{ToolSearch, map[string]any{"pattern": ""}, "pattern is empty"},
		{ToolSearch, map[string]any{"pattern": "x", "syntax": "perl"}, `syntax "perl": choose basic, extended or fixed`},
		{ToolSearch, map[string]any{"pattern": "x", "session": "["}, `session "[": not a glob`},
		{ToolSearch, map[string]any{"pattern": "x", "since": "the day after"}, "since"},
		{ToolShow, map[string]any{"rev": "no-such-session"}, "no-such-session"},
		{ToolShow, map[string]any{"rev": "demo", "offset": 1 << 30}, "offset"},
		{ToolShow, map[string]any{"rev": "demo", "path": "no/such/file"}, "no/such/file"},
		{ToolDiff, map[string]any{"to": "demo"}, "to needs from"},
		{ToolShow, map[string]any{"rev": "demo", "max_chars": 10}, "max_chars 10: give a number of characters from 256"},
		{ToolDiff, map[string]any{"from": "demo", "format": "xml"}, `format "xml"`},
		{ToolListCheckpoints, map[string]any{"session": "nope"}, "nope"},
		{ToolListSessions, map[string]any{"limit": -1}, "limit -1"},
	} {
		if msg := fails(t, cs, c.tool, c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %q, want it to say %q", c.tool, c.args, msg, c.want)
		}
		ok(t, cs, ToolListCheckpoints, nil) // the server goes on
	}
	for _, tool := range WriteTools {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"name": "x", "rev": "demo~1", "session": "demo"}})
		if err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Errorf("%s on a read-only server: %v, want unknown tool", tool, err)
		}
	}
	if after := refsOf(t, f.dir); after != before {
		t.Errorf("a read-only server changed refs:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestBudgetBoundsEveryAnswer: with a small budget, no answer is longer,
// however much there is to say.
func TestBudgetBoundsEveryAnswer(t *testing.T) {
	f := sharedFixture(t)
	const budget = 2000
	cs := f.client(t, Options{Budget: budget})
	var session string
	for s := range f.prompts {
		session = s
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{ToolListSessions, nil},
		{ToolListSnapshots, map[string]any{"rev": "demo"}},
		{ToolSearch, map[string]any{"pattern": "e", "max_results": 10000}},
		{ToolShow, map[string]any{"rev": session}},
		{ToolShow, map[string]any{"rev": session, "max_chars": 1 << 20}},
		{ToolDiff, map[string]any{"from": "demo", "format": "json"}},
		{ToolListCheckpoints, nil},
	} {
		text := ok(t, cs, c.tool, c.args)
		if n := utf8.RuneCountInString(text); n > budget {
			t.Errorf("%s %v: %d characters, over the budget of %d", c.tool, c.args, n, budget)
		}
	}
	var a searchAnswer
	decode(t, ok(t, cs, ToolSearch, map[string]any{"pattern": "e", "max_results": 10000}), &a)
	if a.Omitted == 0 || a.Note == "" || len(a.Hits) == 0 {
		t.Errorf("search cut to the budget: %d hits, %d omitted, note %q", len(a.Hits), a.Omitted, a.Note)
	}
}

// TestWriteTools: with AllowWrite, checkpoint names a snapshot and
// rollback records a new one equal to an earlier one.
func TestWriteTools(t *testing.T) {
	f := newFixture(t)
	cs := f.client(t, Options{AllowWrite: true})
	ctx := context.Background()
	target, err := f.store.Resolve(ctx, "demo~2")
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Checkpoint struct {
			Name   string `json:"name"`
			Target string `json:"target"`
		} `json:"checkpoint"`
	}
	decode(t, ok(t, cs, ToolCheckpoint, map[string]any{"name": "before-fix", "rev": "demo~2", "message": "from a tool"}), &set)
	if id, err := f.store.Resolve(ctx, "snap/demo/before-fix"); err != nil || id != target {
		t.Errorf("checkpoint: snap/demo/before-fix is %v (%v), want %s; answer %+v", id, err, target, set)
	}
	if msg := fails(t, cs, ToolCheckpoint, map[string]any{"name": "before-fix", "session": "demo"}); !strings.Contains(msg, "before-fix") {
		t.Errorf("moving a checkpoint without force: %s", msg)
	}
	tip, err := f.store.Resolve(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	var rb struct {
		Snapshot struct {
			ID  string `json:"id"`
			Seq int    `json:"seq"`
		} `json:"snapshot"`
		RollbackOf string `json:"rollback_of"`
	}
	decode(t, ok(t, cs, ToolRollback, map[string]any{"rev": "snap/demo/before-fix"}), &rb)
	doc, e, err := f.store.ReadRevision(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := f.store.Read(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if e.Parent != tip || e.Header.RollbackOf != target.String() || rb.Snapshot.ID != e.ID.String() || rb.RollbackOf != target.String() {
		t.Errorf("rollback: new tip %s (parent %s, rollback of %s), answer %+v", e.ID, e.Parent, e.Header.RollbackOf, rb)
	}
	if a, b := mustMarshal(t, doc[snapshot.MemberMessages]), mustMarshal(t, old[snapshot.MemberMessages]); a != b {
		t.Error("the rolled-back snapshot's messages differ from the target's")
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := snapshot.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeAnswersBadLines: over stdio, a line that is not JSON or not a
// JSON-RPC message is answered with an error, and the server keeps
// reading.
func TestServeAnswersBadLines(t *testing.T) {
	f := sharedFixture(t)
	srv, err := New(Options{Repo: f.store})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("no answer: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", lines.Text(), err)
		}
		return m
	}
	for _, c := range []struct {
		line string
		id   any
		code float64
	}{
		{"garbage", nil, -32700},
		{`{"id":7}`, float64(7), -32600},
		{`{"jsonrpc":"2.0","id":"x","method":7}`, "x", -32600},
		{"[]", nil, -32600},
		{`[{"id":1}]`, nil, -32600},
	} {
		send(c.line)
		m := next()
		e, _ := m["error"].(map[string]any)
		if m["id"] != c.id || e == nil || e["code"] != c.code || e["message"] == "" {
			t.Errorf("%s: answered %v, want error %v with id %v", c.line, m, c.code, c.id)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	// A batch ended the server (the SDK's connection stops at one): each
	// request in it is refused under its id, as JSON-RPC answers a batch.
	send(`[{"jsonrpc":"2.0","id":5,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"six","method":"tools/call","params":{}}]`)
	if !lines.Scan() {
		t.Fatalf("no answer to a batch: %v", lines.Err())
	}
	var batch []map[string]any
	if err := json.Unmarshal(lines.Bytes(), &batch); err != nil || len(batch) != 2 || batch[0]["id"] != float64(5) || batch[1]["id"] != "six" {
		t.Fatalf("a batch answered %s (%v)", lines.Text(), err)
	}
	for _, m := range batch {
		if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
			t.Errorf("a batch's request answered %v", m)
		}
	}
	// A huge batch gets one refusal, not one per request.
	send("[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"x"},`, 100000) + `{"jsonrpc":"2.0","id":2,"method":"x"}]`)
	if m := next(); m["id"] != nil || m["error"] == nil {
		t.Errorf("a batch of 100,001 requests answered %.200v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send("{not json either")
	if m := next(); m["error"] == nil {
		t.Errorf("a bad line after initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m := next()
	res, _ := m["result"].(map[string]any)
	if tools, _ := res["tools"].([]any); len(tools) != len(ReadTools) {
		t.Errorf("tools/list after bad lines: %v", m)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve after the client closed: %v", err)
	}
}

// TestServeAnswersAllBeforeEnd: a client that writes its requests and
// closes its end at once, as a shell pipe does, gets every answer.
func TestServeAnswersAllBeforeEnd(t *testing.T) {
	f := sharedFixture(t)
	srv, err := New(Options{Repo: f.store})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const calls = 6
	for i := range calls {
		in.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(10+i) + `,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"e","max_results":5}}}` + "\n")
	}
	var out strings.Builder
	if err := srv.Serve(context.Background(), strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	answered := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     float64        `json:"id"`
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
			t.Fatalf("answer %.300s: %v", line, err)
		}
		answered[m.ID] = true
	}
	for i := range calls {
		if !answered[float64(10+i)] {
			t.Errorf("request %d was not answered before the end: %v", 10+i, answered)
		}
	}
}

// TestAnswersAreRedacted: a secret in a saved session never comes back:
// the server reads what the store kept, redacted when it was saved.
func TestAnswersAreRedacted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := openRepo(ctx, t, dir)
	defer store.Close()
	token := "ghp_" + strings.Repeat("a1B2", 9)
	doc := map[string]any{snapshot.MemberMessages: []any{
		map[string]any{"role": "user", "content": "deploy it with the token " + token + " please"},
	}}
	if _, err := store.Save(ctx, doc, gitstoreSave("leaky")); err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: dir, store: store}
	cs := f.client(t, Options{})
	var a searchAnswer
	decode(t, ok(t, cs, ToolSearch, map[string]any{"pattern": "deploy it with", "syntax": "fixed"}), &a)
	if len(a.Hits) != 1 || strings.Contains(a.Hits[0].Line, token) || !strings.Contains(a.Hits[0].Line, "[REDACTED:") {
		t.Errorf("search: %+v", a.Hits)
	}
	decode(t, ok(t, cs, ToolSearch, map[string]any{"pattern": token, "syntax": "fixed"}), &a)
	if len(a.Hits) != 0 {
		t.Errorf("the secret itself was found: %+v", a.Hits)
	}
	for _, text := range []string{
		ok(t, cs, ToolShow, map[string]any{"rev": "leaky"}),
		ok(t, cs, ToolShow, map[string]any{"rev": "leaky", "path": "messages/0"}),
		ok(t, cs, ToolDiff, map[string]any{"from": "leaky", "format": "json"}),
	} {
		if strings.Contains(text, token) || !strings.Contains(text, "[REDACTED:") {
			t.Errorf("an answer holds the secret or no placeholder: %.400s", text)
		}
	}
}

// TestErrorsWithinBudget: an error answer is cut to the budget like any
// other: a path that names no member of a document of 20,000 members
// listed them all (1.1 MB), and a call may quote a path of any length.
func TestErrorsWithinBudget(t *testing.T) {
	ctx := context.Background()
	f := &fixture{store: openRepo(ctx, t, filepath.Join(t.TempDir(), "repo"))}
	t.Cleanup(func() { f.store.Close() })
	doc := map[string]any{"messages": []any{}}
	for i := range 20000 {
		doc[fmt.Sprintf("member-%05d-with-a-long-name", i)] = i
	}
	if _, err := f.store.Save(ctx, doc, gitstoreSave("wide")); err != nil {
		t.Fatal(err)
	}
	const budget = 2000
	cs := f.client(t, Options{Budget: budget})
	for _, args := range []map[string]any{
		{"rev": "wide", "path": "nosuchmember"},
		{"rev": "wide", "path": strings.Repeat("x/", 50000)},
		{"rev": strings.Repeat("nosuchsession", 10000)},
	} {
		msg := fails(t, cs, ToolShow, args)
		if n := utf8.RuneCountInString(msg); n > budget {
			t.Errorf("an error of %d characters, over the budget of %d: %.200s", n, budget, msg)
		}
	}
	unknown := map[string]any{}
	for i := range 5000 {
		unknown[fmt.Sprintf("argument-%d", i)] = 1
	}
	if msg := fails(t, cs, ToolShow, unknown); utf8.RuneCountInString(msg) > budget {
		t.Errorf("an error of %d characters naming unknown arguments", utf8.RuneCountInString(msg))
	}
}
