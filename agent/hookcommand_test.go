package agent

import "testing"

// TestHookCommandRoundTrip: each form of the hook command, for paths
// with spaces and quotes, is recognised as git-snap's for its agent and
// no other, and its program read back as it was.
func TestHookCommandRoundTrip(t *testing.T) {
	for _, exe := range []string{
		"/usr/local/bin/git-snap", "/home/a b/git-snap", "/home/o'neil/bin/git-snap",
		"/usr/local/bin/git-snap-hook", "/home/a b/git-snap-hook", "/home/o'neil/bin/git-snap-hook", `C:\Tools\git-snap-hook.exe`,
	} {
		cmd := HookCommand(exe, "claude-code")
		prog, rest := SplitCommand(cmd)
		wantRest := "hook claude-code"
		if IsHookProgram(exe) {
			wantRest = "claude-code"
		}
		if prog != exe || rest != wantRest {
			t.Errorf("%q: program %q, arguments %q; want %q, %q", cmd, prog, rest, exe, wantRest)
		}
		if !IsHookCommand(cmd, "claude-code") || IsHookCommand(cmd, "claude") || IsHookCommand(cmd, "codex") {
			t.Errorf("%q: recognised for the wrong agents", cmd)
		}
		if !IsHookCommand(cmd+" sessionEnd", "claude-code") {
			t.Errorf("%q with an event after it is not recognised", cmd)
		}
	}
	for _, cmd := range []string{"echo hook claude-code", "/bin/git-snap-hooks claude-code", "git-snap hook claude-code-x", "my-hook claude-code"} {
		if IsHookCommand(cmd, "claude-code") {
			t.Errorf("%q is taken for git-snap's", cmd)
		}
	}
	if got := HookCommandFor(ProjectScope, "/usr/local/bin/git-snap-hook", "codex"); got != "git-snap hook codex" {
		t.Errorf("a file a team commits runs %q", got)
	}
}
