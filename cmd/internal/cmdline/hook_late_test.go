package cmdline

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
)

// Copilot CLI writes the sessionEnd hook's hook.end and session.shutdown
// after the hook returns: the call returns at once, and a separate
// git-snap process records those lines once they are there, so that restore gives
// back the whole file; only the call itself is in hook.log. (The lines
// are written as restore writes JSON, keys sorted, to be compared as
// text.) git-snap-hook starts its follow-up call as git snap hook does. In a
// quick run, Copilot CLI 1.0 creates events.jsonl only after its calls
// came: no call logs it missing, and the follow-up call records it whole. A
// resumed run appends to a transcript that ends as the run before ended
// (session.shutdown): the follow-up call waits for this run's lines, which a
// quick run writes only after its sessionEnd call.
func TestHookRecordsCopilotLinesAfterSessionEnd(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is needed to make the repository")
	}
	bin := buildBinary(t)
	for name, hook := range map[string][]string{"git snap hook": {bin, "hook"}, "git-snap-hook": {filepath.Join(filepath.Dir(bin), agent.HookProgram)}} {
		t.Run(name, func(t *testing.T) { copilotLateLines(t, gitBin, bin, hook, "") })
		t.Run(name+", the transcript written after the call", func(t *testing.T) { copilotLateLines(t, gitBin, bin, hook, "late") })
		t.Run(name+", a resumed run written after the call", func(t *testing.T) { copilotLateLines(t, gitBin, bin, hook, "resumed") })
	}
}

// copilotLateLines runs the Copilot CLI's sessionEnd call with the
// program hook (and what comes before the agent's name) and checks that
// the lines written after it are recorded; mode "late": the whole
// transcript is written after the call; "resumed": the transcript holds
// a whole run before, and all of this run is written after the call.
func copilotLateLines(t *testing.T, gitBin, bin string, hook []string, mode string) {
	repo, home := gitRepo(t, gitBin), t.TempDir()
	const id = "9d362af6-ca39-4eea-868c-df2047196cc0"
	events := filepath.Join(home, ".copilot", "session-state", id, "events.jsonl")
	must(t, os.MkdirAll(filepath.Dir(events), 0o755))
	before := `{"data":{"sessionId":"` + id + `"},"id":"e1","timestamp":"2026-11-25T10:00:00Z","type":"session.start"}
{"data":{"content":"hi"},"id":"e2","timestamp":"2026-11-25T10:00:01Z","type":"user.message"}
{"data":{"hookInvocationId":"h1","hookType":"sessionEnd"},"id":"e3","timestamp":"2026-11-25T10:00:02Z","type":"hook.start"}
`
	after := `{"data":{"hookInvocationId":"h1","hookType":"sessionEnd","success":true},"id":"e4","timestamp":"2026-11-25T10:00:03Z","type":"hook.end"}
{"data":{"accountingSnapshot":{}},"id":"e5","timestamp":"2026-11-25T10:00:03Z","type":"session.shutdown"}
`
	switch mode {
	case "late":
		after, before = before+after, ""
	case "resumed":
		again := strings.NewReplacer(`"e`, `"r`, `"h1"`, `"h2"`, "10:00:0", "10:05:0", `"hi"`, `"again"`).Replace(before + after)
		after, before = again[strings.Index(again, "\n")+1:], before+after
	}
	if before != "" {
		must(t, os.WriteFile(events, []byte(before), 0o644))
	}
	env := append(os.Environ(), "HOME="+home, "COPILOT_HOME=", "GIT_SNAP_HOOK_LATE=")
	cmd := exec.Command(hook[0], append(hook[1:], "copilot", "sessionEnd")...)
	cmd.Dir, cmd.Env = repo, env
	cmd.Stdin = strings.NewReader(`{"sessionId":"` + id + `","reason":"complete","cwd":"` + repo + `"}`)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook: %v %s", err, out.String())
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the hook call waited %s for lines the agent writes after it", took)
	}
	// The agent goes on once the hook has returned; a resumed run's
	// lines come after the follow-up call has looked (as a loaded machine's
	// Copilot CLI wrote them).
	if mode == "resumed" {
		time.Sleep(time.Second)
	}
	f, err := os.OpenFile(events, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	must(t, err)
	_, err = f.WriteString(after)
	must(t, err)
	must(t, f.Close())

	restore := func() string {
		c := exec.Command(bin, "restore", id, "--format", "copilot")
		c.Dir, c.Env = repo, env
		got, _ := c.Output()
		return string(got)
	}
	end := time.Now().Add(20 * time.Second)
	for restore() != before+after {
		if time.Now().After(end) {
			t.Fatalf("restore after the agent's last lines:\n%s\nwant:\n%s", restore(), before+after)
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, err := os.ReadFile(filepath.Join(repo, ".git", "snap", "hook.log"))
	if err != nil || strings.Count(string(log), "\n") != 1 || !strings.Contains(string(log), "call copilot sessionEnd") {
		t.Errorf("hook.log = %q, %v; want the one call", log, err)
	}
}

// gitRepo makes a repository with one commit, for a test of the
// processes a hook call starts.
func gitRepo(t *testing.T, gitBin string) string {
	t.Helper()
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "c"}} {
		if out, err := exec.Command(gitBin, append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return repo
}
