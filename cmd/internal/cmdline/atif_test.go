package cmdline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// realSessionNames are the sessions of a realRepo.
func realSessionNames(t *testing.T, run func(args ...string) []byte) []string {
	t.Helper()
	names := strings.Fields(string(run("sessions", "--jq", `.sessions[].name`)))
	if len(names) < 5 {
		t.Fatalf("only %d real sessions imported: %v", len(names), names)
	}
	return names
}

// exportAllATIF exports every session of a realRepo as ATIF into dir, and
// returns the files by session.
func exportAllATIF(t *testing.T, dir string, run func(args ...string) []byte) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, name := range realSessionNames(t, run) {
		f := filepath.Join(dir, name+".atif.json")
		run("export", name, "--format", "atif", "-o", f)
		files[name] = f
	}
	return files
}

// trajectory is what the tests read of an exported trajectory.
type trajectory struct {
	SchemaVersion string `json:"schema_version"`
	SessionID     string `json:"session_id"`
	Agent         struct {
		Name, Version string
		ModelName     string `json:"model_name"`
	}
	Steps []struct {
		Source    string
		ToolCalls []struct {
			ID   string `json:"tool_call_id"`
			Name string `json:"function_name"`
		} `json:"tool_calls"`
		Observation *struct {
			Results []struct {
				SourceCallID string         `json:"source_call_id"`
				Extra        map[string]any `json:"extra"`
				Subagent     []struct {
					ID string `json:"trajectory_id"`
				} `json:"subagent_trajectory_ref"`
			}
		}
		Metrics *struct {
			Prompt     int64 `json:"prompt_tokens"`
			Completion int64 `json:"completion_tokens"`
			Cached     int64 `json:"cached_tokens"`
			Extra      struct {
				CacheWrite int64 `json:"cache_write_tokens"`
			}
		}
		LLMCalls int `json:"llm_call_count"`
	}
	FinalMetrics struct {
		Prompt     int64   `json:"total_prompt_tokens"`
		Completion int64   `json:"total_completion_tokens"`
		Cached     int64   `json:"total_cached_tokens"`
		Cost       float64 `json:"total_cost_usd"`
		Steps      int     `json:"total_steps"`
	} `json:"final_metrics"`
	Subagents    []trajectory `json:"subagent_trajectories"`
	TrajectoryID string       `json:"trajectory_id"`
}

func readTrajectory(t *testing.T, file string) trajectory {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tr trajectory
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return tr
}

// TestATIFRoundTripRealSessions exports every real session of testdata
// as ATIF, imports the trajectory as a new session and checks that the
// document saved is the one exported, byte for byte in canonical JSON.
func TestATIFRoundTripRealSessions(t *testing.T) {
	dir, _, run := realRepo(t)
	atifRoundTrip(t, dir, run, realSessionNames(t, run))
}

// TestATIFRoundTripEveryAgent does the same for the other agents'
// fixtures (Copilot CLI, Cursor, OpenCode, a synthetic Codex rollout)
// and a hostile transcript; package atif's tests validate every export
// against ATIF's rules.
func TestATIFRoundTripEveryAgent(t *testing.T) {
	dir, run, names := fixturesRepo(t)
	atifRoundTrip(t, dir, run, names)
}

// fixturesRepo is a realRepo with the other agents' fixtures imported
// too; names are the sessions they made.
func fixturesRepo(t *testing.T) (dir string, run func(args ...string) []byte, names []string) {
	t.Helper()
	dir, _, run = realRepo(t)
	td, _ := filepath.Abs(filepath.Join("..", "..", "..", "testdata"))
	before := map[string]bool{}
	for _, n := range realSessionNames(t, run) {
		before[n] = true
	}
	for _, a := range []string{"copilot", "cursor", "opencode", "codex"} {
		run("import", "--from", a, filepath.Join(td, a))
	}
	run("import", "--from", "claude-code", filepath.Join(td, "hostile"))
	for _, n := range realSessionNames(t, run) {
		if !before[n] {
			names = append(names, n)
		}
	}
	if len(names) != 5 {
		t.Fatalf("imported %v", names)
	}
	return dir, run, names
}

