//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/internal/testdocs"
)

// ccusageVersion is the ccusage the usage row compares with, installed
// from npm by the benchmark (never by the tests).
const ccusageVersion = "20.0.24"

// usageRows times git snap usage --daily over 1,000 imported Claude Code
// sessions against ccusage daily --offline over the same transcripts, and
// says whether the two agree on the tokens and the cost.
func (b *bench) usageRows(ctx context.Context) ([]row, error) {
	n := 1000
	home := filepath.Join(b.work, "usage-home")
	projects := filepath.Join(home, ".claude", "projects", "-home-bench-app")
	if err := writeClaudeSessions(projects, n); err != nil {
		return nil, err
	}
	repo := filepath.Join(b.work, "usage-repo")
	if err := b.gitIn("", "init", "-q", "-b", "main", repo); err != nil {
		return nil, err
	}
	logf("importing %d Claude Code sessions", n)
	if _, err := b.timedIn(repo, b.bin, "import", "--from", "claude-code", "--no-progress", filepath.Join(home, ".claude", "projects")); err != nil {
		return nil, err
	}
	ccusage, err := b.installCCUsage()
	if err != nil {
		return []row{{what: fmt.Sprintf("usage --daily, %d imported sessions", n), note: "ccusage not installed: " + firstLine(err.Error())}}, nil
	}
	env := append(append([]string{}, b.env...), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "GIT_SNAP_DIR=", "TZ=UTC")
	ours := []string{b.bin, "usage", "--daily", "--json", "--timezone", "UTC"}
	base := []string{ccusage, "daily", "--offline", "--json", "--timezone", "UTC"}
	var rows []row
	for _, phase := range []string{"as imported", "after git snap gc and git pack-refs"} {
		if phase != "as imported" {
			if _, err := b.timedIn(repo, b.bin, "gc"); err != nil {
				return nil, err
			}
			if err := b.gitIn(repo, "pack-refs", "--all"); err != nil {
				return nil, err
			}
		}
		var outOurs, outBase []byte
		p, err := b.pair(func(int) (time.Duration, error) {
			d, out, err := timedEnv(repo, env, ours...)
			outOurs = out
			return d, err
		}, func(int) (time.Duration, error) {
			d, out, err := timedEnv(home, env, base...)
			outBase = out
			return d, err
		})
		if err != nil {
			return nil, err
		}
		rows = append(rows, p.fill(row{
			what:  fmt.Sprintf("usage --daily --json, %d imported Claude Code sessions", n),
			note:  agreement(outOurs, outBase),
			phase: phase, kind: kindUsage,
			baseline: fmt.Sprintf("ccusage %s daily --offline --json on the same transcripts", ccusageVersion),
		}))
	}
	return rows, nil
}

// installCCUsage installs ccusage from npm into the work directory and
// returns its command.
func (b *bench) installCCUsage() (string, error) {
	dir := filepath.Join(b.work, "ccusage")
	logf("installing ccusage@%s from npm", ccusageVersion)
	cmd := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "ccusage@"+ccusageVersion)
	cmd.Env = b.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install ccusage@%s: %v\n%s", ccusageVersion, err, out)
	}
	return filepath.Join(dir, "node_modules", ".bin", "ccusage"), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// timedEnv times a command in dir with env, keeping its output.
func timedEnv(dir string, env []string, args ...string) (time.Duration, []byte, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil {
		return 0, nil, fmt.Errorf("%v: %v\n%s", args, err, stderr.String())
	}
	return d, out, nil
}

// agreement says whether git snap usage and ccusage report the same
// days, tokens and cost.
func agreement(ours, base []byte) string {
	var o struct {
		Rows []struct {
			Period string `json:"period"`
			Tokens struct {
				Total int64 `json:"total"`
			} `json:"tokens"`
		} `json:"rows"`
		Total struct {
			Tokens struct {
				Total int64 `json:"total"`
			} `json:"tokens"`
			Cost struct {
				Micros int64 `json:"usd_micros"`
			} `json:"cost"`
		} `json:"total"`
	}
	var c struct {
		Daily []struct {
			Period      string `json:"period"`
			TotalTokens int64  `json:"totalTokens"`
		} `json:"daily"`
		Totals struct {
			TotalTokens int64   `json:"totalTokens"`
			TotalCost   float64 `json:"totalCost"`
		} `json:"totals"`
	}
	if json.Unmarshal(ours, &o) != nil || json.Unmarshal(base, &c) != nil {
		return "outputs not compared: one is not JSON"
	}
	same := len(o.Rows) == len(c.Daily)
	for i := 0; same && i < len(o.Rows); i++ {
		same = o.Rows[i].Period == c.Daily[i].Period && o.Rows[i].Tokens.Total == c.Daily[i].TotalTokens
	}
	costs := fmt.Sprintf("$%.6f and $%.6f", float64(o.Total.Cost.Micros)/1e6, c.Totals.TotalCost)
	if same && o.Total.Tokens.Total == c.Totals.TotalTokens {
		return fmt.Sprintf("the same %d days and %d tokens; cost %s", len(o.Rows), o.Total.Tokens.Total, costs)
	}
	return fmt.Sprintf("they differ: %d days and %d tokens against %d and %d; cost %s", len(o.Rows), o.Total.Tokens.Total, len(c.Daily), c.Totals.TotalTokens, costs)
}

// writeClaudeSessions writes n Claude Code transcripts made from the real
// ones in testdata, each its own session (its sessionId, its responses'
// and requests' ids), spread over 60 days.
func writeClaudeSessions(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := map[string]string{
		"short.jsonl":      "55604662-cf2a-4331-851a-ec234028f8ca",
		"tool_heavy.jsonl": "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
		"subagent.jsonl":   "491e126e-1e71-469c-ade2-fcc8af567c74",
	}
	names := []string{"short.jsonl", "tool_heavy.jsonl", "subagent.jsonl"}
	data := map[string][]byte{}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(testdocs.TranscriptDir(), name))
		if err != nil {
			return err
		}
		data[name] = b
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		name := names[i%len(names)]
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		day := start.AddDate(0, 0, i%60).Format("2006-01-02")
		b := bytes.ReplaceAll(data[name], []byte(src[name]), []byte(id))
		b = bytes.ReplaceAll(b, []byte(`"id":"msg_`), []byte(fmt.Sprintf(`"id":"msg_%d_`, i)))
		b = bytes.ReplaceAll(b, []byte(`"requestId":"req_`), []byte(fmt.Sprintf(`"requestId":"req_%d_`, i)))
		b = bytes.ReplaceAll(b, []byte(`"timestamp":"2026-02-10T`), []byte(`"timestamp":"`+day+`T`))
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
