package proc

import (
	"context"
	"fmt"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"
)

// stamped is a release's version, set when the release is built
// (.goreleaser.yaml: -ldflags "-X …/cmd/internal/proc.stamped=v1.2.3"),
// because a build from a clone of a tag records no module version. It is
// "" in any other build. It is the package's only variable, and only the
// linker sets it.
var stamped string

// Version returns the release's version (stamped), else the module
// version the binary was built from, with the commit when the build
// recorded one. It is what `git snap --version` and
// `git-snap-hook --version` print.
func Version() string {
	if stamped != "" {
		return stamped
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+changes"
			}
		}
	}
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		v += " (" + rev[:min(12, len(rev))] + modified + ")"
	}
	return v
}

// ProgramVersion runs prog --version and returns the line it prints,
// for checking that another git-snap program has this one's version.
func ProgramVersion(ctx context.Context, prog string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", prog, err)
	}
	return strings.TrimSpace(string(out)), nil
}