func atifRoundTrip(t *testing.T, dir string, run func(args ...string) []byte, names []string) {
	t.Helper()
	for _, name := range names {
		file := filepath.Join(dir, name+".atif.json")
		run("export", name, "--format", "atif", "-o", file)
		orig := run("export", "--compact", name)
		run("import", "--from", "atif", "--session", "rt-"+name, file)
		back := run("export", "--compact", "rt-"+name)
		if !bytes.Equal(orig, back) {
			i := 0
			for i < len(orig) && i < len(back) && orig[i] == back[i] {
				i++
			}
			lo := max(i-80, 0)
			t.Errorf("%s: the document imported from ATIF differs at byte %d:\n  exported %q\n  imported %q", name, i, orig[lo:min(i+80, len(orig))], back[lo:min(i+80, len(back))])
		}
		// Imported again: the session already holds it.
		out := run("import", "--from", "atif", "--session", "rt-"+name, file)
		if !strings.Contains(string(out), "nothing added") {
			t.Errorf("%s: a second import added a snapshot: %s", name, out)
		}
	}
}

// TestATIFNumbersRealSessions checks what each trajectory says against
// stats of the same session: the tokens of the steps add up to the
// final metrics and to the session's, every tool call is there once and
// every result names a call of its own step.
func TestATIFNumbersRealSessions(t *testing.T) {
	dir, _, run := realRepo(t)
	for name, file := range exportAllATIF(t, dir, run) {
		tr := readTrajectory(t, file)
		var st struct {
			ToolCalls    int   `json:"tool_calls"`
			ToolFailures int   `json:"tool_failures"`
			ModelCalls   int   `json:"model_calls"`
			Input        int64 `json:"input_tokens"`
			CacheRead    int64 `json:"cache_read_tokens"`
			CacheWrite   int64 `json:"cache_write_tokens"`
			Output       int64 `json:"output_tokens"`
			Cost         struct {
				USD float64
			}
		}
		if err := json.Unmarshal(run("stats", "--json", name), &st); err != nil {
			t.Fatal(err)
		}
		if tr.SchemaVersion != "ATIF-v1.8" || tr.SessionID == "" || tr.Agent.Name == "" {
			t.Errorf("%s: header %q %q %q", name, tr.SchemaVersion, tr.SessionID, tr.Agent.Name)
		}
		var prompt, completion, cached, cacheWrite int64
		calls, failures, llm, steps := 0, 0, 0, 0
		ids := map[string]bool{}
		all := append([]trajectory{tr}, tr.Subagents...)
		embedded := map[string]bool{}
		for _, sub := range tr.Subagents {
			embedded[sub.TrajectoryID] = true
		}
		refs := 0
		for _, sub := range all {
			steps += len(sub.Steps)
			for i, s := range sub.Steps {
				own := map[string]bool{}
				for _, c := range s.ToolCalls {
					calls++
					own[c.ID] = true
					if c.ID != "" && ids[c.ID] {
						t.Errorf("%s: tool call %s appears twice", name, c.ID)
					}
					ids[c.ID] = true
				}
				if s.Observation != nil {
					for _, r := range s.Observation.Results {
						if len(s.ToolCalls) > 0 && r.SourceCallID != "" && !own[r.SourceCallID] {
							t.Errorf("%s: step %d: result for %s, a call of another step", name, i+1, r.SourceCallID)
						}
						if r.Extra["is_error"] == true {
							failures++
						}
						for _, ref := range r.Subagent {
							refs++
							if !embedded[ref.ID] {
								t.Errorf("%s: step %d: a result refers to subagent %q, not embedded", name, i+1, ref.ID)
							}
						}
					}
				}
				if s.Metrics != nil {
					if s.Source != "agent" {
						t.Errorf("%s: step %d: metrics on a %s step", name, i+1, s.Source)
					}
					prompt += s.Metrics.Prompt
					completion += s.Metrics.Completion
					cached += s.Metrics.Cached
					cacheWrite += s.Metrics.Extra.CacheWrite
					llm += s.LLMCalls
				}
			}
		}
		if len(tr.Subagents) > 0 && refs == 0 {
			t.Errorf("%s: %d subagent trajectories and no tool result refers to one", name, len(tr.Subagents))
		}
		fm := tr.FinalMetrics
		if prompt != fm.Prompt || completion != fm.Completion || cached != fm.Cached {
			t.Errorf("%s: steps add up to prompt %d, completion %d, cached %d; final metrics say %d, %d, %d", name, prompt, completion, cached, fm.Prompt, fm.Completion, fm.Cached)
		}
		if want := st.Input + st.CacheRead + st.CacheWrite; fm.Prompt != want || fm.Completion != st.Output || fm.Cached != st.CacheRead || cacheWrite != st.CacheWrite {
			t.Errorf("%s: trajectory tokens prompt %d, completion %d, cached %d, cache writes %d; stats %d, %d, %d, %d", name, fm.Prompt, fm.Completion, fm.Cached, cacheWrite, want, st.Output, st.CacheRead, st.CacheWrite)
		}
		if llm != st.ModelCalls {
			t.Errorf("%s: llm_call_count adds up to %d, stats counts %d model calls", name, llm, st.ModelCalls)
		}
		if calls != st.ToolCalls || failures != st.ToolFailures {
			t.Errorf("%s: %d tool calls, %d failed in the trajectory; stats %d, %d", name, calls, failures, st.ToolCalls, st.ToolFailures)
		}
		if fm.Steps != steps {
			t.Errorf("%s: total_steps %d, %d steps", name, fm.Steps, steps)
		}
		if diff := fm.Cost - st.Cost.USD; diff > 1e-6 || diff < -1e-6 {
			t.Errorf("%s: total_cost_usd %v, stats %v", name, fm.Cost, st.Cost.USD)
		}
	}
}

