package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/watchman/watchmantest"
)

// TestProgram: the program of a hook command is read back the way
// agent.HookCommand quoted it, spaces and quotes in the path included.
func TestProgram(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/git-snap", "/home/a b/git-snap", "/home/o'neil/bin/git-snap", "git-snap"} {
		cmd := agent.HookCommand(exe, "claude-code")
		if got, _ := agent.SplitCommand(cmd); got != exe {
			t.Errorf("%q: program %q, want %q", cmd, got, exe)
		}
	}
}

// TestRunFindsBrokenCommand: a settings file naming a binary that is
// gone makes the agent, and the report, broken; one that runs does not.
func TestRunFindsBrokenCommand(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	paths, err := gitstore.Discover(dir, gitstore.GitEnv{})
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "bin", "git-snap")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := agent.Env{Home: filepath.Join(dir, "home")}
	a, _ := agent.Lookup("claude-code", env)
	file, _ := a.SettingsFile(agent.LocalScope, paths.WorkTree)
	if _, err := agent.InstallFor(a, file, agent.HookCommand(exe, "claude-code")); err != nil {
		t.Fatal(err)
	}
	o := Options{Paths: paths, Env: env, Agents: []string{"claude-code"}, Now: time.Now(), LookPath: exec.LookPath}
	r := Run(context.Background(), o)
	if r.Broken || len(r.Agents) != 1 || len(r.Agents[0].Installed) != 1 || r.Agents[0].Installed[0].File != file {
		t.Fatalf("installed and runnable: %+v", r)
	}
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), o)
	if !r.Broken || !strings.HasPrefix(r.Agents[0].Verdict, "BROKEN: ") || !strings.Contains(r.Agents[0].Verdict, exe) {
		t.Errorf("binary gone: %+v", r.Agents[0])
	}
}

// TestWorkTreeCheckSaysHowHookCallsRead: with no watchman, the check
// says git status reads every file and how to enable the fast way; with
// a socket nobody answers, it warns and says how to start it; with a
// server, it says hook calls read only what changed.
func TestWorkTreeCheckSaysHowHookCallsRead(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	paths, err := gitstore.Discover(dir, gitstore.GitEnv{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(sock string) agent.Check {
		t.Helper()
		o := Options{Paths: paths, Agents: []string{"git"}, Now: time.Now(), LookPath: exec.LookPath, Watchman: sock}
		for _, c := range Run(context.Background(), o).Repository {
			if c.Name == "work tree" {
				return c
			}
		}
		t.Fatal("no work tree check in the report")
		return agent.Check{}
	}
	if c := check(""); c.Status != agent.OK || !strings.Contains(c.Detail, "git status") || !strings.Contains(c.Detail, "watchman watch-project "+paths.WorkTree) {
		t.Errorf("no watchman: %+v", c)
	}
	if c := check(filepath.Join(t.TempDir(), "sock")); c.Status != agent.Warn || !strings.Contains(c.Fix, "watchman watch-project") {
		t.Errorf("a socket nobody answers: %+v", c)
	}
	wm := watchmantest.Start(t)
	if c := check(wm.Sock); c.Status != agent.OK || !strings.Contains(c.Detail, "only the files changed") {
		t.Errorf("a server: %+v", c)
	}
}
