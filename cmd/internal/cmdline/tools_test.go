package cmdline

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// requireTool finds a program a test runs for real (man, bash, zsh,
// fish). Without it the test is skipped, unless $GIT_SNAP_REQUIRE_TOOLS
// is set (as .ci/run sets it, having installed them): then it fails.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("GIT_SNAP_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s is not installed and GIT_SNAP_REQUIRE_TOOLS is set", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// toolCondition is the testscript condition [tool:NAME]: as requireTool,
// false only where a missing tool may skip the script. A NAME starting
// with / is a file that must exist (/usr/share/bash-completion/bash_completion).
func toolCondition(name string) (bool, error) {
	if filepath.IsAbs(name) {
		if _, err := os.Stat(name); err == nil {
			return true, nil
		}
	} else if _, err := exec.LookPath(name); err == nil {
		return true, nil
	}
	if os.Getenv("GIT_SNAP_REQUIRE_TOOLS") != "" {
		return false, &missingToolError{name}
	}
	return false, nil
}

type missingToolError struct{ name string }

func (e *missingToolError) Error() string {
	return e.name + " is not installed and GIT_SNAP_REQUIRE_TOOLS is set"
}
