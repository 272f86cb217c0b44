package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The build the README installs links neither a man-page renderer nor
// go-git's network transports: every hook call would pay for their
// start-up (docs/design.md §7). A dependency that brings one back fails
// here.
func TestInstalledBuildLinksNoRendererNorTransport(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-tags", "urfave_cli_no_docs", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
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
