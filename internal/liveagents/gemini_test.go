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
	"time"

	"github.com/git-snap/git-snap/modelapi"
)

// gemini drives Gemini CLI: headless with -p, its JSON result naming the
// session; pointed at the stub by GOOGLE_GEMINI_BASE_URL, with the API
// key auth chosen in the user's settings (with the base URL set, the
// auth Gemini CLI takes from the environment is "gateway", which
// headless runs refuse). The model is named: Gemini CLI's router would
// pick one of its own, which has no price yet. Its session cleanup is
// off: a resume in another minute than the chat began leaves a file of
// the session with no message, which the cleanup at the next start
// deletes, with every file of the same short id, the chat among them.
type gemini struct{}

// geminiModel is the model the scenario asks for.
const geminiModel = "gemini-3.1-pro-preview"

func TestGemini(t *testing.T) {
	t.Parallel()
	runScenario(t, gemini{})
}

func (gemini) name() string { return "gemini" }
func (gemini) api() string  { return "gemini" }

func (gemini) configure(w *world, url string) []string {
	writeFile(w.t, filepath.Join(w.home, ".gemini", "settings.json"), `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false, "sessionRetention": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false}
}
`)
	// GEMINI_CLI_NO_RELAUNCH: Gemini CLI otherwise starts node again with
	// a larger heap, which doubles each run's start.
	return []string{"GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_API_KEY=live-suite", "GEMINI_CLI_NO_RELAUNCH=true"}
}

// result reads the session id of -p --output-format json's result.
func (gemini) result(w *world, r result) string {
	var out struct {
		SessionID string `json:"session_id"`
		Error     any    `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Error != nil || out.SessionID == "" {
		w.t.Fatalf("gemini's result %q (%v): %s", r.stdout, err, r.stderr)
	}
	return out.SessionID
}

// trustArgs: headless, Gemini CLI runs only in a trusted folder. The
// scenario's repository is trusted by install (one of the gates); the
// replay's, where git-snap is not installed, for the run alone.
func trustArgs(w *world, dir string) []string {
	if dir == w.repo {
		return nil
	}
	return []string{"--skip-trust"}
}

func (g gemini) start(w *world, dir, prompt string) string {
	args := append([]string{"-p", prompt, "--yolo", "--output-format", "json", "-m", geminiModel}, trustArgs(w, dir)...)
	return g.result(w, w.runAgent(dir, args...))
}

func (g gemini) resume(w *world, dir, session, prompt string) {
	args := append([]string{"--resume", session, "-p", prompt, "--yolo", "--output-format", "json", "-m", geminiModel}, trustArgs(w, dir)...)
	if got := g.result(w, w.runAgent(dir, args...)); got != session {
		w.t.Fatalf("gemini --resume %s went on in session %s", session, got)
	}
}

func (gemini) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "run_shell_command", Input: map[string]any{"command": command, "description": "Write hello.txt"}}
}

// transcript: tmp/<project name>/chats/session-<UTC minute>-<id8>.jsonl
// in ~/.gemini. A resume in a later minute leaves another file of the
// session beside it, holding only its start: the chat is the larger.
func (gemini) transcript(w *world, session string) string {
	m, _ := filepath.Glob(filepath.Join(w.home, ".gemini", "tmp", "*", "chats", "session-*-"+session[:8]+".jsonl"))
	best, size := "", int64(-1)
	for _, p := range m {
		fi, err := os.Stat(p)
		if err == nil && fi.Size() > size && firstSessionID(p) == session {
			best, size = p, fi.Size()
		}
	}
	if best == "" {
		w.t.Fatalf("chats of %s in %s: %v", session, w.home, m)
	}
	return best
}

// firstSessionID is the sessionId of a chat's first line.
func firstSessionID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		return ""
	}
	var head struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(sc.Bytes(), &head)
	return head.SessionID
}

func (gemini) events(tool bool) []string {
	if tool {
		return []string{"SessionStart", "BeforeAgent", "PreCompress", "AfterTool", "AfterAgent", "SessionEnd"}
	}
	return []string{"SessionStart", "BeforeAgent", "PreCompress", "AfterAgent", "SessionEnd"}
}

// gates: the project's folder trust in the user's trustedFolders.json,
// which install wrote, and hooksConfig.enabled in the user's settings.
// Headless, Gemini CLI 0.61 does not run at all in a folder it does not
// trust.
func (g gemini) gates(w *world) []gate {
	trusted := filepath.Join(w.home, ".gemini", "trustedFolders.json")
	settings := filepath.Join(w.home, ".gemini", "settings.json")
	var saved []byte
	save := func(path string) {
		var err error
		saved, err = os.ReadFile(path)
		must(w.t, err)
	}
	return []gate{
		{name: "folder trust",
			close: func() {
				save(trusted)
				var m map[string]any
				must(w.t, json.Unmarshal(saved, &m))
				delete(m, w.repo)
				data, err := json.Marshal(m)
				must(w.t, err)
				writeFile(w.t, trusted, string(data))
			},
			reopen: func() { writeFile(w.t, trusted, string(saved)) },
			detail: w.repo + " is not trusted in " + trusted + ": Gemini CLI ignores the project's .gemini/settings.json, and its hooks",
			fix:    "git snap install gemini trusts it",
			refused: func() string {
				r := run(w.t, 3*time.Minute, w.repo, w.environ(), w.agent, "-p", gatePrompt(gate{name: "folder trust"}), "--yolo", "--output-format", "json", "-m", geminiModel)
				if r.code == 0 || !strings.Contains(r.stderr, "not running in a trusted directory") {
					return fmt.Sprintf("gemini exited %d:\n%s", r.code, r.stderr)
				}
				return ""
			}},
		{name: "hooks turned off",
			close: func() {
				save(settings)
				writeFile(w.t, settings, strings.Replace(string(saved), "{", `{"hooksConfig": {"enabled": false},`, 1))
			},
			reopen: func() { writeFile(w.t, settings, string(saved)) },
			detail: `"hooksConfig": {"enabled": false} in ` + settings + ": Gemini CLI runs no hook",
			fix:    `remove "enabled": false from "hooksConfig" in ` + settings},
	}
}

func (gemini) probe() (string, string) {
	return "/v1beta/models/" + geminiModel + ":generateContent", `{"contents":[{"role":"user","parts":[{"text":"Something else entirely."}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`
}
