package cmdline

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-snap/git-snap/cmd/internal/hookcmd"
	"github.com/git-snap/git-snap/snapshot"
)

func TestMain(m *testing.M) {
	testscript.Main(removingBuilt{m}, map[string]func(){
		"git-snap": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// Beside git-snap, as it is installed: install writes the hook
		// program into personal settings.
		"git-snap-hook": func() { os.Exit(hookcmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// removingBuilt runs the tests, then removes the binary the process
// tests share (testscript.Main exits, so a defer would not run).
type removingBuilt struct{ m *testing.M }

func (r removingBuilt) Run() int {
	defer removeBuilt()
	return r.m.Run()
}

// TestScripts runs testdata/script/*.txtar: each one a terminal session
// with the real binary, the real git and a repository in a temp dir.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   filepath.Join("..", "..", "..", "testdata", "script"),
		Setup: scriptEnv,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"status":     cmdStatus,
			"jsonequal":  cmdJSONEqual,
			"capture":    cmdCapture,
			"lines":      cmdLines,
			"envsubst":   cmdEnvsubst,
			"jsonlequal": cmdJSONLEqual,
			"agentturn":  cmdAgentTurn,
			"cmpids":     cmdCmpIDs,
		},
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("GIT_SNAP_UPDATE_SCRIPTS") != "", // rewrites the files cmp compares with, for a reviewed change
		Condition: func(cond string) (bool, error) {
			if name, ok := strings.CutPrefix(cond, "tool:"); ok {
				return toolCondition(name)
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

func scriptEnv(e *testscript.Env) error {
	work := e.WorkDir
	for k, v := range map[string]string{
		"HOME":                work,
		"XDG_CONFIG_HOME":     filepath.Join(work, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Ada",
		"GIT_AUTHOR_EMAIL":    "ada@example.com",
		"GIT_COMMITTER_NAME":  "Ada",
		"GIT_COMMITTER_EMAIL": "ada@example.com",
		"NO_COLOR":            "1",
		"TESTDATA":            filepath.Join(mustAbs("../../../testdata")),
	} {
		e.Setenv(k, v)
	}
	return nil
}

func mustAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return abs
}

// status N CMD ARGS… runs CMD and checks that it exits with status N;
// stdout and stderr are kept for the commands that follow.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Logf("stdout:\n%s\nstderr:\n%s", ts.ReadFile("stdout"), ts.ReadFile("stderr"))
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// jsonequal A B checks that two files hold the same JSON value.
func cmdJSONEqual(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jsonequal file1 file2")
	}
	var vals [2]any
	for i, f := range args {
		v, err := snapshot.Parse([]byte(ts.ReadFile(f)), snapshot.Limits{})
		if err != nil {
			ts.Fatalf("%s: %v", f, err)
		}
		vals[i] = v
	}
	if eq := snapshot.Equal(vals[0], vals[1]); eq == neg {
		ts.Fatalf("%s and %s: JSON-equal is %v", args[0], args[1], eq)
	}
}

// capture NAME sets $NAME to the last command's stdout, trimmed.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: capture NAME")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}

// lines SRC DST N writes the first N lines of SRC to DST, as a transcript
// that grows line by line; with "+" after N, a half-written next line too.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: lines SRC DST N[+]")
	}
	half := strings.HasSuffix(args[2], "+")
	n, err := strconv.Atoi(strings.TrimSuffix(args[2], "+"))
	if err != nil {
		ts.Fatalf("lines: %v", err)
	}
	all := strings.SplitAfter(ts.ReadFile(args[0]), "\n")
	out := strings.Join(all[:min(n, len(all))], "")
	if half && n < len(all) {
		out += all[n][:len(all[n])/2]
	}
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o600); err != nil {
		ts.Fatalf("lines: %v", err)
	}
}

// envsubst IN OUT copies IN to OUT with $VARS expanded.
func cmdEnvsubst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envsubst IN OUT")
	}
	out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o666); err != nil {
		ts.Fatalf("envsubst: %v", err)
	}
}

// jsonlequal A B checks that two JSONL files hold JSON-equal lines, one
// for one, in the same order.
func cmdJSONLEqual(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonlequal file1 file2")
	}
	a := strings.Split(strings.TrimRight(ts.ReadFile(args[0]), "\n"), "\n")
	b := strings.Split(strings.TrimRight(ts.ReadFile(args[1]), "\n"), "\n")
	if len(a) != len(b) {
		ts.Fatalf("%s has %d lines, %s has %d", args[0], len(a), args[1], len(b))
	}
	for i := range a {
		va, err1 := snapshot.Parse([]byte(a[i]), snapshot.Limits{})
		vb, err2 := snapshot.Parse([]byte(b[i]), snapshot.Limits{})
		if err1 != nil && err2 != nil && a[i] == b[i] {
			continue // a line that is not JSON comes back as it was
		}
		if err1 != nil || err2 != nil || !snapshot.Equal(va, vb) {
			ts.Fatalf("line %d differs:\n%.300s\n%.300s", i+1, a[i], b[i])
		}
	}
}
