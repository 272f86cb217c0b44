package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// linked lists the packages the build of pkg the README installs links
// (go list -deps with its tags).
func linked(t *testing.T, pkg string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-tags", "urfave_cli_no_docs", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// The build the README installs links neither a man-page renderer nor
// go-git's network transports: every git-snap run would pay for their
// start-up (docs/design.md §7). A dependency that brings one back fails
// here.
func TestInstalledBuildLinksNoRendererNorTransport(t *testing.T) {
	deps := linked(t, ".")
	if len(deps) < 50 || !slices.Contains(deps, "github.com/urfave/cli/v2") {
		t.Fatalf("go list gave %d packages, not this command's dependencies", len(deps))
	}
	for _, p := range deps {
		for _, banned := range []string{"russross/blackfriday", "go-md2man", "go-git/v5/plumbing/transport/", "golang.org/x/crypto/ssh"} {
			if strings.Contains(p, banned) {
				t.Errorf("the installed build links %s", p)
			}
		}
	}
}

// The hook program links only what a hook call uses: every call of an
// agent's hook starts it, and Go runs the init of every package linked,
// used or not (docs/design.md §7). A dependency that brings in a
// renderer, a template, a server, a command-line library, or the
// packages that read sessions back, export or serve them fails here,
// naming the package.
func TestHookProgramLinksOnlyTheHookPath(t *testing.T) {
	deps := linked(t, "../git-snap-hook")
	if !slices.Contains(deps, "github.com/git-snap/git-snap/hook") || !slices.Contains(deps, "github.com/git-snap/git-snap/gitstore") {
		t.Fatalf("go list gave %d packages, not the hook program's dependencies", len(deps))
	}
	// Libraries, with the packages below them.
	libraries := []string{
		"github.com/yuin/goldmark", "github.com/itchyny/gojq", "html/template", "text/template", "net/http",
		"github.com/modelcontextprotocol", "google.golang.org/protobuf", "go.opentelemetry.io",
		"github.com/urfave/cli", "github.com/russross/blackfriday", "github.com/go-git/go-git/v5/plumbing/transport", "golang.org/x/crypto/ssh",
	}
	var module []string
	for _, p := range []string{"", "/report", "/render", "/viewer", "/search", "/usage", "/mcpserver", "/modelapi", "/otel", "/atif", "/chat", "/doctor"} {
		module = append(module, "github.com/git-snap/git-snap"+p)
	}
	for _, p := range deps {
		if slices.Contains(module, p) || slices.ContainsFunc(libraries, func(l string) bool { return p == l || strings.HasPrefix(p, l+"/") }) {
			t.Errorf("the hook program links %s", p)
		}
	}
}
