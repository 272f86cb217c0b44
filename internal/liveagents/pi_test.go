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

// pi drives pi: pi -p with --mode json, whose first line is the
// session's header, naming it; pointed at the stub by a provider of the
// openai-completions kind in ~/.pi/agent/models.json (Chat Completions),
// told the server takes no developer role and no reasoning effort.
type pi struct{}

// piModel is the model the scenario asks for: one with a price.
const piModel = "gpt-4.1"

func TestPi(t *testing.T) {
	t.Parallel()
	runScenario(t, pi{})
}

func (pi) name() string { return "pi" }
func (pi) api() string  { return "openai-chat" }

func (pi) configure(w *world, url string) []string {
	writeFile(w.t, filepath.Join(w.home, ".pi", "agent", "models.json"), fmt.Sprintf(`{"providers": {"stub": {
  "baseUrl": "%s/v1", "api": "openai-completions", "apiKey": "sk-live-suite",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
  "models": [{"id": "%s"}]}}}
`, url, piModel))
	return []string{"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}
}

// session reads the session id of --mode json's header line.
func (pi) session(w *world, r result) string {
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Type == "session" && l.ID != "" {
			return l.ID
		}
	}
	w.t.Fatalf("pi's output has no session header:\n%.2000s\n%s", r.stdout, r.stderr)
	return ""
}

func (p pi) start(w *world, dir, prompt string) string {
	return p.session(w, w.runAgent(dir, "--provider", "stub", "--model", piModel, "--mode", "json", "-p", prompt))
}

func (p pi) resume(w *world, dir, session, prompt string) {
	if got := p.session(w, w.runAgent(dir, "--provider", "stub", "--model", piModel, "--mode", "json", "--session", session, "-p", prompt)); got != session {
		w.t.Fatalf("pi --session %s went on in session %s", session, got)
	}
}

func (pi) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "bash", Input: map[string]any{"command": command}}
}

// transcript: sessions/--<the project's path, '/' made '-'>--/<time>_<session>.jsonl
// in ~/.pi/agent; "" named by the session alone when pi has written
// none there.
func (pi) transcript(w *world, session string) string {
	dir := filepath.Join(w.home, ".pi", "agent", "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(w.repo, "/"), "/", "-")+"--")
	m, _ := filepath.Glob(filepath.Join(dir, "*_"+session+".jsonl"))
	if len(m) != 1 {
		w.t.Fatalf("pi's session files for %s in %s: %v", session, dir, m)
	}
	return m[0]
}

// events: the extension's calls; session_start comes before pi has
// written a new session's file, so that it calls only in a resumed one.
func (pi) events(tool bool) []string {
	if tool {
		return []string{"tool_execution_end", "turn_end", "agent_end", "session_shutdown"}
	}
	return []string{"turn_end", "agent_end", "session_shutdown"}
}

// gates: the project's .pi/settings.json excluding git-snap's extension
// ("-path" in its extensions) keeps pi from loading it.
func (pi) gates(w *world) []gate {
	settings := filepath.Join(w.repo, ".pi", "settings.json")
	ext := filepath.Join(w.repo, ".pi", "extensions", "git-snap.ts")
	return []gate{{
		name:   "extension excluded",
		close:  func() { writeFile(w.t, settings, `{"extensions": ["-extensions/git-snap.ts"]}`+"\n") },
		reopen: func() { must(w.t, os.Remove(settings)) },
		detail: `"-extensions/git-snap.ts" in the extensions of ` + settings + `: pi does not load git-snap's ` + ext,
		fix:    `remove "-extensions/git-snap.ts" from ` + settings,
	}}
}

// recorded: pi reads Chat Completions usage taking the cache writes out
// of the cached tokens (as some providers count them in), and the rest
// of the prompt as input.
func (pi) recorded(u modelapi.Usage) modelapi.Usage {
	read := max(u.CacheRead-u.CacheWrite, 0)
	if u.CacheWrite == 0 {
		read = u.CacheRead
	}
	prompt := u.Input + u.CacheRead + u.CacheWrite
	return modelapi.Usage{Input: prompt - read - u.CacheWrite, CacheRead: read, CacheWrite: u.CacheWrite, Output: u.Output}
}

func (pi) probe() (string, string) {
	return "/v1/chat/completions", `{"model":"` + piModel + `","stream":false,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"user","content":"Something else entirely."}]}`
}
