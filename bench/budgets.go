//go:build unix

package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// budgetKind names a kind of row: the key of its budget in budgets and
// in docs/design.md §7's table.
type budgetKind string

// The kinds of row that have a budget. A row names its kind (row.kind);
// its bound and baseline come from budgets, never from the row.
const (
	kindStartup      budgetKind = "startup"
	kindStartupHook  budgetKind = "startup-hook"
	kindStartupInit  budgetKind = "startup-init"
	kindHook         budgetKind = "hook"
	kindHookWorktree budgetKind = "hook-worktree"
	kindHookLong     budgetKind = "hook-long"
	kindLog          budgetKind = "log"
	kindDiff         budgetKind = "diff"
	kindSessions     budgetKind = "sessions"
	kindLogAll       budgetKind = "log-all"
	kindUsage        budgetKind = "usage"
	kindSearchWarm   budgetKind = "search-warm"
	kindSearchCommon budgetKind = "search-common"
	kindSearchNew    budgetKind = "search-new"
	kindSearchIndex  budgetKind = "search-index"
	kindMemory       budgetKind = "memory"
	kindStorage      budgetKind = "storage"
	kindStorageOwn   budgetKind = "storage-own"
	kindSnapCache    budgetKind = "snap-cache"
	kindPush         budgetKind = "push"
	kindPull         budgetKind = "pull"
	kindPullSessions budgetKind = "pull-sessions"
	kindBlame        budgetKind = "blame"
	kindImportRefs   budgetKind = "import-refs"
	kindTeam         budgetKind = "team"

	kindFirstStats    budgetKind = "first-stats"
	kindFirstSessions budgetKind = "first-sessions"
	kindFirstUsage    budgetKind = "first-usage"
	kindFirstPage     budgetKind = "first-page"
)

// budget is one line of docs/design.md §7's table: an operation, what
// it is paired with or divided by, and its bound, which is one of times
// (a ratio to the baseline), limit (a time) and bytes (a size).
type budget struct {
	kind      budgetKind
	operation string // as §7 writes it, Markdown
	baseline  string // as §7 writes it; "—" when there is none
	times     float64
	limit     time.Duration
	bytes     int64
}

// budgets is the benchmark's one table of budgets. docs/design.md §7 is
// its source: TestBudgetsMatchDesign fails when the two differ, so a
// budget is changed in the document and here together.
var budgets = []budget{
	{kind: kindStartup, operation: "start-up, `git-snap --version` (on 2 cores)", baseline: "—", limit: 50 * time.Millisecond},
	{kind: kindStartupHook, operation: "start-up of a hook call, `git-snap-hook --version`", baseline: "an empty Go program built the same way", times: 2},
	{kind: kindStartupInit, operation: "the slowest package init of `git-snap-hook --version` (`GODEBUG=inittrace=1`)", baseline: "—", limit: time.Millisecond},
	{kind: kindHook, operation: "hook call on a 3 MB Claude Code transcript grown by 2 lines (on a quiet machine)", baseline: "a naive hook that re-reads and rewrites the whole transcript", limit: 40 * time.Millisecond},
	{kind: kindHookWorktree, operation: "hook call after a shell tool in a 20k-, 100k- and 300k-file work tree, with watchman", baseline: "the same call in an empty work tree", times: 1.3},
	{kind: kindHookLong, operation: "hook call on a 50k- and a 200k-message session", baseline: "the same call on 100 messages", times: 1.3},
	{kind: kindLog, operation: "`log -n 20`", baseline: "`git log -n 20`", times: 2},
	{kind: kindDiff, operation: "`diff --stat` of two 10k-message snapshots", baseline: "`git diff --stat`", times: 2.5},
	{kind: kindSessions, operation: "`sessions` at 10k sessions", baseline: "`git for-each-ref` reading each tip's trailers", times: 1.2},
	{kind: kindLogAll, operation: "`log --all -n 20` at 10k sessions", baseline: "`git log -n 20` over the same refs", times: 1.2},
	{kind: kindUsage, operation: "`usage --daily` over 1,000 sessions", baseline: "`ccusage daily` on the same transcripts", times: 0.2},
	{kind: kindSearchWarm, operation: "search at 1M messages, warm", baseline: "—", limit: 300 * time.Millisecond},
	{kind: kindSearchCommon, operation: "search at 1M messages, a common word, `-m 100`", baseline: "—", limit: 300 * time.Millisecond},
	{kind: kindSearchNew, operation: "search at 1M messages, the first after a new session", baseline: "—", limit: 300 * time.Millisecond},
	{kind: kindSearchIndex, operation: "search index at 1M messages", baseline: "the message text", times: 0.6},
	{kind: kindMemory, operation: "peak memory of any command on inputs within the limits", baseline: "—", bytes: 100_000_000},
	{kind: kindStorage, operation: "storage at real hook cadence after `git snap gc`", baseline: "gzip of the transcript", times: 1.5},
	{kind: kindStorageOwn, operation: "storage of real-size sessions (3 MB transcripts), each with its own text, at real hook cadence after `git snap gc`", baseline: "`gzip -9` of the transcripts", times: 1.5},
	{kind: kindSnapCache, operation: "the cache under `.git/snap/` after `import` of many sessions", baseline: "the pack it describes", times: 0.1},
	{kind: kindPush, operation: "push of one snapshot onto 100k history", baseline: "`git push` of the same refs", times: 1.5},
	{kind: kindPull, operation: "pull of one snapshot onto 100k history", baseline: "`git fetch` of the same refs", times: 1.5},
	{kind: kindPullSessions, operation: "pull of one new session from a remote holding 10k and 100k sessions", baseline: "`git fetch` of the same refs", times: 1.5},
	{kind: kindBlame, operation: "`blame` of a file in a 10k-commit repository with 1,000 sessions", baseline: "`git blame` of the same file", times: 2},
	{kind: kindTeam, operation: "code `git push` (from a clone with and without the sessions fetched), `git fetch` and `git clone` (over protocol v0 and v2) against a remote holding 100k sessions", baseline: "the same against a remote of the same code without sessions", times: 1.2},
	{kind: kindImportRefs, operation: "`import` into a repository of 100k session refs", baseline: "the same import into an empty repository", times: 1.2},
	{kind: kindFirstStats, operation: "the first `stats` after a hook call on a 50k-record session", baseline: "the same command again (warm)", times: 1.2},
	{kind: kindFirstSessions, operation: "the first `sessions` after a hook call on a 50k-record session", baseline: "the same command again (warm)", times: 1.2},
	{kind: kindFirstUsage, operation: "the first `usage --daily` after a hook call on a 50k-record session", baseline: "the same command again (warm)", times: 1.2},
	{kind: kindFirstPage, operation: "a running viewer's first sessions page after a hook call on a 50k-record session", baseline: "the same page after a hook call that found nothing new (warm)", times: 1.2},
}

