package snapshot

import (
	"fmt"
	"strconv"
	"strings"
)

// UnifiedDiff returns a unified diff (3 lines of context) that turns a
// into b, or "" when they are equal. Names label the two sides.
func UnifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	la, lb := splitLines(a), splitLines(b)
	ops := lineOps(la, lb)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	for _, h := range hunks(ops, 3) {
		writeHunk(&out, h, la, lb)
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineOp is one step of an edit script: '=' keeps a[i] (= b[j]), '-'
// drops a[i], '+' inserts b[j].
type lineOp struct {
	kind byte
	i, j int
}

// lineOps computes a shortest edit script with Myers' O(ND) algorithm,
// after trimming the common prefix and suffix.
func lineOps(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []lineOp
	for k := range pre {
		ops = append(ops, lineOp{'=', k, k})
	}
	for _, op := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		ops = append(ops, lineOp{op.kind, op.i + pre, op.j + pre})
	}
	for k := range suf {
		ops = append(ops, lineOp{'=', len(a) - suf + k, len(b) - suf + k})
	}
	return ops
}

// maxEditDistance bounds Myers' search; past it the differing middle is
// shown as removed then added, which is correct, only less minimal.
const maxEditDistance = 4000

func myers(a, b []string) []lineOp {
	n, m := len(a), len(b)
	maxD := min(n+m, maxEditDistance)
	off := maxD + 1
	v := make([]int, 2*off+1)
	// trace[d] holds v[-d..d] as it was before step d.
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, d, n, m)
			}
		}
	}
	ops := make([]lineOp, 0, n+m)
	for i := range n {
		ops = append(ops, lineOp{'-', i, 0})
	}
	for j := range m {
		ops = append(ops, lineOp{'+', n, j})
	}
	return ops
}

func backtrack(trace [][]int, d, x, y int) []lineOp {
	var ops []lineOp
	for ; d > 0; d-- {
		prev := trace[d] // index k+d holds v[k]
		k := x - y
		pk := k - 1
		if k == -d || k != d && prev[k-1+d] < prev[k+1+d] {
			pk = k + 1
		}
		px := prev[pk+d]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			ops = append(ops, lineOp{'=', x, y})
		}
		if x == px {
			y--
			ops = append(ops, lineOp{'+', x, y})
		} else {
			x--
			ops = append(ops, lineOp{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		ops = append(ops, lineOp{'=', x, y})
	}
	for l, r := 0, len(ops)-1; l < r; l, r = l+1, r-1 {
		ops[l], ops[r] = ops[r], ops[l]
	}
	return ops
}

// hunks groups an edit script into ranges of ops with context lines of
// unchanged text around each change.
func hunks(ops []lineOp, context int) [][]lineOp {
	var out [][]lineOp
	start, end := -1, -1
	for i, op := range ops {
		if op.kind == '=' {
			continue
		}
		lo, hi := max(0, i-context), min(len(ops), i+context+1)
		if start >= 0 && lo <= end {
			end = hi
			continue
		}
		if start >= 0 {
			out = append(out, ops[start:end])
		}
		start, end = lo, hi
	}
	if start >= 0 {
		out = append(out, ops[start:end])
	}
	return out
}

// hunkRange writes a side of a hunk header as git does: the count is
// left out when it is one.
func hunkRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

func writeHunk(out *strings.Builder, h []lineOp, a, b []string) {
	var na, nb int
	for _, op := range h {
		if op.kind != '+' {
			na++
		}
		if op.kind != '-' {
			nb++
		}
	}
	sa, sb := h[0].i+1, h[0].j+1
	if na == 0 {
		sa--
	}
	if nb == 0 {
		sb--
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(sa, na), hunkRange(sb, nb))
	for _, op := range h {
		line := ""
		switch op.kind {
		case '=':
			line = " " + a[op.i]
		case '-':
			line = "-" + a[op.i]
		case '+':
			line = "+" + b[op.j]
		}
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
