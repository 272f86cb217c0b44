package cmdline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/snapshot"
)

// realRepo is a repository with every real session of testdata imported
// (Claude Code with its subagents, Codex, Gemini CLI), and a runner of
// git snap in it; vars are its environment.
func realRepo(t *testing.T) (dir string, vars map[string]string, run func(args ...string) []byte) {
	t.Helper()
	dir = t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	vars = map[string]string{
		"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, ".config"), "GIT_CONFIG_NOSYSTEM": "1", "TZ": "UTC",
		"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
	}
	run = func(args ...string) []byte {
		t.Helper()
		var out, errOut bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir, getenv: func(k string) string { return vars[k] }}
		if code := e.run(context.Background(), args); code != 0 {
			t.Fatalf("git snap %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
		}
		return out.Bytes()
	}
	td, _ := filepath.Abs(filepath.Join("..", "..", "..", "testdata"))
	run("import", "--from", "claude-code", filepath.Join(td, "claude-code"))
	run("import", "--from", "codex", filepath.Join(td, "codex-real"))
	run("import", "--from", "gemini", filepath.Join(td, "gemini"))
	return dir, vars, run
}

// call is one model call as the reference reads it from a raw file.
type call struct {
	session, model string
	at             time.Time
	u              snapshot.Usage
}

func rawLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r map[string]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if dec.Decode(&r) == nil {
			out = append(out, r)
		}
	}
	return out
}

func get(v any, path ...string) any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func getS(v any, path ...string) string { s, _ := get(v, path...).(string); return s }

func getN(v any, path ...string) int64 {
	n, _ := get(v, path...).(json.Number)
	i, _ := n.Int64()
	return i
}

func stamp(s string) time.Time { t, _ := time.Parse(time.RFC3339Nano, s); return t }

// referenceCalls reads every model call of the real sessions from the raw
// files with encoding/json alone: Claude Code, one per message.id of the
// assistant records (main and subagents' files, and the subagents'
// responses the main file's progress records mirror), at its first
// record's time, with its last record's usage; Codex, one per running total of
// token_count that differs from the one before, its tokens the
// difference, its model the last turn_context's; Gemini CLI, one per
// gemini message. The Codex rollout that records no tokens is left to
// estimatedCalls.
func referenceCalls(t *testing.T) []call {
	td := filepath.Join("..", "..", "..", "testdata")
	var out []call
	claude := map[string][]string{
		"55604662-cf2a-4331-851a-ec234028f8ca": {"claude-code/short.jsonl"},
		"d6e0bada-1959-4eec-a9d2-0bfade768d8f": {"claude-code/tool_heavy.jsonl"},
		"491e126e-1e71-469c-ade2-fcc8af567c74": {"claude-code/subagent.jsonl"},
		"4d5611e5-241a-462a-8d15-5122611a9569": {"claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
			"claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl",
			"claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl"},
	}
	for session, files := range claude {
		byID := map[string]*call{}
		var order []string
		for _, f := range files {
			for _, r := range rawLines(t, filepath.Join(td, f)) {
				if getS(r, "type") == "progress" && getS(r, "data", "type") == "agent_progress" && getS(r, "data", "message", "type") == "assistant" {
					// a subagent's response as its parent's transcript mirrors it
					r = map[string]any{"type": "assistant", "timestamp": r["timestamp"], "message": get(r, "data", "message", "message")}
				}
				if getS(r, "type") != "assistant" || get(r, "message", "usage") == nil {
					continue
				}
				id := getS(r, "message", "id")
				c := byID[id]
				if c == nil {
					c = &call{session: session, at: stamp(getS(r, "timestamp"))}
					byID[id] = c
					order = append(order, id)
				}
				if c.model == "" {
					c.model = getS(r, "message", "model")
				}
				u := get(r, "message", "usage")
				c.u = snapshot.Usage{Input: getN(u, "input_tokens"), CacheRead: getN(u, "cache_read_input_tokens"),
					CacheWrite: getN(u, "cache_creation_input_tokens"), CacheWrite1h: getN(u, "cache_creation", "ephemeral_1h_input_tokens"),
					Output: getN(u, "output_tokens")}
			}
		}
		for _, id := range order {
			out = append(out, *byID[id])
		}
	}
	for session, file := range map[string]string{
		"019e1625-789d-76c0-80ab-3724b5ddb799": "codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
		"019de017-e301-71a1-8b82-32e183204794": "codex-real/plangate-sample.jsonl",
	} {
		model, prev := "", [3]int64{}
		for _, r := range rawLines(t, filepath.Join(td, file)) {
			if getS(r, "type") == "turn_context" {
				model = getS(r, "payload", "model")
			}
			tot := get(r, "payload", "info", "total_token_usage")
			if getS(r, "payload", "type") != "token_count" || tot == nil {
				continue
			}
			now := [3]int64{getN(tot, "input_tokens"), getN(tot, "cached_input_tokens"), getN(tot, "output_tokens")}
			if now == prev {
				continue // the same event written twice
			}
			out = append(out, call{session: session, model: model, at: stamp(getS(r, "timestamp")), u: snapshot.Usage{
				Input: (now[0] - now[1]) - (prev[0] - prev[1]), CacheRead: now[1] - prev[1], Output: now[2] - prev[2]}})
			prev = now
		}
	}
	var chat map[string]any
	b, _ := os.ReadFile(filepath.Join(td, "gemini", "session-2026-01-16T11-01-file-ops-37b7abef.json"))
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&chat); err != nil {
		t.Fatal(err)
	}
	for _, m := range chat["messages"].([]any) {
		if getS(m, "type") != "gemini" {
			continue
		}
		out = append(out, call{session: getS(chat, "sessionId"), model: getS(m, "model"), at: stamp(getS(m, "timestamp")), u: snapshot.Usage{
			Input: getN(m, "tokens", "input") - getN(m, "tokens", "cached") + getN(m, "tokens", "tool"), CacheRead: getN(m, "tokens", "cached"),
			Output: getN(m, "tokens", "output") + getN(m, "tokens", "thoughts")}})
	}
	return out
}

