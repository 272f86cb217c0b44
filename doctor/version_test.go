package doctor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/liveagents"
)

// TestDoctorNamesTheAgentsVersion: doctor names the version of the npm
// package that holds the agent's executable on PATH next to the newest
// the live-agent suite verified, and says when it is newer.
func TestDoctorNamesTheAgentsVersion(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	paths, err := gitstore.Discover(dir, gitstore.GitEnv{})
	if err != nil {
		t.Fatal(err)
	}
	pins, err := liveagents.Pins()
	if err != nil {
		t.Fatal(err)
	}
	verified := pins["qwen"].Version
	env := agent.Env{Home: filepath.Join(dir, "home")}
	a, _ := agent.Lookup("qwen", env)
	file, _ := a.SettingsFile(agent.ProjectScope, paths.WorkTree)
	if _, err := agent.Install(a, file, "git-snap hook qwen"); err != nil {
		t.Fatal(err)
	}
	// npm's layout: node_modules/.bin/qwen a link into the package.
	modules := filepath.Join(dir, "npm", "node_modules")
	pkg := filepath.Join(modules, "@qwen-code", "qwen-code")
	must(t, os.MkdirAll(pkg, 0o755))
	must(t, os.MkdirAll(filepath.Join(modules, ".bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(pkg, "cli.js"), []byte("#!/usr/bin/env node\n"), 0o755))
	must(t, os.Symlink(filepath.Join("..", "@qwen-code", "qwen-code", "cli.js"), filepath.Join(modules, ".bin", "qwen")))
	bin := filepath.Join(modules, ".bin", "qwen")
	lookPath := func(name string) (string, error) {
		if name == "qwen" {
			return bin, nil
		}
		return exec.LookPath(name)
	}
	for _, c := range []struct{ installed, want string }{
		{verified, "@qwen-code/qwen-code " + verified + " installed (" + bin + "); the live-agent suite verified " + verified},
		{"99.0.0", "@qwen-code/qwen-code 99.0.0 installed (" + bin + "), newer than " + verified + ", the newest the live-agent suite verified"},
	} {
		must(t, os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name": "@qwen-code/qwen-code", "version": "`+c.installed+`"}`), 0o644))
		r := Run(context.Background(), Options{Paths: paths, Env: env, Agents: []string{"qwen"}, Now: time.Now(), LookPath: lookPath})
		found := false
		for _, ch := range r.Agents[0].Checks {
			if ch.Name == "qwen version" {
				found = true
				if !strings.HasPrefix(ch.Detail, c.want) || ch.Status != agent.OK {
					t.Errorf("installed %s: %s %q, want %q", c.installed, ch.Status, ch.Detail, c.want)
				}
			}
		}
		if !found {
			t.Errorf("installed %s: no version check in %+v", c.installed, r.Agents[0].Checks)
		}
	}
	// Not on PATH: nothing said of its version.
	r := Run(context.Background(), Options{Paths: paths, Env: env, Agents: []string{"qwen"}, Now: time.Now(),
		LookPath: func(string) (string, error) { return "", errors.New("not found") }})
	for _, ch := range r.Agents[0].Checks {
		if ch.Name == "qwen version" {
			t.Errorf("an agent not on PATH: %+v", ch)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
