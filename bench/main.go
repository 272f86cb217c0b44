//go:build unix

// Command bench measures git-snap against the budgets of
// docs/design.md §7 (held here in budgets, one table, checked against the
// document by a test), whole process, on repositories it builds itself.
// It is a module of its own, so that the git-snap module's programs and
// dependencies stay the product's; it builds git-snap from the
// repository it sits in, wherever it is run from.
// Every row with a baseline runs it alternately with the measured call in
// one loop (pair, in pair.go) and reports the median of the per-pair
// ratios.
//
//	go -C bench run .            # 100k snapshots, before and after git gc
//	go -C bench run . -quick     # 10k snapshots, for a laptop
//	go -C bench run . -only search [-quick]   # the search rows alone
//	go -C bench run . -only viewer -quick     # git snap view's pages
//	go -C bench run . -only memory            # peak memory on the largest sessions
//	go -C bench run . -only usage -quick      # usage --daily against ccusage (npm)
//	go -C bench run . -only firstread         # stats, sessions, usage after a hook call on 50k records
//	go -C bench run . -only import -quick     # import against git fast-import and ccusage
//	go -C bench run . -only importcache -quick  # what import leaves under .git/snap/, against its pack
//	go -C bench run . -only blame             # blame in 10k commits of 1,000 sessions against git blame
//	go -C bench run . -only importrefs        # import into 100k session refs against an empty repository
//	go -C bench run . -only pullsessions      # pull of one new session from 10k and 100k against git fetch
//	go -C bench run . -only team              # code push, fetch and clone against a remote of 100k sessions
//	go -C bench run . -only manysessions      # peak memory of sessions, view and pull at 100k sessions
//
// It prints a Markdown table of medians and ratios.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/git-snap/git-snap/internal/testdocs"
)

type config struct {
	quick     bool
	snapshots int
	runs      int
	bin       string
	keep      bool
	out       string
	storage   bool
	only      map[string]bool // groups of rows to run; all when empty
}

// groups are the sets of rows -only can pick.
var groups = []string{"core", "share", "storage", "worktree", "sessions", "long", "startup", "search", "viewer", "memory", "usage", "firstread", "import", "blame", "importrefs", "pullsessions", "team", "manysessions", "importcache"}

