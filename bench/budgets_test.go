//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBudgetsMatchDesign holds the benchmark's budgets to docs/design.md §7,
// their source: an operation, baseline or bound changed in one and not
// the other fails here.
func TestBudgetsMatchDesign(t *testing.T) {
	design, err := os.ReadFile(filepath.Join("..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range checkDesignBudgets(string(design)) {
		t.Error(d)
	}
}

// TestCheckDesignBudgetsFindsDifferences changes §7's table in each way
// it can drift from budgets and expects each change found.
func TestCheckDesignBudgetsFindsDifferences(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	design := string(raw)
	line := func(k budgetKind) string {
		b, _ := budgetOf(k)
		return "| " + b.operation + " | " + b.baseline + " | " + b.bound() + " | `" + string(k) + "` |\n"
	}
	for _, k := range []budgetKind{kindLog, kindMemory, kindHook} {
		if !strings.Contains(design, line(k)) {
			t.Fatalf("§7 has no line %q", line(k))
		}
	}
	cases := []struct {
		name, old, new, want string
	}{
		{"a ratio", line(kindLog), strings.Replace(line(kindLog), "≤ 2 ×", "≤ 3 ×", 1), `row "log": §7's budget is "≤ 3 × baseline"`},
		{"a size", line(kindMemory), strings.Replace(line(kindMemory), "100 MB", "40 MB", 1), `row "memory": §7's budget`},
		{"a time", line(kindHook), strings.Replace(line(kindHook), "40 ms", "30 ms", 1), `row "hook": §7's budget`},
		{"a baseline", line(kindLog), strings.Replace(line(kindLog), "`git log -n 20` |", "`git log` |", 1), `row "log": §7's baseline`},
		{"an operation", line(kindLog), strings.Replace(line(kindLog), "`log -n 20`", "`log -n 30`", 1), `row "log": §7's operation`},
		{"a line missing", line(kindPull), "", `the benchmark's row "pull" is not in §7's table`},
		{"a line too many", line(kindPull), line(kindPull) + "| x | — | ≤ 1 ms | `no-such-row` |\n", `§7 names row "no-such-row"`},
		{"a line twice", line(kindPull), line(kindPull) + line(kindPull), `§7 names row "pull" twice`},
		{"no table", designBudgetsHeader, "| operation | budget |", "§7 has no table headed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			changed := strings.Replace(design, c.old, c.new, 1)
			if changed == design {
				t.Fatalf("the change of %q made nothing different", c.old)
			}
			diffs := checkDesignBudgets(changed)
			if !strings.Contains(strings.Join(diffs, "\n"), c.want) {
				t.Errorf("differences %q, want one saying %q", diffs, c.want)
			}
		})
	}
}

func TestBound(t *testing.T) {
	for _, c := range []struct {
		b    budget
		want string
	}{
		{budget{times: 2}, "≤ 2 × baseline"},
		{budget{times: 1.3}, "≤ 1.3 × baseline"},
		{budget{limit: 300 * time.Millisecond}, "≤ 300 ms"},
		{budget{limit: 1500 * time.Microsecond}, "≤ 1.5 ms"},
		{budget{limit: time.Second}, "≤ 1 s"},
		{budget{bytes: 100_000_000}, "≤ 100 MB"},
		{budget{}, "–"},
	} {
		if got := c.b.bound(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}

// TestVerdict checks a row against its kind's budget by what the
// budget bounds: the per-pair ratio (not the quotient of the medians),
// the time, the size.
func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		name string
		r    row
		want bool
	}{
		{"ratio within", row{kind: kindLog, ours: 30 * time.Millisecond, plumbing: 10 * time.Millisecond, ratio: 1.9}, true},
		{"ratio over", row{kind: kindLog, ours: 10 * time.Millisecond, plumbing: 10 * time.Millisecond, ratio: 2.1}, false},
		{"quotient when unpaired", row{kind: kindLog, ours: 30 * time.Millisecond, plumbing: 10 * time.Millisecond}, false},
		{"time within", row{kind: kindHook, ours: 40 * time.Millisecond}, true},
		{"time over", row{kind: kindHook, ours: 41 * time.Millisecond}, false},
		{"time missing", row{kind: kindHook}, false},
		{"size within", row{kind: kindMemory, bytes: 99e6}, true},
		{"size over", row{kind: kindMemory, bytes: 101e6}, false},
		{"unknown kind", row{kind: "nonesuch", ours: time.Millisecond}, false},
		{"no kind, old bound", row{ours: 2 * time.Second, budget: time.Second}, false},
	} {
		if _, got := c.r.verdict(); got != c.want {
			t.Errorf("%s: met %v, want %v", c.name, got, c.want)
		}
	}
}

// TestVerdictText checks the budget column: a kind's bound as §7 writes
// it, and a row's own old bounds as the table writes times.
func TestVerdictText(t *testing.T) {
	for _, c := range []struct {
		r    row
		want string
	}{
		{row{kind: kindLog}, "≤ 2 × baseline"},
		{row{ours: time.Second, budget: 2 * time.Minute}, "≤ 120 s"},
		{row{ours: time.Second, budget: 300 * time.Millisecond, ratioBudget: 1.2}, "≤ 300.0 ms, ≤ 1.2 × baseline"},
		{row{ours: time.Second}, "–"},
	} {
		if got, _ := c.r.verdict(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}

func TestPairRuns(t *testing.T) {
	var order []string
	ours := []time.Duration{10, 30, 20, 1000, 40}
	base := []time.Duration{10, 10, 10, 10, 1000}
	p, err := pairRuns(5, func(r int) (time.Duration, error) {
		order = append(order, "A")
		return ours[r], nil
	}, func(r int) (time.Duration, error) {
		order = append(order, "B")
		return base[r], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ""); got != "ABABABABAB" {
		t.Errorf("order %s, want ABABABABAB", got)
	}
	// Ratios 1, 3, 2, 100, 0.04: median 2; the medians' quotient is 30/10 = 3.
	if p.ours != 30 || p.base != 10 || p.ratio != 2 {
		t.Errorf("medians %v and %v, ratio %v; want 30, 10 and 2", p.ours, p.base, p.ratio)
	}
}

func TestSlowestInitOf(t *testing.T) {
	trace := "init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs\n" +
		"init github.com/itchyny/gojq @4.4 ms, 4.7 ms clock, 219352 bytes, 2278 allocs\n" +
		"something else\n" +
		"init html/template @31 ms, 0.046 ms clock, 17944 bytes, 90 allocs\n"
	d, pkg, err := slowestInitOf(trace)
	if err != nil || pkg != "github.com/itchyny/gojq" || d != 4700*time.Microsecond {
		t.Errorf("%v %q %v, want 4.7ms github.com/itchyny/gojq", d, pkg, err)
	}
	if _, _, err := slowestInitOf("no trace\n"); err == nil {
		t.Error("no error for a run that traced no init")
	}
}
