package cmdline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Without git on PATH a hook call cannot read the code state, but the
// conversation is recorded all the same and the failure is logged:
// capture must not stop silently, nor stop at all.
func TestHookWithoutGitStillRecords(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is needed to make the repository")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "c"}} {
		if out, err := exec.Command(gitBin, append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	line := `{"type":"user","uuid":"u1","sessionId":"s-nogit","message":{"role":"user","content":"hi"},"timestamp":"2026-03-02T10:00:00Z"}` + "\n"
	must(t, os.WriteFile(transcript, []byte(line), 0o600))
	payload := `{"session_id":"s-nogit","transcript_path":"` + transcript + `","cwd":"` + dir + `","hook_event_name":"Stop"}`

	t.Setenv("PATH", t.TempDir()) // no git from here on
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(payload), stdout: &stdout, stderr: &stderr, dir: dir, getenv: func(string) string { return "" }}
	if code := e.run(context.Background(), []string{"hook", "claude-code"}); code != 0 || stdout.Len() != 0 {
		t.Fatalf("hook exited %d, printed %q %q", code, stdout.String(), stderr.String())
	}
	out, err := exec.Command(gitBin, "-C", dir, "log", "--format=%s", "refs/snap/s-nogit").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("no snapshot recorded: %v %s", err, out)
	}
	log, err := os.ReadFile(filepath.Join(dir, ".git", "snap", "hook.log"))
	if err != nil || !strings.Contains(string(log), "git is not installed") {
		t.Errorf("hook.log = %q, %v; want the missing git named", log, err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Sharing and packing run git: without it, push (fetch, pull, gc) says so and what to do, and exits 1
// (the call was right; the machine lacks a tool).
func TestPushWithoutGitSaysSo(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is needed to make the repository")
	}
	dir := t.TempDir()
	if out, err := exec.Command(gitBin, "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"push", "origin"}, {"fetch", "origin"}, {"pull", "origin"}, {"gc"}} {
		var stdout, stderr bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir, getenv: func(string) string { return "" }}
		code := e.run(context.Background(), args)
		if code != 1 || !strings.Contains(stderr.String(), "git is not installed") || !strings.Contains(stderr.String(), "install git") {
			t.Errorf("%s without git: exit %d, stderr %q", args[0], code, stderr.String())
		}
	}
}