// TestATIFImportForeign imports a trajectory git-snap did not write: its
// steps become messages that stats counts, and bad input is refused.
func TestATIFImportForeign(t *testing.T) {
	dir, vars, run := realRepo(t)
	foreign := `{"schema_version": "ATIF-v1.7", "session_id": "devin-1",
  "agent": {"name": "devin", "version": "3000.11.3", "model_name": "swe-2"},
  "steps": [
    {"step_id": 1, "source": "user", "message": "list the files", "timestamp": "2026-09-29T00:00:00Z"},
    {"step_id": 2, "source": "agent", "message": "Listing.", "model_name": "swe-2",
     "tool_calls": [{"tool_call_id": "c1", "function_name": "bash", "arguments": {"cmd": "ls"}}],
     "observation": {"results": [{"source_call_id": "c1", "content": "a.go\nb.go"}]},
     "metrics": {"prompt_tokens": 120, "cached_tokens": 20, "completion_tokens": 18}},
    {"step_id": 3, "source": "agent", "message": [{"type": "text", "text": "Two files."}],
     "metrics": {"prompt_tokens": 150, "completion_tokens": 4}}
  ]}`
	f := filepath.Join(dir, "devin.json")
	if err := os.WriteFile(f, []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := string(run("import", "--from", "atif", f)); !strings.Contains(out, "devin-1#1") {
		t.Fatalf("import named the session otherwise: %s", out)
	}
	var st struct {
		ToolCalls  int   `json:"tool_calls"`
		ModelCalls int   `json:"model_calls"`
		Input      int64 `json:"input_tokens"`
		CacheRead  int64 `json:"cache_read_tokens"`
		Output     int64 `json:"output_tokens"`
	}
	if err := json.Unmarshal(run("stats", "--json", "devin-1"), &st); err != nil {
		t.Fatal(err)
	}
	if st.ToolCalls != 1 || st.ModelCalls != 2 || st.Input != 250 || st.CacheRead != 20 || st.Output != 22 {
		t.Errorf("stats of the imported trajectory: %+v", st)
	}
	if out := string(run("show", "devin-1")); !strings.Contains(out, "Two files.") || !strings.Contains(out, "list the files") {
		t.Errorf("show lacks the steps' text:\n%s", out)
	}
	// Exported again, it is the trajectory imported.
	back := filepath.Join(dir, "devin-back.json")
	run("export", "devin-1", "--format", "atif", "-o", back)
	got, err := os.ReadFile(back)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := canonical(t, []byte(foreign)), canonical(t, got); a != b {
		t.Errorf("re-exported trajectory differs:\n%s\n%s", a, b)
	}
	// Its chat messages: the steps', content parts read as text.
	if out := string(run("export", "devin-1", "--format", "messages")); !strings.Contains(out, `"content":"Two files."`) || !strings.Contains(out, `"tool_call_id":"c1"`) {
		t.Errorf("messages of the imported trajectory: %s", out)
	}
	// A session that was saved to since is exported from its records.
	f2 := filepath.Join(dir, "more.json")
	if err := os.WriteFile(f2, []byte(strings.Replace(foreign, `"session_id": "devin-1",`, `"session_id": "devin-2", "notes": "n",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	run("import", "--from", "atif", f2)
	doc := run("export", "devin-2")
	doc = []byte(strings.Replace(string(doc), `"agent": "atif",`, `"agent": "atif", "events": [{"type": "note"}],`, 1))
	if err := os.WriteFile(f2, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	run("import", "--session", "devin-2", f2)
	run("export", "devin-2", "--format", "atif", "-o", back)
	if tr := readTrajectory(t, back); len(tr.Steps) != 3 || !strings.Contains(string(mustRead(t, back)), `"git_snap"`) {
		t.Errorf("a changed document exported as %s", mustRead(t, back))
	}

	for _, bad := range []string{`[]`, `{"schema_version": "v2", "steps": []}`, `{"schema_version": "ATIF-v1.7"}`,
		`{"schema_version": "ATIF-v1.7", "steps": [{"step_id": 1, "source": "robot", "message": "x"}]}`} {
		if err := os.WriteFile(f, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir, getenv: func(k string) string { return vars[k] }}
		if code := e.run(t.Context(), []string{"import", "--from", "atif", "--session", "bad", f}); code != 2 {
			t.Errorf("import of %s: exit %d, want 2 (%s)", bad, code, errOut.String())
		}
	}
}

// TestMessagesRealSessions exports every real session of testdata as
// chat-messages JSONL and checks it against the session's stats: every
// line a conversation, every tool call once with arguments that are a
// JSON object, every tool message answering a call made before it in
// the same conversation.
func TestMessagesRealSessions(t *testing.T) {
	_, _, run := realRepo(t)
	for _, name := range realSessionNames(t, run) {
		out := run("export", name, "--format", "messages")
		var st struct {
			ToolCalls int `json:"tool_calls"`
			Turns     int `json:"turns"`
		}
		if err := json.Unmarshal(run("stats", "--json", name), &st); err != nil {
			t.Fatal(err)
		}
		calls, users := 0, 0
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		for li, line := range lines {
			var conv struct {
				Messages []struct {
					Role      string  `json:"role"`
					Content   *string `json:"content"`
					ToolCalls []struct {
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
					ToolCallID string `json:"tool_call_id"`
				} `json:"messages"`
			}
			if err := json.Unmarshal([]byte(line), &conv); err != nil {
				t.Fatalf("%s line %d: %v", name, li+1, err)
			}
			if len(conv.Messages) == 0 {
				t.Errorf("%s line %d: no messages", name, li+1)
			}
			made := map[string]bool{}
			for mi, m := range conv.Messages {
				switch m.Role {
				case "user":
					users++
				case "assistant":
					for _, c := range m.ToolCalls {
						calls++
						made[c.ID] = true
						var args map[string]any
						if c.Type != "function" || c.Function.Name == "" || json.Unmarshal([]byte(c.Function.Arguments), &args) != nil {
							t.Errorf("%s line %d message %d: tool call %+v", name, li+1, mi+1, c)
						}
					}
					if m.Content == nil && len(m.ToolCalls) == 0 {
						t.Errorf("%s line %d message %d: an assistant message with neither content nor calls", name, li+1, mi+1)
					}
				case "tool":
					if !made[m.ToolCallID] {
						t.Errorf("%s line %d message %d: result for %q, no call before it", name, li+1, mi+1, m.ToolCallID)
					}
				case "system":
				default:
					t.Errorf("%s line %d message %d: role %q", name, li+1, mi+1, m.Role)
				}
			}
		}
		if calls != st.ToolCalls {
			t.Errorf("%s: %d tool calls in the messages, stats counts %d", name, calls, st.ToolCalls)
		}
		if users < st.Turns {
			t.Errorf("%s: %d user messages for %d turns", name, users, st.Turns)
		}
	}
}

func canonical(t *testing.T, data []byte) string {
	t.Helper()
	out, err := snapshot.Canonicalize(data)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
