//go:build unix

package liveagents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The switch: unset, every test skips; "1" runs the pinned versions of
// versions.json; "latest" the newest versions npm has.
const switchVar = "GIT_SNAP_LIVE_AGENTS"

// gitSnapDir holds git-snap and git-snap-hook beside it, built for the
// suite, first on every process's PATH so that the hooks the agents run
// are these: install writes the hook program, beside git-snap, into
// personal settings, and git snap hook into those a team shares.
var gitSnapDir string

func TestMain(m *testing.M) {
	if os.Getenv(switchVar) == "" {
		os.Exit(m.Run()) // every test skips
	}
	dir, err := os.MkdirTemp("", "git-snap-live-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gitSnapDir = filepath.Join(dir, "bin")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	build := exec.CommandContext(ctx, "go", "build", "-o", gitSnapDir+string(filepath.Separator), "github.com/git-snap/git-snap/cmd/git-snap...")
	out, err := build.CombinedOutput()
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build git-snap: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// pin is an agent's npm package at the version the suite runs.
type pin = Pin

// withVersion splits a With entry into the package and its version, the
// agent's unless the entry names one.
func (p Pin) withVersion(with string) (string, string) {
	if i := strings.LastIndex(with, "@"); i > 0 {
		return with[:i], with[i+1:]
	}
	return with, p.Version
}

// pinFor reads an agent's pin from versions.json; with the switch at
// "latest", the version is the newest npm has.
func pinFor(t *testing.T, agent string) pin {
	t.Helper()
	pins, err := Pins()
	if err != nil {
		t.Fatalf("versions.json: %v", err)
	}
	p, ok := pins[agent]
	if !ok {
		t.Fatalf("versions.json pins no version of %s", agent)
	}
	if os.Getenv(switchVar) == "latest" {
		p.Version = latest(t, p.Package)
		for i, b := range p.Beside {
			name, _ := p.withVersion(b)
			p.Beside[i] = name + "@" + latest(t, name)
		}
		for i, w := range p.With {
			if name, _ := p.withVersion(w); name != w {
				p.With[i] = name + "@" + latest(t, name)
			}
		}
	}
	return p
}

// latest is the newest version of a package npm has.
func latest(t *testing.T, pkg string) string {
	out := run(t, 2*time.Minute, "", nil, npm(t), "view", pkg, "version")
	return strings.TrimSpace(out.stdout)
}

// npm is the npm to install agents with; without one the test is
// skipped, or fails when GIT_SNAP_REQUIRE_TOOLS says every tool must be
// there (as .ci/run does).
func npm(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("npm")
	if err != nil {
		if os.Getenv("GIT_SNAP_REQUIRE_TOOLS") != "" {
			t.Fatal("npm is not installed and GIT_SNAP_REQUIRE_TOOLS is set")
		}
		t.Skip("npm is not installed (set GIT_SNAP_REQUIRE_TOOLS=1 to make this a failure)")
	}
	return path
}

// agentsCache is where installed agents are kept between runs, one
// folder per package@version: $GIT_SNAP_AGENTS_CACHE, else
// git-snap/agents in the user's cache folder.
func agentsCache(t *testing.T) string {
	if d := os.Getenv("GIT_SNAP_AGENTS_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, "git-snap", "agents")
}

// install gives the path of the pinned agent's executable, installing
// the package with npm into the cache when it is not there. An install
// that fails fails the test: the suite is for the agents as published.
func install(t *testing.T, p pin) string {
	t.Helper()
	dir := installPackage(t, p.Package, p.Version, filepath.Join("node_modules", ".bin", p.Bin), p.Beside...)
	for _, with := range p.With {
		name, version := p.withVersion(with)
		installPackage(t, name, version, filepath.Join("node_modules", filepath.FromSlash(name), "package.json"))
	}
	return filepath.Join(dir, "node_modules", ".bin", p.Bin)
}

// installPackage installs pkg@version with npm into a folder of its own
// in the cache, once, and gives the folder: node_modules, and the
// package.json and package-lock.json naming the package at exactly that
// version, and the packages beside (pkg@version) with it. The folder
// is there when it holds marker and the packages beside.
func installPackage(t *testing.T, pkg, version, marker string, beside ...string) string {
	t.Helper()
	key := strings.NewReplacer("/", "_", "@", "_").Replace(pkg + "@" + version)
	dir := filepath.Join(agentsCache(t), key)
	markers := []string{marker}
	for _, b := range beside {
		name, _ := pin{}.withVersion(b)
		markers = append(markers, filepath.Join("node_modules", filepath.FromSlash(name), "package.json"))
	}
	there := func() error {
		for _, m := range markers {
			if _, err := os.Stat(filepath.Join(dir, m)); err != nil {
				return err
			}
		}
		return nil
	}
	if there() == nil {
		return dir
	}
	npmPath := npm(t)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), key+".installing-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Logf("installing %s@%s into %s", pkg, version, dir)
	args := append([]string{"install", "--prefix", tmp, "--save-exact", "--no-audit", "--no-fund", "--loglevel=error", pkg + "@" + version}, beside...)
	run(t, 10*time.Minute, "", nil, npmPath, args...)
	// Renamed whole, so that a run killed half way leaves no cache entry.
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if there() != nil { // another run's install won
			t.Fatal(err)
		}
	}
	if err := there(); err != nil {
		t.Fatalf("%s@%s %v installed less than it should: %v", pkg, version, beside, err)
	}
	return dir
}

// result is what a process printed.
type result struct {
	stdout, stderr string
	code           int
}

// run runs a program in dir with env (nil: this process's) and a
// deadline; it fails the test when the program cannot run or is killed.
// The program and its children are one process group, killed together
// at the deadline.
func run(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) result {
	t.Helper()
	r, err := start(timeout, dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), err, r.stdout, r.stderr)
	}
	return r
}

func start(timeout time.Duration, dir string, env []string, name string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return r, fmt.Errorf("killed after %s", timeout)
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
		return r, nil
	}
	return r, err
}

// waitFor polls cond until it holds or the deadline passes: the
// condition is what the test waits on, never a time.
func waitFor(t *testing.T, what string, deadline time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("after %s: %s", deadline, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(data), 0o644))
}
