package agent

import "testing"

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