// budgetOf returns the budget of a kind of row.
func budgetOf(k budgetKind) (budget, bool) {
	for _, b := range budgets {
		if b.kind == k {
			return b, true
		}
	}
	return budget{}, false
}

// bound is the budget's bound as §7's table and the result table write
// it: "≤ 2 × baseline", "≤ 40 ms", "≤ 100 MB".
func (b budget) bound() string {
	switch {
	case b.times > 0:
		return "≤ " + strconv.FormatFloat(b.times, 'f', -1, 64) + " × baseline"
	case b.limit > 0 && b.limit%time.Second == 0:
		return fmt.Sprintf("≤ %d s", b.limit/time.Second)
	case b.limit > 0:
		return "≤ " + strconv.FormatFloat(float64(b.limit)/float64(time.Millisecond), 'f', -1, 64) + " ms"
	case b.bytes > 0:
		return "≤ " + strconv.FormatFloat(float64(b.bytes)/1e6, 'f', -1, 64) + " MB"
	}
	return "–"
}

// met says whether a row is within the budget: its ratio to the
// baseline, its time or its size, whichever the budget bounds.
func (b budget) met(r row) bool {
	switch {
	case b.times > 0:
		return r.ratioOrQuotient() <= b.times
	case b.limit > 0:
		return r.ours > 0 && r.ours <= b.limit
	case b.bytes > 0:
		return r.bytes > 0 && r.bytes <= b.bytes
	}
	return true
}

// designBudgetsHeader is the header of docs/design.md §7's table of
// budgets, which TestBudgetsMatchDesign reads.
const designBudgetsHeader = "| operation | baseline | budget | benchmark row |"

// notMeasured marks a line of §7's table that the benchmark does not
// measure (the test suite's and the live agents' wall times).
const notMeasured = "—"

// checkDesignBudgets compares §7's table, found in the design document's
// text, with budgets, and returns every difference.
func checkDesignBudgets(design string) []string {
	lines, err := designBudgetLines(design)
	if err != nil {
		return []string{err.Error()}
	}
	var diffs []string
	seen := map[budgetKind]bool{}
	for _, cells := range lines {
		if cells[3] == notMeasured {
			continue
		}
		k := budgetKind(strings.Trim(cells[3], "`"))
		b, ok := budgetOf(k)
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("§7 names row %q, which the benchmark's budgets do not have", k))
			continue
		case seen[k]:
			diffs = append(diffs, fmt.Sprintf("§7 names row %q twice", k))
		}
		seen[k] = true
		want := []string{b.operation, b.baseline, b.bound()}
		for i, what := range []string{"operation", "baseline", "budget"} {
			if cells[i] != want[i] {
				diffs = append(diffs, fmt.Sprintf("row %q: §7's %s is %q, the benchmark's %q", k, what, cells[i], want[i]))
			}
		}
	}
	for _, b := range budgets {
		if !seen[b.kind] {
			diffs = append(diffs, fmt.Sprintf("the benchmark's row %q is not in §7's table", b.kind))
		}
	}
	return diffs
}

// designBudgetLines returns the cells of the lines of §7's table of
// budgets, each four: operation, baseline, budget, benchmark row.
func designBudgetLines(design string) ([][]string, error) {
	_, sec, ok := strings.Cut(design, "\n## §7 ")
	if !ok {
		return nil, fmt.Errorf("the design document has no §7")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, table, ok := strings.Cut(sec, "\n"+designBudgetsHeader+"\n")
	if !ok {
		return nil, fmt.Errorf("§7 has no table headed %q", designBudgetsHeader)
	}
	var out [][]string
	for i, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i == 0 { // the |---| line
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 4 {
			return nil, fmt.Errorf("§7's table: %q has %d cells, not 4 (a cell may not hold \" | \")", line, len(cells))
		}
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		out = append(out, cells)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("§7's table of budgets is empty")
	}
	return out, nil
}
