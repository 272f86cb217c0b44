//go:build unix

package liveagents

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/git-snap/git-snap/modelapi"
)

// qwen drives Qwen Code: qwen with a prompt and -o json, whose result
// names the session; pointed at the stub as an OpenAI-compatible server
// (Chat Completions) by its variables. Its memory agent, on by default,
// makes model calls of its own beside the conversation's: it is off in
// the user's settings.
type qwen struct{}

// qwenModel is the model the scenario asks for: one with a price.
const qwenModel = "gpt-4.1"

func TestQwen(t *testing.T) {
	t.Parallel()
	runScenario(t, qwen{})
}

func (qwen) name() string { return "qwen" }
func (qwen) api() string  { return "openai-chat" }

// qwenSettings are the user's settings: no memory agent, and hooks off
// when off is set.
func qwenSettings(w *world, off bool) {
	hooks := ""
	if off {
		hooks = `, "disableAllHooks": true`
	}
	writeFile(w.t, filepath.Join(w.home, ".qwen", "settings.json"),
		`{"memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false, "enableAutoSkill": false}`+hooks+"}\n")
}

func (qwen) configure(w *world, url string) []string {
	qwenSettings(w, false)
	return []string{"OPENAI_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=sk-live-suite", "OPENAI_MODEL=" + qwenModel,
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}
}

// session reads the session id of -o json's result.
func (qwen) session(w *world, r result) string {
	var out []struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		IsError   bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err == nil {
		for _, m := range out {
			if m.Type == "result" && !m.IsError && m.SessionID != "" {
				return m.SessionID
			}
		}
	}
	w.t.Fatalf("qwen's output has no result naming the session:\n%.2000s\n%s", r.stdout, r.stderr)
	return ""
}

func (q qwen) start(w *world, dir, prompt string) string {
	return q.session(w, w.runAgent(dir, "--auth-type", "openai", "--yolo", "-o", "json", prompt))
}

func (q qwen) resume(w *world, dir, session, prompt string) {
	if got := q.session(w, w.runAgent(dir, "--auth-type", "openai", "--yolo", "-o", "json", "--resume", session, prompt)); got != session {
		w.t.Fatalf("qwen --resume %s went on in session %s", session, got)
	}
}

func (qwen) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "run_shell_command", Input: map[string]any{"command": command}}
}

// transcript: projects/<the project's path, every character but
// letters and digits a '-'>/chats/<session>.jsonl in ~/.qwen.
func (qwen) transcript(w *world, session string) string {
	key := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(w.repo, "-")
	return filepath.Join(w.home, ".qwen", "projects", key, "chats", session+".jsonl")
}

// events: SessionEnd does not fire in -p mode.
func (qwen) events(tool bool) []string {
	if tool {
		return []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
	}
	return []string{"SessionStart", "UserPromptSubmit", "Stop"}
}

// gates: "disableAllHooks": true in the user's settings turns every
// hook off.
func (qwen) gates(w *world) []gate {
	user := filepath.Join(w.home, ".qwen", "settings.json")
	return []gate{{
		name:   "disableAllHooks",
		close:  func() { qwenSettings(w, true) },
		reopen: func() { qwenSettings(w, false) },
		detail: `"disableAllHooks": true in ` + user + `: Qwen Code runs no hook`,
		fix:    `remove "disableAllHooks" from ` + user,
	}}
}

// recorded: Qwen Code's promptTokenCount holds the whole prompt, the
// cache writes in it, and its cached part separately.
func (qwen) recorded(u modelapi.Usage) modelapi.Usage {
	return modelapi.Usage{Input: u.Input + u.CacheWrite, CacheRead: u.CacheRead, Output: u.Output}
}

func (qwen) probe() (string, string) {
	return "/v1/chat/completions", `{"model":"` + qwenModel + `","stream":false,"tools":[{"type":"function","function":{"name":"run_shell_command"}}],"messages":[{"role":"user","content":"Something else entirely."}]}`
}
