//go:build unix

package liveagents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/modelapi"
)

// droid drives Factory's Droid: droid exec with a prompt and stream-json
// output, whose first line names the session; pointed at the stub by a
// model of the user's own (customModels in ~/.factory/settings.json, of
// the generic-chat-completion-api provider: Chat Completions), chosen as
// custom:<its display name>-<its index>. The display name is a priced
// model's, by which git-snap prices it. Droid goes on with a session
// headless (droid exec -s) only by fetching it from Factory's servers,
// so the scenario runs one prompt.
type droid struct{}

// droidModel is the model the scenario asks for: one with a price, and
// no OpenAI model's name (Droid tells those to use its openai provider).
const droidModel = "deepseek-chat"

func TestDroid(t *testing.T) {
	t.Parallel()
	runScenario(t, droid{})
}

func (droid) name() string { return "droid" }
func (droid) api() string  { return "openai-chat" }

func (droid) noResume() string {
	return "droid exec -s fetches the session from Factory's servers (getaddrinfo ENOTFOUND api.factory.ai offline); its interactive droid --resume is a UI"
}

func (droid) configure(w *world, url string) []string {
	writeFile(w.t, filepath.Join(w.home, ".factory", "settings.json"), fmt.Sprintf(`{"customModels": [{"model": "%s", "displayName": "%s",
  "baseUrl": "%s/v1", "apiKey": "sk-live-suite", "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}]}
`, droidModel, droidModel, url))
	return nil
}

func (droid) start(w *world, dir, prompt string) string {
	r := w.runAgent(dir, "exec", "--auto", "high", "-o", "stream-json", "-m", "custom:"+droidModel+"-0", prompt)
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.SessionID != "" {
			return l.SessionID
		}
	}
	w.t.Fatalf("droid exec named no session:\n%.2000s\n%s", r.stdout, r.stderr)
	return ""
}

func (d droid) resume(w *world, _, session, _ string) {
	w.t.Fatalf("droid cannot resume %s offline: %s", session, d.noResume())
}

// shell: Execute refuses a call without its risk level and the reason
// for it.
func (droid) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "Execute", Input: map[string]any{"command": command,
		"riskLevelReason": "It writes one file in the project.", "riskLevel": "low"}}
}

// transcript: sessions/<the project's path, '/' made '-'>/<id>.jsonl in
// ~/.factory.
func (droid) transcript(w *world, session string) string {
	return filepath.Join(w.home, ".factory", "sessions", strings.ReplaceAll(w.repo, "/", "-"), session+".jsonl")
}

func (droid) events(tool bool) []string {
	if tool {
		return []string{"SessionStart", "PostToolUse", "Stop", "SessionEnd"}
	}
	return []string{"SessionStart", "Stop", "SessionEnd"}
}

// gates: "hooksDisabled": true in the user's hooks.json turns every hook
// off.
func (droid) gates(w *world) []gate {
	user := filepath.Join(w.home, ".factory", "hooks.json")
	return []gate{{
		name:   "hooksDisabled",
		close:  func() { writeFile(w.t, user, `{"hooksDisabled": true}`+"\n") },
		reopen: func() { must(w.t, os.Remove(user)) },
		detail: `"hooksDisabled": true in ` + user + `: Droid runs no hook`,
		fix:    `remove "hooksDisabled" from ` + user + ` (or turn hooks on in Droid's /settings)`,
	}}
}

// recorded: Droid's inputTokens are the prompt less its cached part, the
// cache writes in it.
func (droid) recorded(u modelapi.Usage) modelapi.Usage {
	return modelapi.Usage{Input: u.Input + u.CacheWrite, CacheRead: u.CacheRead, Output: u.Output}
}

func (droid) probe() (string, string) {
	return "/v1/chat/completions", `{"model":"` + droidModel + `","stream":false,"tools":[{"type":"function","function":{"name":"Execute"}}],"messages":[{"role":"user","content":"Something else entirely."}]}`
}
