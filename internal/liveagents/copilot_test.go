//go:build unix

package liveagents

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/modelapi"
)

// copilot drives GitHub Copilot CLI: headless with -p and JSONL output,
// whose result line names the session; offline, pointed at the stub as a
// provider of the user's own (BYOK), which it speaks Chat Completions
// to. --allow-all-tools lets the shell tool run without a question but,
// unlike COPILOT_ALLOW_ALL=true, does not trust the working directory:
// the trusted folder stays a gate.
type copilot struct{}

// copilotModel is the model the scenario asks for: one with a price.
const copilotModel = "gpt-4.1"

func TestCopilot(t *testing.T) {
	t.Parallel()
	runScenario(t, copilot{})
}

func (copilot) name() string { return "copilot" }
func (copilot) api() string  { return "openai-chat" }

func (copilot) configure(w *world, url string) []string {
	return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + url + "/v1", "COPILOT_PROVIDER_API_KEY=sk-live-suite",
		"COPILOT_MODEL=" + copilotModel, "COPILOT_AUTO_UPDATE=false"}
}

// session reads the session id of the result line of --output-format
// json's JSONL.
func (copilot) session(w *world, r result) string {
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 16<<20)
	id := ""
	for sc.Scan() {
		var l struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
			ExitCode  int    `json:"exitCode"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Type == "result" && l.ExitCode == 0 {
			id = l.SessionID
		}
	}
	if id == "" {
		w.t.Fatalf("copilot's output has no result naming the session:\n%.2000s\n%s", r.stdout, r.stderr)
	}
	return id
}

func (c copilot) start(w *world, dir, prompt string) string {
	return c.session(w, w.runAgent(dir, "-p", prompt, "--allow-all-tools", "--output-format", "json"))
}

func (c copilot) resume(w *world, dir, session, prompt string) {
	if got := c.session(w, w.runAgent(dir, "--resume", session, "-p", prompt, "--allow-all-tools", "--output-format", "json")); got != session {
		w.t.Fatalf("copilot --resume %s went on in session %s", session, got)
	}
}

func (copilot) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "bash", Input: map[string]any{"command": command, "description": "Write hello.txt"}}
}

// transcript: session-state/<session id>/events.jsonl in ~/.copilot.
func (copilot) transcript(w *world, session string) string {
	return filepath.Join(w.home, ".copilot", "session-state", session, "events.jsonl")
}

func (copilot) events(tool bool) []string {
	if tool {
		return []string{"sessionStart", "userPromptSubmitted", "postToolUse", "agentStop", "sessionEnd"}
	}
	return []string{"sessionStart", "userPromptSubmitted", "agentStop", "sessionEnd"}
}

// gates: the repository among the trusted folders of the user's
// config.json, which install wrote (JSON after comment lines).
func (copilot) gates(w *world) []gate {
	config := filepath.Join(w.home, ".copilot", "config.json")
	var saved []byte
	return []gate{{name: "trusted folder",
		close: func() {
			var err error
			saved, err = os.ReadFile(config)
			must(w.t, err)
			text := string(saved)
			body := text[strings.Index(text, "{"):]
			var m map[string]any
			must(w.t, json.Unmarshal([]byte(body), &m))
			list, _ := m["trustedFolders"].([]any)
			m["trustedFolders"] = slices.DeleteFunc(list, func(v any) bool { return v == w.repo })
			data, err := json.Marshal(m)
			must(w.t, err)
			writeFile(w.t, config, text[:len(text)-len(body)]+string(data)+"\n")
		},
		reopen: func() { writeFile(w.t, config, string(saved)) },
		detail: w.repo + " is not trusted in " + config + ": Copilot CLI does not load the repository's .github/hooks, and runs no git-snap hook",
		fix:    "git snap install copilot trusts it",
	}}
}

func (copilot) probe() (string, string) {
	return "/v1/chat/completions", `{"model":"` + copilotModel + `","stream":false,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"user","content":"Something else entirely."}]}`
}