// wants says whether a group of rows is to run.
func (c config) wants(group string) bool { return len(c.only) == 0 || c.only[group] }

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "naive-") {
		os.Exit(naiveMain(os.Args[1], os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == "rss" {
		os.Exit(rssMain(os.Args[2:]))
	}
	var c config
	flag.BoolVar(&c.quick, "quick", false, "10k snapshots and fewer runs, for a laptop")
	flag.IntVar(&c.snapshots, "snapshots", 0, "snapshots in the large repository (default 100000, 10000 with -quick)")
	flag.IntVar(&c.runs, "runs", 0, "timed runs per measurement (default 31, 15 with -quick)")
	flag.StringVar(&c.bin, "bin", "", "git-snap binary to measure, the programs beside it as installed (default: built from this repository)")
	flag.BoolVar(&c.keep, "keep", false, "keep the work directory")
	flag.StringVar(&c.out, "o", "", "also write the table to this file")
	flag.BoolVar(&c.storage, "storage", true, "measure storage of a transcript snapshotted at real hook cadence")
	only := flag.String("only", "", "comma-separated groups of rows to run: "+strings.Join(groups, ", ")+" (default all)")
	flag.Parse()
	c.only = map[string]bool{}
	for _, g := range strings.FieldsFunc(*only, func(r rune) bool { return r == ',' }) {
		if !slices.Contains(groups, g) {
			fmt.Fprintf(os.Stderr, "bench: -only takes %s, not %q\n", strings.Join(groups, ", "), g)
			os.Exit(2)
		}
		c.only[g] = true
	}
	if !c.storage {
		c.only["storage"] = false
	}
	if c.snapshots == 0 {
		c.snapshots = map[bool]int{true: 10000, false: 100000}[c.quick]
	}
	if c.runs == 0 {
		c.runs = map[bool]int{true: 15, false: 31}[c.quick]
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	work, err := os.MkdirTemp("", "git-snap-bench-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintln(os.Stderr, "work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	b := &bench{cfg: c, work: work, self: mustExecutable()}
	b.env = benchEnv()
	if b.bin = c.bin; b.bin == "" {
		b.bin = filepath.Join(work, "git-snap")
		logf("building git-snap and git-snap-hook (CGO_ENABLED=0)")
		build := exec.Command("go", "build", "-o", work+string(filepath.Separator), "./cmd/git-snap", "./cmd/git-snap-hook")
		build.Dir, build.Env = testdocs.Root(), append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	var rows []row
	add := func(group string, f func(context.Context) ([]row, error)) error {
		if !c.wants(group) {
			return nil
		}
		r, err := f(ctx)
		rows = append(rows, r...)
		return err
	}
	for _, g := range []struct {
		name string
		f    func(context.Context) ([]row, error)
	}{
		{"startup", b.startupRows},
		{"core", b.coreRows},
		{"share", b.shareRows},
		{"worktree", b.worktreeRows},
		{"sessions", b.sessionRows},
		{"long", b.longSessionRows},
		{"storage", b.storage},
		{"storage", b.storageOwnText},
		{"search", b.searchRows},
		{"viewer", b.viewerRows},
		{"memory", b.memoryRows},
		{"usage", b.usageRows},
		{"firstread", b.firstReadRows},
		{"import", b.importRows},
		{"blame", b.blameRows},
		{"importrefs", b.importRefsRows},
		{"pullsessions", b.pullSessionsRows},
		{"team", b.teamRows},
		{"manysessions", b.manySessionsMemoryRows},
		{"importcache", b.importCacheRows},
	} {
		if err := add(g.name, g.f); err != nil {
			return err
		}
	}
	table := b.table(rows)
	fmt.Print(table)
	if c.out != "" {
		return os.WriteFile(c.out, []byte(table), 0o666)
	}
	return nil
}

// coreRows builds the large history and times save, log, diff and the
// hook on it, before and after git gc.
func (b *bench) coreRows(ctx context.Context) ([]row, error) {
	if err := b.setup(ctx); err != nil {
		return nil, err
	}
	syscall.Sync() // the history's loose objects are on disk before anything is timed
	var rows []row
	for _, phase := range []string{"before gc", "after gc"} {
		if phase == "after gc" {
			logf("git gc")
			if err := b.git("gc", "-q"); err != nil {
				return nil, err
			}
			// Let the kernel write gc's new pack out first: the rows are
			// about the repository's layout, not about the writeback of
			// the hundred megabytes gc just wrote, which stalls every
			// rename (git's as much as git-snap's) for a while.
			syscall.Sync()
		}
		r, err := b.measure(phase)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// shareRows times push and pull on the large history (built by
// coreRows, or here when only these rows run).
func (b *bench) shareRows(ctx context.Context) ([]row, error) {
	if b.repo == "" {
		if err := b.setup(ctx); err != nil {
			return nil, err
		}
		if err := b.git("gc", "-q"); err != nil {
			return nil, err
		}
	}
	return b.share(ctx)
}

func mustExecutable() string {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return self
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}

// writeNext writes one more numbered file into dir, as the naive
// baseline keeps its snapshots.
func writeNext(dir string, data []byte) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%06d.json", len(entries)+1)), data, 0o666)
}

// naiveMain is the naive baseline as its own process: naive-hook reads a
// transcript whole and writes it as a pretty JSON file, as a hook that
// snapshots everything every time would.
func naiveMain(cmd string, args []string) int {
	switch cmd {
	case "naive-hook":
		// A hook that snapshots the whole transcript every time.
		data, err := os.ReadFile(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var lines []any
		for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var v any
			if json.Unmarshal(l, &v) == nil {
				lines = append(lines, v)
			}
		}
		out, _ := json.MarshalIndent(map[string]any{"messages": lines}, "", "  ")
		if err := writeNext(args[1], out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// rssMain runs a command and prints its peak resident memory in bytes.
// It exists because a child's maxrss counts the parent's memory up to
// exec (Go starts children with vfork): run from this small process, the
// figure is the command's own.
func rssMain(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, io.Discard, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 1
	}
	fmt.Println(ru.Maxrss * 1024)
	return 0
}
