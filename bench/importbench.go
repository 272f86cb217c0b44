//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// importRows time a first import of 100 and 1,000 Claude Code sessions
// (copies of the real ones in testdata, as the usage rows make them)
// against git's own writer storing the same objects (git fast-import of
// a git fast-export of the imported refs, checked to give the same
// commits) and against ccusage reading the same files, then the first
// and the warm stats, sessions and usage after the import, and the peak
// memory of each.
func (b *bench) importRows(ctx context.Context) ([]row, error) {
	ccusage, err := b.installCCUsage()
	if err != nil {
		return []row{{what: "import --from claude-code", note: "ccusage not installed: " + firstLine(err.Error())}}, nil
	}
	var rows []row
	for _, n := range []int{100, 1000} {
		c, err := b.importCorpus(n)
		if err != nil {
			return nil, err
		}
		r, err := b.importRowsOf(ctx, c, ccusage)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// importCacheRows import 10,000 Claude Code sessions (1,000 with
// -quick; copies of the real ones in testdata, as the import rows make
// them) and measure what the import left under .git/snap/.
func (b *bench) importCacheRows(context.Context) ([]row, error) {
	c, err := b.importCorpus(map[bool]int{true: 1000, false: 10000}[b.cfg.quick])
	if err != nil {
		return nil, err
	}
	return []row{snapCacheRow(c)}, nil
}

// snapCacheRow measures what an import left under .git/snap/, on disk
// (blocks, as du counts them: a 200-byte file takes 4 KB), against the
// pack of the sessions it describes.
func snapCacheRow(c importCorpus) row {
	cache := diskBytes(filepath.Join(c.pristine, ".git", "snap"))
	pack := objectBytes(filepath.Join(c.pristine, ".git", "objects"))
	return row{what: fmt.Sprintf("the cache under .git/snap/ after import --from claude-code of %d sessions (%.0f MB of transcripts), on disk", c.n, c.mb),
		oursText: fmt.Sprintf("%.2f MiB = %.3f × the pack (%.2f MiB); %.1f KiB a session", float64(cache)/(1<<20), float64(cache)/float64(pack), float64(pack)/(1<<20), float64(cache)/float64(c.n)/1024),
		ratio:    float64(cache) / float64(pack), kind: kindSnapCache}
}

// diskBytes is what a folder takes on disk, its folders too, as du
// counts it.
func diskBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		}
		return nil
	})
	return n
}

// importCorpus is what the import rows of n sessions work on.
type importCorpus struct {
	n        int
	home     string // HOME of ccusage: .claude/projects holds the transcripts
	projects string
	mb       float64
	pristine string // a repository as the import left it, never read since
	stream   string // git fast-export of its refs
	env      []string
}

