package snapshot

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// lineOps must return a script that turns a into b and is as short as
// the longest common subsequence allows. A plain O(NM) table computes
// that length independently of Myers' search.
func TestLineOpsIsShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 20000 {
		a, b := randomLines(r)
		ops := lineOps(a, b)
		if err := checkScript(ops, a, b); err != nil {
			t.Fatalf("case %d: %q → %q: %v\n%v", i, a, b, err, ops)
		}
		if got, want := edits(ops), len(a)+len(b)-2*lcsLength(a, b); got != want {
			t.Fatalf("case %d: %q → %q: %d edits, shortest is %d\n%v", i, a, b, got, want, ops)
		}
	}
}

// randomLines returns two texts over a small alphabet, so that lines
// repeat and many scripts are equally short. Half the time the second
// text is the first with a few lines changed, as in an edited file.
func randomLines(r *rand.Rand) (a, b []string) {
	alphabet := 1 + r.IntN(6)
	line := func() string { return fmt.Sprintf("l%d\n", r.IntN(alphabet)) }
	for range r.IntN(25) {
		a = append(a, line())
	}
	if r.IntN(2) == 0 {
		for range r.IntN(25) {
			b = append(b, line())
		}
		return a, b
	}
	for _, l := range a {
		switch r.IntN(8) {
		case 0: // dropped
		case 1:
			b = append(b, line(), l)
		case 2:
			b = append(b, line())
		default:
			b = append(b, l)
		}
	}
	return a, b
}

// checkScript applies ops to a and returns an error describing where
// the result differs from b.
func checkScript(ops []lineOp, a, b []string) error {
	var out []string
	i, j := 0, 0
	for n, op := range ops {
		if op.i != i || op.j != j {
			return fmt.Errorf("op %d is at (%d,%d), the script at (%d,%d)", n, op.i, op.j, i, j)
		}
		switch {
		case op.kind == '=' && i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, a[i])
			i, j = i+1, j+1
		case op.kind == '-' && i < len(a):
			i++
		case op.kind == '+' && j < len(b):
			out = append(out, b[j])
			j++
		default:
			return fmt.Errorf("op %d (%c at %d,%d) does not apply", n, op.kind, i, j)
		}
	}
	if i != len(a) || strings.Join(out, "") != strings.Join(b, "") {
		return fmt.Errorf("the script gives %q", out)
	}
	return nil
}

func edits(ops []lineOp) int {
	n := 0
	for _, op := range ops {
		if op.kind != '=' {
			n++
		}
	}
	return n
}

func lcsLength(a, b []string) int {
	row := make([]int, len(b)+1)
	for i := range a {
		diag := 0
		for j := range b {
			next := row[j+1]
			if a[i] == b[j] {
				row[j+1] = diag + 1
			} else {
				row[j+1] = max(row[j+1], row[j])
			}
			diag = next
		}
	}
	return row[len(b)]
}

// Among equally short scripts, lineOps picks the one the forward search
// has always picked, so that diffs already shown (docs/examples) do not
// change. A search from both ends that meets in the middle would pick
// different scripts for these cases.
func TestLineOpsPicksAsTheForwardSearch(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"xa", "ax", "-=+"},
		{"44102201", "250244301", "---++==-+++=="},
		{"10001100", "00100110", "-==+=+==-="},
	} {
		if got := kinds(lineOps(chars(tc.a), chars(tc.b))); got != tc.want {
			t.Errorf("%s → %s: %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}

func chars(s string) []string { return strings.Split(s, "") }

func kinds(ops []lineOp) string {
	var b strings.Builder
	for _, op := range ops {
		b.WriteByte(op.kind)
	}
	return b.String()
}

// Up to maxEditDistance the script is the shortest. Beyond it, the
// differing middle is removed and added as a whole, which is still
// correct.
func TestLineOpsPastTheBound(t *testing.T) {
	for _, tc := range []struct{ lines, wantEdits int }{
		{maxEditDistance, maxEditDistance},               // every other line changed: D = lines
		{maxEditDistance + 2, 2 * (maxEditDistance + 1)}, // D = lines > bound: all but the last line, twice
	} {
		var a, b []string
		for i := range tc.lines {
			a = append(a, fmt.Sprintf("line %d\n", i))
			if i%2 == 0 {
				b = append(b, fmt.Sprintf("changed %d\n", i))
			} else {
				b = append(b, a[i])
			}
		}
		ops := lineOps(a, b)
		if err := checkScript(ops, a, b); err != nil {
			t.Fatalf("%d lines: %v", tc.lines, err)
		}
		if got := edits(ops); got != tc.wantEdits {
			t.Errorf("%d lines: %d edits, want %d", tc.lines, got, tc.wantEdits)
		}
	}
}

// TestUnifiedDiffMemoryIsLinear diffs two 60 KB files that differ on
// every line within a few megabytes. This is the worst case: the edit
// distance is every line of both. Tracing Myers' search back from every
// saved step used memory quadratic in the edit distance: 150 MB for this
// pair, which is what a git snap diff of two captured files peaked at.
// The test counts bytes allocated, not time, so the bound holds on any
// machine.
func TestUnifiedDiffMemoryIsLinear(t *testing.T) {
	var a, b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&a, "alpha line %05d %s\n", i, strings.Repeat("x", 13))
		fmt.Fprintf(&b, "omega line %05d %s\n", i, strings.Repeat("x", 13))
	}
	if a.Len() < 60_000 {
		t.Fatalf("files of %d bytes", a.Len())
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := UnifiedDiff("a", "b", a.String(), b.String())
	runtime.ReadMemStats(&after)
	if got := strings.Count(out, "\n-alpha") + strings.Count(out, "\n+omega"); got != 4000 {
		t.Fatalf("the diff removes and adds %d lines, want 4000", got)
	}
	if used := after.TotalAlloc - before.TotalAlloc; used > 16<<20 {
		t.Errorf("diffing two 60 KB files allocated %d MB, want at most 16", used>>20)
	}
}

// Added marks the lines lineOps adds, for any comparable lines: the
// same script over hashes of the lines as over their text.
func TestAddedIsLineOpsInserts(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for i := range 2000 {
		a, b := randomLines(r)
		want := make([]bool, len(b))
		for _, op := range lineOps(a, b) {
			if op.kind == '+' {
				want[op.j] = true
			}
		}
		ha, hb := make([]uint64, len(a)), make([]uint64, len(b))
		for k, l := range a {
			ha[k] = uint64(len(l))<<32 | uint64(l[1])
		}
		for k, l := range b {
			hb[k] = uint64(len(l))<<32 | uint64(l[1])
		}
		if got := Added(ha, hb); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("case %d: %q → %q: added %v, lineOps inserts %v", i, a, b, got, want)
		}
	}
}
