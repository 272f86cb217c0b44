//go:build unix

package liveagents

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/modelapi"
)

// codex drives the Codex CLI: codex exec, the thread id on stderr;
// pointed at the stub by a model provider in ~/.codex/config.toml (a
// project's config.toml may not set one).
type codex struct{}

func TestCodex(t *testing.T) {
	t.Parallel()
	runScenario(t, codex{})
}

func (codex) name() string { return "codex" }
func (codex) api() string  { return "openai-responses" }

func (codex) configure(w *world, url string) []string {
	writeFile(w.t, filepath.Join(w.home, ".codex", "config.toml"), fmt.Sprintf(`model = "gpt-5.5"
model_provider = "stub"

[model_providers.stub]
name = "Stub"
base_url = "%s/v1"
wire_api = "responses"
env_key = "STUB_API_KEY"
`, url))
	return []string{"STUB_API_KEY=sk-live-suite"}
}

var sessionLine = regexp.MustCompile(`(?m)^session id: ([0-9a-f-]{36})$`)

// The hooks run without --dangerously-bypass-hook-trust: install trusted
// them, and the run shows it.
func (codex) start(w *world, dir, prompt string) string {
	r := w.runAgent(dir, "exec", "--dangerously-bypass-approvals-and-sandbox", prompt)
	m := sessionLine.FindStringSubmatch(r.stderr)
	if m == nil {
		w.t.Fatalf("codex exec named no session:\n%s", r.stderr)
	}
	return m[1]
}

func (codex) resume(w *world, dir, session, prompt string) {
	r := w.runAgent(dir, "exec", "resume", "--dangerously-bypass-approvals-and-sandbox", session, prompt)
	if m := sessionLine.FindStringSubmatch(r.stderr); m == nil || m[1] != session {
		w.t.Fatalf("codex exec resume %s went on elsewhere:\n%s", session, r.stderr)
	}
}

func (codex) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "exec_command", Input: `{"cmd":` + fmt.Sprintf("%q", command) + `}`}
}

// transcript: sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl
// in ~/.codex.
func (codex) transcript(w *world, session string) string {
	m, _ := filepath.Glob(filepath.Join(w.home, ".codex", "sessions", "*", "*", "*", "rollout-*-"+session+".jsonl"))
	if len(m) != 1 {
		w.t.Fatalf("rollouts of %s in %s: %v", session, w.home, m)
	}
	return m[0]
}

func (codex) events(tool bool) []string {
	if tool {
		return []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"}
	}
	return []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"}
}

// gates: the project's trust and the hooks' trust, both in the user's
// config.toml, each taken out in turn.
func (codex) gates(w *world) []gate {
	config := filepath.Join(w.home, ".codex", "config.toml")
	var saved []byte
	without := func(header string) func() {
		return func() {
			var err error
			saved, err = os.ReadFile(config)
			must(w.t, err)
			writeFile(w.t, config, dropTables(string(saved), header))
		}
	}
	reopen := func() { writeFile(w.t, config, string(saved)) }
	return []gate{
		{name: "project trust", close: without(`[projects."` + w.repo + `"]`), reopen: reopen,
			detail: w.repo + " is not trusted in " + config, fix: "git snap install codex trusts it"},
		{name: "hook trust", close: without(`[hooks.state.`), reopen: reopen,
			detail: "7 of git-snap's 7 hooks are not trusted as they are now in " + config, fix: "git snap install codex trusts them"},
	}
}

// dropTables removes from a config.toml the tables whose header starts
// with prefix.
func dropTables(config, prefix string) string {
	var out []string
	skip := false
	for _, l := range strings.Split(config, "\n") {
		if strings.HasPrefix(l, "[") {
			skip = strings.HasPrefix(l, prefix)
		}
		if !skip {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func (codex) probe() (string, string) {
	return "/v1/responses", `{"model":"gpt-5.5","stream":false,"tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Something else entirely."}]}]}`
}
