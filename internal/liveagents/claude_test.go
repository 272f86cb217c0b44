//go:build unix

package liveagents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/git-snap/git-snap/modelapi"
)

// claude drives Claude Code: headless with -p, its JSON result naming the
// session; pointed at the stub by ANTHROPIC_BASE_URL.
type claude struct{}

func TestClaudeCode(t *testing.T) {
	t.Parallel()
	runScenario(t, claude{})
}

func (claude) name() string { return "claude-code" }
func (claude) api() string  { return "anthropic-messages" }

func (claude) configure(w *world, url string) []string {
	return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=sk-live-suite",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
}

// result reads the session id of -p --output-format json's result.
func (claude) result(w *world, r result) string {
	var out struct {
		SessionID string `json:"session_id"`
		IsError   bool   `json:"is_error"`
		Result    string `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.IsError || out.SessionID == "" {
		w.t.Fatalf("claude's result %q (%v): %s", r.stdout, err, r.stderr)
	}
	return out.SessionID
}

func (c claude) start(w *world, dir, prompt string) string {
	return c.result(w, w.runAgent(dir, "-p", prompt, "--allowedTools", "Bash", "--output-format", "json"))
}

func (c claude) resume(w *world, dir, session, prompt string) {
	if got := c.result(w, w.runAgent(dir, "-r", session, "-p", prompt, "--allowedTools", "Bash", "--output-format", "json")); got != session {
		w.t.Fatalf("claude -r %s went on in session %s", session, got)
	}
}

func (claude) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "Bash", Input: map[string]any{"command": command, "description": "Write hello.txt"}}
}

// transcript: projects/<the project's path, every character but letters
// and digits a '-'>/<session>.jsonl in ~/.claude.
func (claude) transcript(w *world, session string) string {
	key := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(w.repo, "-")
	return filepath.Join(w.home, ".claude", "projects", key, session+".jsonl")
}

func (claude) events(tool bool) []string {
	if tool {
		return []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"}
	}
	return []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"}
}

// gates: a settings file with "disableAllHooks": true turns every hook off.
func (claude) gates(w *world) []gate {
	shared := filepath.Join(w.repo, ".claude", "settings.json")
	return []gate{{
		name:   "disableAllHooks",
		close:  func() { writeFile(w.t, shared, `{"disableAllHooks": true}`) },
		reopen: func() { must(w.t, os.Remove(shared)) },
		detail: `"disableAllHooks": true in ` + shared + `: Claude Code runs no hook`,
		fix:    `remove "disableAllHooks" from ` + shared,
	}}
}

func (claude) probe() (string, string) {
	return "/v1/messages", `{"model":"claude-opus-5-5","max_tokens":10,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"Something else entirely."}]}`
}
