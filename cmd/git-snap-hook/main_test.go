package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The hook program links only what a hook call uses: every call of an
// agent's hook starts it, and Go runs the init of every package linked,
// used or not (docs/design.md §7). A dependency that brings in a
// renderer, a server, a command-line library or the packages that read
// sessions back fails here, naming the package.
func TestHookProgramLinksOnlyTheHookPath(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-tags", "urfave_cli_no_docs", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/git-snap/git-snap/hook") || !slices.Contains(deps, "github.com/git-snap/git-snap/gitstore") {
		t.Fatalf("go list gave %d packages, not the hook program's dependencies", len(deps))
	}
	// Libraries and their packages below them, and the module's packages
	// that read sessions back or serve them.
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
