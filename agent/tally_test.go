package agent

import (
	"bufio"
	"bytes"
	"cmp"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// tallySessions are every real JSONL transcript in testdata, each with
// the files recorded with it (subagents), and the agent that wrote it.
var tallySessions = []struct {
	agent string
	files []string // the main transcript first
}{
	{"claude-code", []string{"claude-code/short.jsonl"}},
	{"claude-code", []string{"claude-code/tool_heavy.jsonl"}},
	{"claude-code", []string{"claude-code/subagent.jsonl"}},
	{"claude-code", []string{"claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
		"claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl",
		"claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl"}},
	{"claude-code", []string{"live/claude-code/6770d186-a816-4df6-a9b4-d9dc16b84fa9.jsonl"}},
	{"claude-code", []string{"hostile/hostile.jsonl"}},
	{"codex", []string{"codex/rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl"}},
	{"codex", []string{"codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"}},
	{"codex", []string{"codex-real/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"}},
	{"codex", []string{"codex-real/plangate-sample.jsonl"}},
	{"codex", []string{"live/codex/rollout-2026-11-25T07-37-37-01a211a3-7e80-7a72-8c19-58ed6c22e482.jsonl"}},
	{"copilot", []string{"copilot/6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a/events.jsonl"}},
	{"copilot", []string{"live/copilot/9d362af6-ca39-4eea-868c-df2047196cc0/events.jsonl"}},
	{"cursor", []string{"cursor/3c0f5a9e-7b21-4d8e-9f61-2a4b6c8d0e1f.jsonl"}},
	{"gemini", []string{"live/gemini/session-2026-11-25T09-50-ee947b54.jsonl"}},
}

// recorded is a session as the hook stores it: its files' records merged
// by time (a hook call reads each file's new lines), in runs of one file.
type recorded struct {
	records []any
	files   []string // the layout's file names, main first
	runs    [][2]int // [file, count]
}

func recordSession(t *testing.T, files []string) recorded {
	t.Helper()
	type line struct {
		file int
		at   time.Time
		rec  any
	}
	var lines []line
	var r recorded
	for i, f := range files {
		data, err := os.ReadFile(filepath.Join("..", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		var last time.Time
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			rec := Element(sc.Bytes(), snapshot.Limits{})
			if at, err := time.Parse(time.RFC3339Nano, ViewMessage(rec).Time); err == nil {
				last = at
			}
			lines = append(lines, line{i, last, rec})
		}
		name := ""
		if i > 0 {
			name = f
		}
		r.files = append(r.files, name)
	}
	slices.SortStableFunc(lines, func(a, b line) int { return a.at.Compare(b.at) })
	for _, l := range lines {
		r.records = append(r.records, l.rec)
		if n := len(r.runs); n > 0 && r.runs[n-1][0] == l.file {
			r.runs[n-1][1]++
		} else {
			r.runs = append(r.runs, [2]int{l.file, 1})
		}
	}
	return r
}

// doc is the document of the session's first n records, its layout as a
// hook that stopped there writes it, as a snapshot reads back.
func (r recorded) doc(t *testing.T, agent string, n int) map[string]any {
	t.Helper()
	var l Layout
	for _, name := range r.files {
		l.Files = append(l.Files, LayoutFile{Name: name, Path: "/t/" + name})
	}
	left := n
	for _, run := range r.runs {
		if left == 0 {
			break
		}
		k := min(run[1], left)
		l.Add(run[0], k)
		left -= k
	}
	doc := readBack(t, map[string]any{"agent": agent, "transcript": l.JSON()})
	if n > 0 {
		doc[snapshot.MemberMessages] = r.records[:n]
	}
	return doc
}

func readBack(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	data, err := snapshot.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	back, err := snapshot.Parse(data, snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return back.(map[string]any)
}

// A tally of a session's first records that goes on with the rest counts
// what a tally of the whole session counts, state for state, wherever
// the session is cut, and however many appends it comes in: every real
// transcript, cut at every record, and cut at random into appends as
// small as a hook at real cadence makes (a marshalled tally between
// each, in the parts the store keeps). Gemini CLI rewrites its records by id:
// its appends are refused, and counted whole. A session of more than
// 300 records is cut at 150 places, at every record with
// GIT_SNAP_LONG_TESTS set (as .ci/run sets it).
func TestTallyGoesOnWhereverCut(t *testing.T) {
	cuts, every := 0, os.Getenv("GIT_SNAP_LONG_TESTS") != ""
	for _, rs := range tallySessions {
		t.Run(filepath.Base(rs.files[0]), func(t *testing.T) {
			r := recordSession(t, rs.files)
			n := len(r.records)
			whole := r.doc(t, rs.agent, n)
			want := TallyOf(whole, rs.agent).Marshal()
			if got := ReadAs(whole, rs.agent).Numbers(); got.ModelCalls == 0 && rs.agent != "cursor" {
				t.Fatalf("the session counts no model call: %+v", got)
			}
			refused := rs.agent == "gemini"
			step := 1
			if !every {
				step = max(1, n/150)
			}
			for k := 0; k <= n; k += step + (k*7)%step {
				before := r.doc(t, rs.agent, k)
				tl := TallyOf(before, rs.agent)
				ok := tl.Append(before, k, whole, r.records[k:], nil)
				if ok == refused {
					t.Fatalf("cut at %d: Append says %v", k, ok)
				}
				if ok && !bytes.Equal(tl.Marshal(), want) {
					t.Fatalf("cut at %d of %d: %+v\nwant %+v", k, n, tl.Numbers(), TallyOf(whole, rs.agent).Numbers())
				}
				cuts++
			}
			for seed := range uint64(3) {
				rnd := rand.New(rand.NewPCG(seed, uint64(n)))
				chain, k := NewTally(rs.agent), 0
				for steps := 0; k < n; steps++ {
					next := min(n, k+1+rnd.IntN(cmp.Or(int(seed)*8, 2)))
					before, after := r.doc(t, rs.agent, k), r.doc(t, rs.agent, next)
					if !chain.Append(before, k, after, r.records[k:next], nil) {
						chain = TallyOf(after, rs.agent)
					}
					if (every || steps%(step*4) == 0 || next == n) && !bytes.Equal(chain.Marshal(), TallyOf(after, rs.agent).Marshal()) {
						t.Fatalf("seed %d, appended %d..%d: %+v\nwant %+v", seed, k, next, chain.Numbers(), TallyOf(after, rs.agent).Numbers())
					}
					base, _, state := chain.MarshalParts()
					back, err := UnmarshalParts(base, state)
					if err != nil {
						t.Fatal(err)
					}
					chain, k = back, next
					cuts++
				}
			}
		})
	}
	t.Logf("%d cuts", cuts)
}

// claudeLine is a Claude Code record for the tests below.
func claudeLine(t *testing.T, js string) any {
	t.Helper()
	v, err := snapshot.Parse([]byte(js), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// What a later record changes is counted wherever the session is cut: a
// call's usage written again, a subagent's response mirrored into its
// parent under the same id, a tool result that comes after its call and
// one that replaces it, a slash command answered or not. And turns do
// not depend on the order the threads are read in: the timeline (merged
// by time) counts the turns the numbers (stored order) count.
func TestTallyEdges(t *testing.T) {
	sub := "s/subagents/agent-x.jsonl"
	recs := []struct {
		thread int
		js     string
	}{
		{0, `{"type":"user","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"do it"}}`},
		{0, `{"type":"assistant","timestamp":"2026-01-01T00:00:02Z","message":{"id":"A","role":"assistant","model":"m1","content":[{"type":"tool_use","id":"T1","name":"Bash","input":{}}],"usage":{"input_tokens":5,"output_tokens":1}}}`},
		{0, `{"type":"assistant","timestamp":"2026-01-01T00:00:03Z","message":{"id":"A","role":"assistant","model":"m1","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":5,"output_tokens":9}}}`},
		{1, `{"type":"assistant","isSidechain":true,"timestamp":"2026-01-01T00:00:04Z","message":{"id":"S","role":"assistant","content":[{"type":"tool_use","id":"T2","name":"Read","input":{}}],"usage":{"input_tokens":200000,"output_tokens":2}}}`},
		{0, `{"type":"user","timestamp":"2026-01-01T00:00:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"T1","is_error":true,"content":"no"}]}}`},
		{0, `{"type":"assistant","timestamp":"2026-01-01T00:00:06Z","message":{"id":"S","role":"assistant","model":"m2","content":[],"usage":{"input_tokens":200000,"output_tokens":7}}}`},
		{1, `{"type":"user","isSidechain":true,"timestamp":"2026-01-01T00:00:07Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"T2","is_error":true,"content":"no"}]}}`},
		{0, `{"type":"user","timestamp":"2026-01-01T00:00:08Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"T1","content":"yes"}]}}`},
		{0, `{"type":"user","timestamp":"2026-01-01T00:00:09Z","message":{"role":"user","content":"<command-name>/mcp</command-name>"}}`},
		{1, `{"type":"assistant","isSidechain":true,"timestamp":"2026-01-01T00:00:10Z","message":{"id":"S2","role":"assistant","content":[{"type":"text","text":"sub says"}]}}`},
		{0, `{"type":"user","timestamp":"2026-01-01T00:00:11Z","message":{"role":"user","content":"<local-command-stdout>ok</local-command-stdout>"}}`},
		{0, `{"type":"user","timestamp":"2026-01-01T00:00:12Z","message":{"role":"user","content":"<command-name>/review</command-name>"}}`},
		{0, `{"type":"assistant","timestamp":"2026-01-01T00:00:13Z","message":{"id":"B","role":"assistant","model":"m1","content":[{"type":"text","text":"reviewed"}],"usage":{"input_tokens":1,"output_tokens":1}}}`},
	}
	// Stored as hook calls after each record read them: in runs of one
	// file each.
	var r recorded
	r.files = []string{"", sub}
	for _, rec := range recs {
		r.records = append(r.records, claudeLine(t, rec.js))
		if n := len(r.runs); n > 0 && r.runs[n-1][0] == rec.thread {
			r.runs[n-1][1]++
		} else {
			r.runs = append(r.runs, [2]int{rec.thread, 1})
		}
	}
	n := len(r.records)
	whole := r.doc(t, "claude-code", n)
	got := TallyOf(whole, "claude-code").Numbers()
	// T1 failed, then succeeded; T2 failed: one failure. Calls A, S (its
	// mirror names its model and replaces its usage), S2, B. Turns: the
	// prompt and /review (answered by the model); /mcp was answered by
	// the harness, though the subagent spoke in between.
	if got.ToolCalls != 2 || got.ToolFailures != 1 || got.ModelCalls != 4 || got.Turns != 2 ||
		got.ByModel["m1"].Output != 10 || got.ByModel["m2"].Output != 7 || got.ByModel["m2"].Long[0].Input != 200000 || got.ByModel[""].Output == 0 {
		t.Fatalf("%+v", got)
	}
	lines, st := Trace(whole, ClaudeCode{})
	prompts := 0
	for _, l := range lines {
		if l.Kind == "prompt" {
			prompts++
		}
	}
	if prompts != st.Turns || st.Turns != got.Turns {
		t.Errorf("the timeline shows %d prompts, its stats %d turns, the numbers %d", prompts, st.Turns, got.Turns)
	}
	want := TallyOf(whole, "claude-code").Marshal()
	for k := 0; k <= n; k++ {
		for j := k; j <= n; j++ {
			before, mid := r.doc(t, "claude-code", k), r.doc(t, "claude-code", j)
			tl := TallyOf(before, "claude-code")
			if !tl.Append(before, k, mid, r.records[k:j], nil) || !tl.Append(mid, j, whole, r.records[j:], nil) {
				t.Fatalf("cut at %d and %d: an append refused", k, j)
			}
			if !bytes.Equal(tl.Marshal(), want) {
				t.Fatalf("cut at %d and %d: %+v\nwant %+v", k, j, tl.Numbers(), got)
			}
		}
	}
}

// A harness's events count as they are appended, separately from its records.
func TestTallyEvents(t *testing.T) {
	events := []any{
		map[string]any{"type": "start", "ts_ms": snapshot.Number("1700000000000")},
		map[string]any{"type": "post_model", "model": "m", "input_tokens": snapshot.Number("3"), "output_tokens": snapshot.Number("4"), "ts_ms": snapshot.Number("1700000001000")},
		map[string]any{"type": "post_tool", "tool": "x", "ok": false, "ts_ms": snapshot.Number("1700000002000")},
		map[string]any{"type": "pre_compact", "ts_ms": snapshot.Number("1700000003000")},
	}
	whole := map[string]any{snapshot.MemberEvents: events}
	want := TallyOf(whole, "")
	if n := want.Numbers(); n.ModelCalls != 1 || n.ToolFailures != 1 || n.Turns != 1 || n.Compactions != 1 || n.OutputTokens != 4 || !n.Last.Equal(time.UnixMilli(1700000003000)) {
		t.Fatalf("%+v", n)
	}
	for k := range events {
		tl := TallyOf(map[string]any{snapshot.MemberEvents: events[:k]}, "")
		if !tl.Append(nil, 0, nil, nil, events[k:]) || !bytes.Equal(tl.Marshal(), want.Marshal()) {
			t.Errorf("cut at %d: %+v", k, tl.Numbers())
		}
	}
}

// A marshalled tally that was cut or changed does not read.
func TestUnmarshalTallyRefusesDamage(t *testing.T) {
	r := recordSession(t, tallySessions[3].files)
	data := TallyOf(r.doc(t, "claude-code", len(r.records)), "claude-code").Marshal()
	back, err := UnmarshalTally(data)
	if err != nil || !bytes.Equal(back.Marshal(), data) {
		t.Fatalf("round trip: %v", err)
	}
	for _, cut := range []int{0, 1, len(tallyMagic), len(data) / 2, len(data) - 1} {
		if _, err := UnmarshalTally(data[:cut]); err == nil {
			t.Errorf("cut at %d of %d read", cut, len(data))
		}
	}
	if _, err := UnmarshalTally(append(slices.Clone(data), 0)); err == nil {
		t.Error("a byte more read")
	}
	base, _, state := back.MarshalParts()
	if _, err := UnmarshalParts(base, state); err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{0, len(base) / 3, len(base) - 1} {
		if _, err := UnmarshalParts(base[:cut], state); err == nil {
			t.Errorf("a base cut at %d of %d read", cut, len(base))
		}
	}
	if _, err := UnmarshalParts(base, state[:len(state)-1]); err == nil {
		t.Error("a state cut short read")
	}
}

// A long session's tally state, read and written on every hook call,
// stays bounded: past maxOver entries set since the base, a new base is
// made, however large the base (at an eighth of it, a 200k-message
// session's state grew with the session).
func TestTallyStateStaysBounded(t *testing.T) {
	tally := NewTally("claude-code")
	const long = 16 * maxOver
	for k := range uint64(long) {
		tally.calls.put(k, snapshot.CallSaid{Model: "m", Usage: snapshot.Usage{Output: 1}})
	}
	base, newBase, state := tally.MarshalParts()
	if !newBase {
		t.Fatal("a tally read from nothing kept a base")
	}
	back, err := UnmarshalParts(base, state)
	if err != nil {
		t.Fatal(err)
	}
	for k := range uint64(maxOver) {
		back.calls.put(long+k, snapshot.CallSaid{Model: "m"})
	}
	if _, newBase, _ := back.MarshalParts(); newBase {
		t.Fatalf("%d entries since a base of %d made a new base", maxOver, long)
	}
	for k := range uint64(513) {
		back.calls.put(long+maxOver+k, snapshot.CallSaid{Model: "m"})
	}
	if _, newBase, _ := back.MarshalParts(); !newBase {
		t.Fatalf("%d entries since a base of %d kept the base", maxOver+513, long)
	}
}
