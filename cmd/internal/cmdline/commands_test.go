package cmdline

import (
	"bytes"
	"context"
	"testing"
)

// Only the commands that read and print, and --version and help, run
// without watching Ctrl-C and SIGTERM, and they too watch once they
// page; every command that may write watches from the start of its
// action (proc.Signals).
func TestWhoWatchesSignals(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	for _, tc := range []struct {
		args     []string
		terminal bool
		want     bool
	}{
		{[]string{"--version"}, false, false},
		{[]string{"log", "-n", "20"}, false, false},
		{[]string{"--no-pager", "show", "s"}, false, false},
		{[]string{"sessions", "--json"}, false, false},
		{[]string{"stats"}, false, false},
		{[]string{"usage", "--daily"}, false, false},
		{[]string{"diff", "a", "b"}, false, false},
		{[]string{"log", "--all"}, true, true}, // paged
		{[]string{"log", "--all", "--no-pager"}, true, false},
		{[]string{"save", "--session", "s", "missing.json"}, false, true},
		{[]string{"checkpoint", "green", "s"}, false, true},
		{[]string{"prune", "--keep-last", "1", "s"}, false, true},
		{[]string{"search", "word"}, false, true}, // writes its index
		{[]string{"import", "--from", "claude-code", "missing"}, false, true},
		{[]string{"--help"}, false, false},
	} {
		watched := false
		var stdout, stderr bytes.Buffer
		e := &env{stdout: &stdout, stderr: &stderr, dir: dir, terminal: tc.terminal,
			getenv: func(string) string { return "" },
			lookupenv: func(k string) (string, bool) {
				return map[string]string{"GIT_PAGER": "cat >/dev/null"}[k], k == "GIT_PAGER"
			},
			watch: func() { watched = true }}
		e.run(context.Background(), tc.args)
		if watched != tc.want {
			t.Errorf("%q (terminal %v): watched %v, want %v; stderr %s", tc.args, tc.terminal, watched, tc.want, stderr.String())
		}
	}
}
