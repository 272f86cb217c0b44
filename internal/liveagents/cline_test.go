//go:build unix

package liveagents

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-snap/git-snap/modelapi"
)

// cline drives Cline's CLI: cline --json with a prompt, pointed at the
// stub by cline auth (its openai provider, stored as
// openai-compatible; Chat Completions). It prints no session id: the
// session is the folder the run added under ~/.cline/data/sessions. It
// goes on with a session only in its interactive UI (--id refuses
// --json, and a prompt on stdin), so the scenario runs one prompt. Each
// run may leave a hub daemon of Cline's running, stopped by its pid.
type cline struct{}

// clineModel is the model the scenario asks for: one with a price.
const clineModel = "gpt-4.1"

func TestCline(t *testing.T) {
	t.Parallel()
	runScenario(t, cline{})
}

func (cline) name() string { return "cline" }
func (cline) api() string  { return "openai-chat" }

func (cline) noResume() string {
	return "cline --id continues a session only in its interactive UI (with --json, or a prompt on stdin, it refuses: \"JSON output mode requires a prompt argument or piped stdin (interactive mode is unsupported)\")"
}

func (c cline) configure(w *world, url string) []string {
	r := run(w.t, 2*time.Minute, w.root, append(w.environ(), "HOME="+w.home), w.agent, "auth", "-p", "openai", "-k", "sk-live-suite", "-b", url+"/v1", "-m", clineModel)
	c.stopHubs(w)
	if r.code != 0 {
		w.t.Fatalf("cline auth: exit status %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return nil
}

// sessions lists the session folders under ~/.cline/data/sessions.
func (cline) sessions(w *world) []string {
	entries, _ := os.ReadDir(filepath.Join(w.home, ".cline", "data", "sessions"))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func (c cline) start(w *world, dir, prompt string) string {
	before := c.sessions(w)
	defer c.stopHubs(w)
	w.runAgent(dir, "--json", prompt)
	var added []string
	for _, s := range c.sessions(w) {
		if !slices.Contains(before, s) {
			added = append(added, s)
		}
	}
	if len(added) != 1 {
		w.t.Fatalf("cline --json added the sessions %v, want one", added)
	}
	return added[0]
}

func (c cline) resume(w *world, _, session, _ string) {
	w.t.Fatalf("cline cannot resume %s headless: %s", session, c.noResume())
}

// stopHubs stops the hub daemons Cline left running in the world's
// HOME, each by its pid.
func (cline) stopHubs(w *world) {
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		environ, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if bytes.Contains(cmdline, []byte("--cline-hub-daemon")) && slices.Contains(strings.Split(string(environ), "\x00"), "HOME="+w.home) {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}

func (cline) shell(id, command string) modelapi.ToolCall {
	return modelapi.ToolCall{ID: id, Name: "run_commands", Input: map[string]any{"commands": []string{command}}}
}

// transcript: sessions/<id>/<id>.messages.json in ~/.cline/data.
func (cline) transcript(w *world, session string) string {
	return filepath.Join(w.home, ".cline", "data", "sessions", session, session+".messages.json")
}

func (cline) events(tool bool) []string {
	if tool {
		return []string{"TaskStart", "PostToolUse", "TaskComplete"}
	}
	return []string{"TaskStart", "TaskComplete"}
}

// gates: none. Cline runs every file in its hooks folders named after
// an event (one not executable too), and no setting turns hooks off.
func (cline) gates(*world) []gate { return nil }

// recorded: Cline reads no cache writes from Chat Completions: they are
// in its input.
func (cline) recorded(u modelapi.Usage) modelapi.Usage {
	return modelapi.Usage{Input: u.Input + u.CacheWrite, CacheRead: u.CacheRead, Output: u.Output}
}

func (cline) probe() (string, string) {
	return "/v1/chat/completions", `{"model":"` + clineModel + `","stream":false,"tools":[{"type":"function","function":{"name":"run_commands"}}],"messages":[{"role":"user","content":"Something else entirely."}]}`
}
