package agent

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeProjectDir: Claude Code names a project's folder by its path
// with every character but ASCII letters and digits made "-", one per
// UTF-16 unit, runs not collapsed.
func TestClaudeProjectDir(t *testing.T) {
	for in, want := range map[string]string{
		"/home/jane_doe/my.app":  "-home-jane-doe-my-app",
		`C:\Users\ana`:           "C--Users-ana",
		"/Users/a/Проект":        "-Users-a-------",
		"/w/a b+c":               "-w-a-b-c",
		"/w/\U0001F600x":         "-w---x",
		"/already-dashed/AZaz09": "-already-dashed-AZaz09",
	} {
		if got := claudeProjectDir(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestGeminiResumeStaysInChats: resume of a chat whose sessionId is
// /../../x wrote outside chats/, the id being part of the file name. An
// id that is not a name git-snap accepts is replaced by the session's.
func TestGeminiResumeStaysInChats(t *testing.T) {
	dir := t.TempDir()
	hash := strings.Repeat("ab", 32)
	g := Gemini{Dir: dir}
	for _, id := range []string{"/../../x", "../../../../tmp/evil", "a*b?[c]", "ok-id-12345678"} {
		doc := map[string]any{"messages": []any{}, documentMember: map[string]any{
			"head": map[string]any{"sessionId": id, "projectHash": hash, "startTime": "2026-01-16T11:01:00Z"},
		}}
		path, _, err := g.ResumeTarget("s", doc)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if want := filepath.Join(dir, "tmp", hash, "chats"); filepath.Dir(path) != want {
			t.Errorf("sessionId %q resumes to %s, outside %s", id, path, want)
		}
	}
}

// TestResumeCommandForEachShell: the command resume prints is one the
// user's shell runs: sh's quotes and && on Unix, PowerShell's quotes and
// ; on Windows, a Windows path left as it is.
func TestResumeCommandForEachShell(t *testing.T) {
	for _, tc := range []struct {
		ps        bool
		dir, want string
	}{
		{false, "/src/my app", `cd '/src/my app' && claude -r s1`},
		{false, "/src/o'neil", `cd '/src/o'\''neil' && claude -r s1`},
		{false, "/src/plain", `cd /src/plain && claude -r s1`},
		{true, `C:\src\plain`, `cd C:\src\plain; claude -r s1`},
		{true, `C:\Users\Ann O'Neil\my app`, `cd 'C:\Users\Ann O''Neil\my app'; claude -r s1`},
	} {
		u := userShell{powerShell: tc.ps}
		if got := u.then("cd "+u.quote(tc.dir), "claude -r s1"); got != tc.want {
			t.Errorf("PowerShell %v, %q: %s, want %s", tc.ps, tc.dir, got, tc.want)
		}
	}
}
