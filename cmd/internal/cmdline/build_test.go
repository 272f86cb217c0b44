package cmdline

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// linked lists the packages a build of pkg links (go list -deps).
func linked(t *testing.T, pkg string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// links reports whether deps hold lib or a package below it.
func links(deps []string, lib string) bool {
	return slices.ContainsFunc(deps, func(p string) bool { return p == lib || strings.HasPrefix(p, lib+"/") })
}

// Sharing runs git (docs/design.md §7): git-snap links none of go-git's
// network transports, nor the SSH client they bring. A dependency that
// brings one back fails here.
func TestGitSnapLinksNoGitTransport(t *testing.T) {
	deps := linked(t, "../../git-snap")
	if len(deps) < 50 || !slices.Contains(deps, "github.com/urfave/cli/v2") {
		t.Fatalf("go list gave %d packages, not this command's dependencies", len(deps))
	}
	for _, lib := range []string{"github.com/go-git/go-git/v5/plumbing/transport", "golang.org/x/crypto/ssh"} {
		if links(deps, lib) {
			t.Errorf("git-snap links %s", lib)
		}
	}
}

// The hook program links only what a hook call uses: every call of an
// agent's hook starts it, and Go runs the init of every package linked,
// used or not (docs/design.md §7). It records through the library's
// front door (package gitsnap), so the door must not bring in a
// renderer, a template, a server, a command-line library, or the
// packages that read sessions back, export or serve them: one that does
// fails here, naming the package.
func TestHookProgramLinksOnlyTheHookPath(t *testing.T) {
	deps := linked(t, "../../git-snap-hook")
	if !slices.Contains(deps, "github.com/git-snap/git-snap/hook") || !slices.Contains(deps, "github.com/git-snap/git-snap/gitstore") {
		t.Fatalf("go list gave %d packages, not the hook program's dependencies", len(deps))
	}
	// Libraries, with the packages below them.
	libraries := []string{
		"github.com/yuin/goldmark", "github.com/itchyny/gojq", "html/template", "text/template", "net/http",
		"github.com/modelcontextprotocol", "google.golang.org/protobuf", "go.opentelemetry.io",
		"github.com/urfave/cli", "github.com/russross/blackfriday", "github.com/go-git/go-git/v5/plumbing/transport", "golang.org/x/crypto/ssh",
		"modernc.org/sqlite", "modernc.org/libc", "database/sql",
	}
	var module []string
	for _, p := range []string{"/report", "/render", "/viewer", "/search", "/mcpserver", "/modelapi", "/otel", "/atif", "/chat", "/doctor", "/agentdb"} {
		module = append(module, "github.com/git-snap/git-snap"+p)
	}
	for _, p := range deps {
		if slices.Contains(module, p) || slices.ContainsFunc(libraries, func(l string) bool { return links([]string{p}, l) }) {
			t.Errorf("the hook program links %s", p)
		}
	}
}

// What a package's init allocates is what its init builds (tables,
// regular expressions, registrations), and what it builds is most of
// what it costs. The time itself is the benchmark's (its startup-init
// row, ≤ 1 ms); this holds what can be counted without a clock in the
// hook program, which every hook call starts: no package init allocates
// more than 1,000 times or 64 KiB (the largest today: yaml.v3, 276
// allocations; klauspost's flate, 41 KiB). git-snap is held to its
// start-up budget as a whole, by the benchmark.
func TestNoPackageInitBuildsMuch(t *testing.T) {
	hook := filepath.Join(filepath.Dir(buildBinary(t)), "git-snap-hook")
	cmd := exec.Command(hook, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git-snap-hook --version: %v\n%s", err, stderr.String())
	}
	inits := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		inits++
		bytes, err1 := strconv.Atoi(f[7])
		allocs, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("init trace line %q", line)
		}
		if allocs > 1000 || bytes > 64<<10 {
			t.Errorf("the init of %s allocates %d times, %d bytes: build it on first use (internal/lazy), or keep the package out of the hook program", f[1], allocs, bytes)
		}
	}
	if inits < 20 {
		t.Fatalf("%d package inits traced, not GODEBUG=inittrace=1's output:\n%s", inits, stderr.String())
	}
}