// usageRow is a row of usage --json as the reference writes it.
type usageRow struct {
	Period   *string  `json:"period"`
	Key      *string  `json:"key"`
	Sessions int      `json:"sessions"`
	Models   []string `json:"models"`
	Tokens   struct {
		Input        int64 `json:"input"`
		CacheRead    int64 `json:"cache_read"`
		CacheWrite   int64 `json:"cache_write"`
		CacheWrite1h int64 `json:"cache_write_1h"`
		Output       int64 `json:"output"`
		Total        int64 `json:"total"`
	} `json:"tokens"`
	Cost struct {
		Micros  int64    `json:"usd_micros"`
		Unknown []string `json:"unknown_models"`
	} `json:"cost"`
}

// TestUsageDailyMatchesTheRawFiles checks usage --daily --json against
// the calls read from the raw files, grouped here by the day of each
// call in the time zone asked for (UTC, and UTC+5, where one Claude Code
// session runs past midnight and is split between two days).
func TestUsageDailyMatchesTheRawFiles(t *testing.T) {
	_, _, run := realRepo(t)
	calls := referenceCalls(t)
	// The Codex Desktop rollout records no tokens: its calls (runs of
	// the model's items) have output estimated from their text, which
	// show reports and says so; its one day takes that estimate.
	var desktop struct {
		Stats struct {
			Output    int64 `json:"output_tokens"`
			Estimated bool  `json:"tokens_estimated"`
			Last      string
		} `json:"stats"`
	}
	if err := json.Unmarshal(run("show", "--json", "019e1695-0522-7c83-8b39-0dd379793f80"), &desktop); err != nil || !desktop.Stats.Estimated {
		t.Fatalf("%+v %v", desktop, err)
	}
	calls = append(calls, call{session: "019e1695-0522-7c83-8b39-0dd379793f80", at: time.Date(2026, 5, 11, 11, 0, 0, 0, time.UTC), u: snapshot.Usage{Output: desktop.Stats.Output}})

	table := prices.Default()
	for _, tz := range []string{"UTC", "Asia/Karachi"} {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			t.Fatal(err)
		}
		byDay := map[string][]call{}
		for _, c := range calls {
			day := c.at.In(loc).Format("2006-01-02")
			byDay[day] = append(byDay[day], c)
		}
		var want []usageRow
		for _, day := range slices.Sorted(mapKeys(byDay)) {
			r := usageRow{Period: &day, Models: []string{}}
			sessions := map[string]bool{}
			byModel := map[string]snapshot.Usage{}
			for _, c := range byDay[day] {
				sessions[c.session] = true
				u := byModel[c.model]
				u.Add(c.u.OfCall())
				byModel[c.model] = u
			}
			r.Sessions = len(sessions)
			for _, m := range slices.Sorted(mapKeys(byModel)) {
				u := byModel[m]
				if u.Total() > 0 {
					r.Models = append(r.Models, m)
				}
				r.Tokens.Input += u.Input
				r.Tokens.CacheRead += u.CacheRead
				r.Tokens.CacheWrite += u.CacheWrite
				r.Tokens.CacheWrite1h += u.CacheWrite1h
				r.Tokens.Output += u.Output
			}
			r.Tokens.Total = r.Tokens.Input + r.Tokens.CacheRead + r.Tokens.CacheWrite + r.Tokens.Output
			cost := table.Estimate(byModel)
			r.Cost.Micros, r.Cost.Unknown = cost.Micros, append([]string{}, cost.Unknown...)
			want = append(want, r)
		}
		var got struct {
			Period, TimeZone string
			Rows             []usageRow `json:"rows"`
		}
		if err := json.Unmarshal(run("usage", "--daily", "--json", "--timezone", tz), &got); err != nil {
			t.Fatal(err)
		}
		g, _ := json.MarshalIndent(got.Rows, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		if !bytes.Equal(g, w) {
			t.Errorf("%s: usage --daily --json rows:\n%s\nwant:\n%s", tz, g, w)
		}
		if tz == "Asia/Karachi" && len(byDay) != 6 {
			t.Errorf("%d days in %s: no session was split", len(byDay), tz)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestStatsJSONIsByteStable runs the built binary's stats --json (and
// usage --json and sessions --json) 20 times over the real sessions:
// the same bytes every run, costs included.
func TestStatsJSONIsByteStable(t *testing.T) {
	dir, vars, _ := realRepo(t)
	bin := buildBinary(t)
	for _, args := range [][]string{{"stats", "--json"}, {"usage", "--json", "--by", "model"}, {"sessions", "--json"}} {
		var first []byte
		for i := range 20 {
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			for k, v := range vars {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			cmd.Env = append(cmd.Env, "PATH="+os.Getenv("PATH"))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			if i == 0 {
				first = out
				if !bytes.Contains(out, []byte(`"usd_micros"`)) {
					t.Fatalf("%v has no cost:\n%s", args, out)
				}
			} else if !bytes.Equal(out, first) {
				t.Fatalf("%v: run %d differs from the first:\n%s\n---\n%s", args, i+1, out, first)
			}
		}
	}
}

// TestPricesUpdateChangesTheNextStats: a price list given to prices
// update is what the next stats prices with; config's prices: override
// it; an update that is not a price list changes nothing.
func TestPricesUpdateChangesTheNextStats(t *testing.T) {
	dir, vars, run := realRepo(t)
	micros := func() int64 {
		var st struct {
			Cost struct {
				Micros int64 `json:"usd_micros"`
			} `json:"cost"`
		}
		if err := json.Unmarshal(run("stats", "--json", "55604662-cf2a-4331-851a-ec234028f8ca"), &st); err != nil {
			t.Fatal(err)
		}
		return st.Cost.Micros
	}
	before := micros()
	// short.jsonl: claude-opus-4-6 only. At $1 a million for every kind
	// (a one-hour write too), the cost is its tokens in micro-dollars.
	raw := run("show", "--json", "55604662-cf2a-4331-851a-ec234028f8ca")
	var sj struct {
		Stats map[string]any `json:"stats"`
	}
	if err := json.Unmarshal(raw, &sj); err != nil {
		t.Fatal(err)
	}
	tokens := int64(0)
	for _, k := range []string{"input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens"} {
		tokens += int64(sj.Stats[k].(float64))
	}
	// genai-prices' form: providers, their models, prices per million.
	list := `[{"id": "anthropic", "model_match": {"contains": "claude"}, "models": [{"id": "claude-opus-4-6",
	  "match": {"starts_with": "claude-opus-4-6"}, "prices": {"input_mtok": 1, "output_mtok": 1, "cache_read_mtok": 1,
	  "cache_write_mtok": 1, "cache_write_1h_mtok": 1}}]}]`
	if err := os.WriteFile(filepath.Join(dir, "list.json"), []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := run("prices", "update", "list.json"); !bytes.Contains(out, []byte("1 models priced")) {
		t.Errorf("%s", out)
	}
	if got := micros(); got != tokens || got == before {
		t.Errorf("after the update: %d µ$, want %d (before: %d)", got, tokens, before)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "snap", "config.yaml"), []byte("prices:\n  claude-opus-4-6: {input: 1, cache_read: 2, cache_write: 2, output: 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A one-hour write costs twice the input: $2, as the other kinds.
	if input := int64(sj.Stats["input_tokens"].(float64)); micros() != 2*tokens-input {
		t.Errorf("config prices: %d µ$, want %d", micros(), 2*tokens-input)
	}
	// Not a price list: refused with exit 2, the copy kept.
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"a": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir, getenv: func(k string) string { return vars[k] }}
	if code := e.run(context.Background(), []string{"prices", "update", "bad.json"}); code != 2 || !strings.Contains(errOut.String(), "prices no model") {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(prices.UserFile(vars["XDG_CONFIG_HOME"])); err != nil {
		t.Error(err)
	}
}
