package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-snap/git-snap/snapshot"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"git-snap": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar: each one a terminal session
// with the real binary, the real git and a repository in a temp dir.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   filepath.Join("..", "..", "testdata", "script"),
		Setup: scriptEnv,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"status":    cmdStatus,
			"jsonequal": cmdJSONEqual,
			"capture":   cmdCapture,
		},
		RequireExplicitExec: true,
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
		"TESTDATA":            filepath.Join(mustAbs("../../testdata")),
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
