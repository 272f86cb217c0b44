//go:build unix

package cmdline

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
)

// OpenCode writes the last of a run (a message's summary, the session's
// times) as it exits, after its plugin's dispose call: that call returns
// at once, and a separate git-snap process waits for OpenCode's process to be gone,
// then records what `opencode export --pure <session>` prints. Here a
// sleeping process stands for OpenCode's and a script named opencode
// for its export (the live-agent suite runs the real one): no export
// runs while the process lives, the export is recorded once it is gone,
// and hook.log holds the dispose call and the export. git-snap-hook
// starts its follow-up call as git snap hook does.
func TestHookRecordsOpenCodeExportAfterExit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is needed to make the repository")
	}
	bin := buildBinary(t)
	for name, hook := range map[string][]string{"git snap hook": {bin, "hook"}, "git-snap-hook": {filepath.Join(filepath.Dir(bin), agent.HookProgram)}} {
		t.Run(name, func(t *testing.T) { openCodeExportAfterExit(t, bin, gitRepo(t, gitBin), hook) })
	}
}

// openCodeExportAfterExit runs OpenCode's plugin calls with the program
// hook (and what comes before the agent's name) and checks that the
// export is recorded once the process is gone.
func openCodeExportAfterExit(t *testing.T, bin, repo string, hook []string) {
	tmp := t.TempDir()
	const id = "ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp"
	export := func(updated int64, answer string) string {
		return `{"info": {"id": "` + id + `", "time": {"created": 1768560000000, "updated": ` + jsonNumber(updated) + `}},
 "messages": [{"info": {"id": "msg_u1", "sessionID": "` + id + `", "role": "user", "time": {"created": 1768560000000}},
   "parts": [{"id": "prt_1", "type": "text", "text": "hi"}]},
  {"info": {"id": "msg_a1", "sessionID": "` + id + `", "role": "assistant", "modelID": "gpt-4.1", "time": {"created": 1768560001000},
   "tokens": {"input": 100, "output": 7, "reasoning": 0, "cache": {"read": 20, "write": 0}}},
   "parts": [{"id": "prt_2", "type": "text", "text": "` + answer + `"}]}]}`
	}
	// What the plugin wrote at session.idle, and what OpenCode exports
	// after it exited: the answer's last words came after the call.
	idle, last := export(1768560001500, "Hel"), export(1768560002000, "Hello.")
	plugin := filepath.Join(tmp, "idle", id+".json")
	must(t, os.MkdirAll(filepath.Dir(plugin), 0o700))
	must(t, os.WriteFile(plugin, []byte(idle), 0o600))
	ran := filepath.Join(tmp, "export-ran")
	opencode := filepath.Join(tmp, "bin", "opencode")
	must(t, os.MkdirAll(filepath.Dir(opencode), 0o755))
	must(t, os.WriteFile(filepath.Join(tmp, "last.json"), []byte(last), 0o600))
	must(t, os.WriteFile(opencode, []byte(`#!/bin/sh
[ "$1 $2 $3" = "export --pure `+id+`" ] || { echo "unexpected: $*" >&2; exit 2; }
echo "$GIT_SNAP_HOOK_LATE" >> `+ran+`
echo "Exporting session: $3" >&2
cat `+filepath.Join(tmp, "last.json")+`
`), 0o755))

	agentProc := exec.Command("sleep", "60")
	must(t, agentProc.Start())
	defer func() { _ = agentProc.Process.Kill() }()
	env := append(os.Environ(), "TMPDIR="+tmp, "GIT_SNAP_HOOK_LATE=")
	call := func(event string) {
		t.Helper()
		payload, _ := json.Marshal(map[string]any{"hook_event_name": event, "session_id": id, "transcript_path": plugin, "cwd": repo,
			"opencode_pid": agentProc.Process.Pid, "opencode": opencode})
		cmd := exec.Command(hook[0], append(hook[1:], "opencode")...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, bytes.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hook %s: %v %s", event, err, out)
		}
	}
	restore := func() string {
		c := exec.Command(bin, "restore", id, "--format", "opencode")
		c.Dir, c.Env = repo, env
		got, _ := c.Output()
		return string(got)
	}
	same := func(a, b string) bool {
		var x, y any
		return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && jsonEqualAny(x, y)
	}
	call("session.idle")
	call("dispose")
	time.Sleep(time.Second) // the follow-up call is waiting: nothing it does may be seen yet
	if _, err := os.Stat(ran); err == nil || !same(restore(), idle) {
		t.Fatalf("the export ran while OpenCode's process lived (%v), or the session changed:\n%s", err, restore())
	}
	must(t, agentProc.Process.Kill())
	_ = agentProc.Wait()
	// The follow-up call saves the export, then writes its hook.log line:
	// wait for both.
	logged := func() bool {
		log, _ := os.ReadFile(filepath.Join(repo, ".git", "snap", "hook.log"))
		return strings.Contains(string(log), "call opencode export")
	}
	end := time.Now().Add(60 * time.Second)
	for !same(restore(), last) || !logged() {
		if time.Now().After(end) {
			log, _ := os.ReadFile(filepath.Join(repo, ".git", "snap", "hook.log"))
			t.Fatalf("restore after OpenCode exited:\n%s\nwant:\n%s\nhook.log:\n%s", restore(), last, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Once, by the follow-up call: GIT_SNAP_HOOK_LATE set to the size of
	// what the call that started it had read.
	if got, _ := os.ReadFile(ran); !regexp.MustCompile(`^[0-9]+\n$`).Match(got) {
		t.Errorf("the export ran %q times (with GIT_SNAP_HOOK_LATE as each line), want once, by the follow-up call", got)
	}
	log, err := os.ReadFile(filepath.Join(repo, ".git", "snap", "hook.log"))
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if err != nil || len(lines) != 3 || !strings.Contains(lines[0], "call opencode session.idle") ||
		!strings.Contains(lines[1], "call opencode dispose") || !strings.Contains(lines[2], "call opencode export") {
		t.Errorf("hook.log = %q, %v; want the idle and dispose calls and the export", log, err)
	}
	// The idle call's file, written again late with the earlier state,
	// changes nothing.
	call("session.idle")
	if !same(restore(), last) {
		t.Errorf("a late call with the earlier export went back to it:\n%s", restore())
	}
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func jsonEqualAny(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
