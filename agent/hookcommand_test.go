package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestHookCommandRoundTrip: each form of the hook command, for paths
// with spaces and quotes, is recognised as git-snap's for its agent and
// no other, and its program read back as it was.
func TestHookCommandRoundTrip(t *testing.T) {
	for _, exe := range []string{
		"/usr/local/bin/git-snap", "/home/a b/git-snap", "/home/o'neil/bin/git-snap",
		"/usr/local/bin/git-snap-hook", "/home/a b/git-snap-hook", "/home/o'neil/bin/git-snap-hook", "/opt/x$y(1)/git-snap-hook",
		`C:\Tools\git-snap-hook.exe`, `C:\Program Files (x86)\git-snap\git-snap-hook.exe`,
		`C:\Users\Ann Lee\AppData\Roaming\npm\node_modules\git-snap\node_modules\@git-snap\win32-x64\git-snap-hook.exe`,
	} {
		cmd := HookCommand(exe, "claude-code")
		want := exe
		if isWindowsPath(exe) {
			want = strings.ReplaceAll(exe, `\`, "/")
			if strings.Contains(cmd, `\`) {
				t.Errorf("%q: a backslash, which Git Bash strips", cmd)
			}
		}
		wantRest := "hook claude-code"
		if IsHookProgram(exe) {
			wantRest = "claude-code"
		}
		for _, c := range []string{cmd, PowerShellCommand(cmd)} {
			if prog, rest := SplitCommand(c); prog != want || rest != wantRest {
				t.Errorf("%q: program %q, arguments %q; want %q, %q", c, prog, rest, want, wantRest)
			}
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

// TestHookCommandRunsInBash runs each hook command through bash, as
// Claude Code runs hooks (Git Bash on Windows): the program named is the
// one run, with the arguments it was given. A Windows path is made under
// a folder named C: in the test's directory, where bash, started there,
// finds C:/… as it finds it on Windows.
func TestHookCommandRunsInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("no bash to run hook commands in")
	}
	dir := t.TempDir()
	for _, exe := range []string{
		filepath.Join(dir, "a b", "git-snap-hook"),
		filepath.Join(dir, "o'neil", "git-snap-hook"),
		filepath.Join(dir, "x$y(1) & z;", "git-snap-hook"),
		filepath.Join(dir, `back\slash "q"`, "git-snap"),
		`C:\Program Files (x86)\git-snap\git-snap-hook.exe`,
		`C:\Users\Ann Lee\AppData\Roaming\npm\node_modules\@git-snap\win32-x64\git-snap-hook.exe`,
		`C:\Users\o'neil,x=1;y!\bin\git-snap.exe`,
	} {
		path := exe
		if isWindowsPath(exe) {
			path = filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(exe, `\`, "/")))
		}
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte("#!/bin/sh\nprintf '%s|' \"$0\" \"$@\"\n"), 0o755))
		cmd := HookCommand(exe, "claude-code") + " PreToolUse"
		run := exec.Command(bash, "-c", cmd)
		run.Dir = dir
		out, err := run.CombinedOutput()
		if err != nil {
			t.Errorf("bash -c %q: %v\n%s", cmd, err, out)
			continue
		}
		args := strings.Split(strings.TrimSuffix(string(out), "|"), "|")
		want := []string{"claude-code", "PreToolUse"}
		if !IsHookProgram(exe) {
			want = []string{"hook", "claude-code", "PreToolUse"}
		}
		ran := args[0]
		if !filepath.IsAbs(ran) {
			ran = filepath.Join(dir, ran)
		}
		if ran != path || strings.Join(args[1:], " ") != strings.Join(want, " ") {
			t.Errorf("bash -c %q ran %q, want %q %q", cmd, args, path, want)
		}
	}
}
