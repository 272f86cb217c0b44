//go:build unix

package liveagents

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
)

// codexTOMLError is where Codex puts a config.toml it cannot parse:
// "<path>/config.toml:LINE:COLUMN: message".
var codexTOMLError = regexp.MustCompile(`config\.toml:(\d+):\d+: `)

// TestCodexReadsConfigAsGitSnap: Codex reads each file of
// testdata/codex-config/accept as its config.toml and refuses each of
// reject/ as not TOML (at a line, or as not UTF-8), and git-snap's
// reader agrees: it reads what Codex reads, and refuses the rest at
// Codex's line. agent's TestTOMLDecoderMatchesReference holds git-snap's
// decoder to the same folders.
func TestCodexReadsConfigAsGitSnap(t *testing.T) {
	if os.Getenv(switchVar) == "" {
		t.Skip("the live-agent suite runs only with " + switchVar + "=1 (or =latest)")
	}
	t.Parallel()
	codexBin := install(t, pinFor(t, "codex"))
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "codex-config", "*", "*.toml"))
	must(t, err)
	if len(files) < 40 {
		t.Fatalf("%d files in testdata/codex-config", len(files))
	}
	for _, file := range files {
		verdict := filepath.Base(filepath.Dir(file))
		t.Run(verdict+"/"+filepath.Base(file), func(t *testing.T) {
			home := t.TempDir()
			data, err := os.ReadFile(file)
			must(t, err)
			must(t, os.WriteFile(filepath.Join(home, "config.toml"), data, 0o600))
			env := []string{"HOME=" + home, "CODEX_HOME=" + home, "PATH=" + os.Getenv("PATH")}
			r := run(t, time.Minute, home, env, codexBin, "features", "list")
			gitSnapErr := agent.Codex{Home: home}.CheckConfigs(filepath.Join(home, "hooks.json"))
			checkVerdict(t, verdict, r, gitSnapErr)
		})
	}
}

// checkVerdict compares Codex's run and git-snap's reading with the
// file's folder.
func checkVerdict(t *testing.T, verdict string, r result, gitSnapErr error) {
	t.Helper()
	if verdict == "accept" {
		if r.code != 0 || gitSnapErr != nil {
			t.Fatalf("Codex exit %d, git-snap %v; both should read the file:\n%s", r.code, gitSnapErr, r.stderr)
		}
		return
	}
	m := codexTOMLError.FindStringSubmatch(r.stderr)
	if r.code == 0 || m == nil && !strings.Contains(r.stderr, "invalid utf-8") {
		t.Fatalf("Codex exit %d without a TOML or UTF-8 error:\n%s", r.code, r.stderr)
	}
	var se *agent.SettingsError
	if !errors.As(gitSnapErr, &se) || !strings.Contains(se.Msg, "not valid TOML") {
		t.Fatalf("git-snap: %v; want not valid TOML", gitSnapErr)
	}
	if m != nil && strconv.Itoa(se.Line) != m[1] {
		t.Errorf("git-snap says line %d, Codex line %s:\n%s", se.Line, m[1], r.stderr)
	}
}