func (b *bench) importRowsOf(ctx context.Context, c importCorpus, ccusage string) ([]row, error) {
	n := c.n
	runs := min(b.cfg.runs, map[bool]int{true: 9, false: 5}[n <= 100])
	ours := []string{b.bin, "import", "--from", "claude-code", "--no-progress", c.projects}
	var imp, fast, cc []time.Duration
	same := ""
	for r := range runs {
		dir := filepath.Join(b.work, fmt.Sprintf("import-%d-run", n))
		d, err := b.timedFresh(dir, nil, ours...)
		if err != nil {
			return nil, err
		}
		imp = append(imp, d)
		stream, err := os.ReadFile(c.stream)
		if err != nil {
			return nil, err
		}
		if d, err = b.timedFresh(dir, stream, "git", "fast-import", "--quiet"); err != nil {
			return nil, err
		}
		fast = append(fast, d)
		if r == 0 {
			if same, err = sameRefs(c.pristine, dir); err != nil {
				return nil, err
			}
		}
		if d, _, err = timedEnv(c.home, c.env, ccusage, "session", "--offline", "--json"); err != nil {
			return nil, err
		}
		cc = append(cc, d)
	}
	peak, err := b.peakFresh(filepath.Join(b.work, fmt.Sprintf("import-%d-rss", n)), ours...)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("import --from claude-code of %d sessions (%.0f MB of transcripts)", n, c.mb)
	rows := []row{
		{what: what + "; baseline: git fast-import of the same objects (a git fast-export of the imported refs; " + same + ")", ours: median(imp), plumbing: median(fast), ratioBudget: 2},
		{what: what + "; baseline: ccusage " + ccusageVersion + " session --offline --json reading the same files", ours: median(imp), plumbing: median(cc), note: "for scale: ccusage stores nothing"},
		memoryRow("peak memory: "+what, "", peak),
	}
	for _, cmd := range []struct{ ours, base []string }{
		{[]string{"stats", "--json"}, []string{"session", "--offline", "--json"}},
		{[]string{"sessions", "--json"}, []string{"session", "--offline", "--json"}},
		{[]string{"usage", "--daily", "--json", "--timezone", "UTC"}, []string{"daily", "--offline", "--json", "--timezone", "UTC"}},
	} {
		r, err := b.afterImportRows(c, runs, ccusage, cmd.ours, cmd.base)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// importCorpus writes n sessions and imports them once into a
// repository kept as the import left it, whose refs git fast-export
// writes as the stream git fast-import is timed on.
func (b *bench) importCorpus(n int) (importCorpus, error) {
	home := filepath.Join(b.work, fmt.Sprintf("import-home-%d", n))
	c := importCorpus{n: n, home: home, projects: filepath.Join(home, ".claude", "projects"),
		pristine: filepath.Join(b.work, fmt.Sprintf("import-%d-pristine", n)), stream: filepath.Join(b.work, fmt.Sprintf("import-%d.stream", n))}
	c.env = append(append([]string{}, b.env...), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "GIT_SNAP_DIR=", "TZ=UTC")
	if err := writeClaudeSessions(filepath.Join(c.projects, "-home-bench-app"), n); err != nil {
		return c, err
	}
	c.mb = float64(dirBytes(c.projects)) / 1e6
	logf("importing %d Claude Code sessions (%.0f MB)", n, c.mb)
	if _, err := b.timedFresh(c.pristine, nil, b.bin, "import", "--from", "claude-code", "--no-progress", c.projects); err != nil {
		return c, err
	}
	cmd := exec.Command("git", "fast-export", "--all", "--reencode=no")
	cmd.Dir, cmd.Env = c.pristine, b.env
	out, err := cmd.Output()
	if err != nil {
		return c, fmt.Errorf("git fast-export: %v", err)
	}
	return c, os.WriteFile(c.stream, out, 0o666)
}

// afterImportRows time a command on a copy of the freshly imported
// repository (first) and again on the same copy (warm), paired with
// ccusage on the same transcripts, and its peak memory on a fresh copy.
func (b *bench) afterImportRows(c importCorpus, runs int, ccusage string, ours, base []string) ([]row, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("import-%d-copy", c.n))
	args := append([]string{b.bin}, ours...)
	var first, warm, cc []time.Duration
	for range runs {
		if err := copyRepo(c.pristine, dir); err != nil {
			return nil, err
		}
		d, _, err := timedEnv(dir, c.env, args...)
		if err != nil {
			return nil, err
		}
		first = append(first, d)
		if d, _, err = timedEnv(dir, c.env, args...); err != nil {
			return nil, err
		}
		warm = append(warm, d)
		if d, _, err = timedEnv(c.home, c.env, append([]string{ccusage}, base...)...); err != nil {
			return nil, err
		}
		cc = append(cc, d)
	}
	if err := copyRepo(c.pristine, dir); err != nil {
		return nil, err
	}
	peak, err := b.peakIn(dir, args...)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("%s after importing %d sessions; baseline: ccusage %s %s on the same transcripts", strings.Join(ours, " "), c.n, ccusageVersion, strings.Join(base, " "))
	return []row{
		{what: what, phase: "first after the import", ours: median(first), plumbing: median(cc), ratioBudget: 0.2},
		{what: what, phase: "warm", ours: median(warm), plumbing: median(cc), ratioBudget: 0.2},
		memoryRow(fmt.Sprintf("peak memory: first %s after importing %d sessions", strings.Join(ours, " "), c.n), "", peak),
	}, nil
}

// timedFresh times a command in a new repository at dir (made again
// each time, untimed), with stdin when not nil.
func (b *bench) timedFresh(dir string, stdin []byte, args ...string) (time.Duration, error) {
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return 0, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, append(b.env, "GIT_SNAP_DIR=")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%v: %v\n%s", args, err, stderr.String())
	}
	return d, nil
}

// peakFresh is the peak memory of a command in a new repository at dir.
func (b *bench) peakFresh(dir string, args ...string) (int64, error) {
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return 0, err
	}
	return b.peakIn(dir, args...)
}

// peakIn is the peak memory of a command run in dir.
func (b *bench) peakIn(dir string, args ...string) (int64, error) {
	saved := b.repo
	defer func() { b.repo = saved }()
	b.repo = dir
	return b.peakMemory(nil, args[0], args[1:]...)
}

// sameRefs says whether two repositories have the same refs at the same
// commits.
func sameRefs(a, c string) (string, error) {
	list := func(dir string) (string, error) {
		out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/snap/").Output()
		return string(out), err
	}
	x, err := list(a)
	if err != nil {
		return "", err
	}
	y, err := list(c)
	if err != nil {
		return "", err
	}
	if x != y || x == "" {
		return "", fmt.Errorf("git fast-import did not rebuild the imported refs:\n%.300s\nagainst\n%.300s", y, x)
	}
	return fmt.Sprintf("the same %d commits", strings.Count(x, "\n")), nil
}

// copyRepo replaces dst with a copy of the repository src.
func copyRepo(src, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v\n%s", src, dst, err, out)
	}
	return nil
}
