package snapshot

import (
	"fmt"
	"strconv"
	"strings"
)

// UnifiedDiff returns a unified diff (3 lines of context) that turns a
// into b, or "" when they are equal. nameA and nameB label the two
// sides.
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

// lineOp is one step of an edit script: '=' keeps a[i] (equal to b[j]),
// '-' deletes a[i], and '+' inserts b[j].
type lineOp struct {
	kind byte
	i, j int
}

// lineOps computes a shortest edit script from a to b. When the edit
// distance exceeds maxEditDistance, it returns a correct but longer
// script.
func lineOps(a, b []string) []lineOp {
	d := newDiffer(a, b)
	d.run()
	ops := make([]lineOp, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && d.del[i]:
			ops = append(ops, lineOp{'-', i, j})
			i++
		case j < len(b) && d.ins[j]:
			ops = append(ops, lineOp{'+', i, j})
			j++
		default:
			ops = append(ops, lineOp{'=', i, j})
			i, j = i+1, j+1
		}
	}
	return ops
}

// maxEditDistance bounds the search, whose time grows with the number
// of lines times the edit distance. Without a bound, two large unrelated
// texts would take quadratic time. Beyond the bound, the differing
// middle is shown as removed and then added, which is correct but not
// minimal.
const maxEditDistance = 4000

// differ finds the same edit script as Myers' forward search (Myers
// 1986), using memory linear in the input rather than quadratic in the
// edit distance. Tracing the path back would require keeping every step
// of the search. Instead, as in the paper's linear-space refinement,
// differ finds a point halfway along the path and recurses on the two
// halves.
//
// The paper finds that point by searching from both ends until the two
// searches meet. When several scripts are equally short, that picks a
// different script than the forward search, so diffs that were already
// shown (docs/examples among them) would change. The forward search can
// find the point itself: each furthest-reaching point records which
// diagonal its path was on at the halfway step, at the cost of one more
// vector.
type differ struct {
	a, b     []int  // lines as numbers, so equal lines compare cheaply
	del, ins []bool // del[i]: a[i] is removed; ins[j]: b[j] is added
	// For diagonal k = x-y of the box being searched, at index off+k:
	// far is the furthest x reached, or -1 if none; half is the value
	// far had at the halfway step; via is the diagonal the path to far
	// was on at the halfway step.
	far, half, via []int
	off            int
}

// box is the subproblem of turning a[x0:x1] into b[y0:y1].
type box struct{ x0, y0, x1, y1 int }

// Added compares two sequences of lines (text, or anything comparable
// such as hashes of it) as UnifiedDiff compares texts, and reports for
// each element of b whether the edit script adds it rather than keeps
// it from a.
func Added[T comparable](a, b []T) []bool {
	d := newDiffer(a, b)
	d.run()
	return d.ins
}

func newDiffer[T comparable](a, b []T) *differ {
	d := &differ{del: make([]bool, len(a)), ins: make([]bool, len(b))}
	ids := make(map[T]int)
	number := func(lines []T) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d.a, d.b = number(a), number(b)
	// No script is longer than both texts together, and the search stops
	// at maxEditDistance, so diagonals range from -(off-1) to off-1.
	d.off = min(len(a)+len(b), maxEditDistance) + 1
	d.far = make([]int, 2*d.off+1)
	d.half = make([]int, 2*d.off+1)
	d.via = make([]int, 2*d.off+1)
	return d
}

// run marks the changes that turn a into b.
func (d *differ) run() {
	bx := box{0, 0, len(d.a), len(d.b)}
	for bx.x0 < bx.x1 && bx.y0 < bx.y1 && d.a[bx.x0] == d.b[bx.y0] {
		bx.x0, bx.y0 = bx.x0+1, bx.y0+1
	}
	for bx.x0 < bx.x1 && bx.y0 < bx.y1 && d.a[bx.x1-1] == d.b[bx.y1-1] {
		bx.x1, bx.y1 = bx.x1-1, bx.y1-1
	}
	dist, _, _ := d.search(bx, 0, maxEditDistance)
	if dist < 0 {
		d.markAll(bx)
		return
	}
	d.compare(bx, dist)
}

// compare marks the changes along the path the forward search takes
// through bx, which needs dist edits.
func (d *differ) compare(bx box, dist int) {
	switch {
	case dist == 0:
	case bx.x0 == bx.x1 || bx.y0 == bx.y1:
		d.markAll(bx)
	case dist == 1:
		// The search follows the first diagonal, then makes the edit.
		s := 0
		for bx.x0+s < bx.x1 && bx.y0+s < bx.y1 && d.a[bx.x0+s] == d.b[bx.y0+s] {
			s++
		}
		if bx.x1-bx.x0 > bx.y1-bx.y0 {
			d.del[bx.x0+s] = true
		} else {
			d.ins[bx.y0+s] = true
		}
	default:
		h := dist / 2
		_, x, y := d.search(bx, h, dist)
		d.compare(box{bx.x0, bx.y0, x, y}, h)
		d.compare(box{x, y, bx.x1, bx.y1}, dist-h)
	}
}

func (d *differ) markAll(bx box) {
	for i := bx.x0; i < bx.x1; i++ {
		d.del[i] = true
	}
	for j := bx.y0; j < bx.y1; j++ {
		d.ins[j] = true
	}
}

// search runs the forward search through bx for at most limit edits.
// It returns the number of edits needed to reach the end of the box, or
// -1 if that exceeds limit. It also returns the point the path to the
// end passed through after halfway edits (meaningful when halfway is
// less than the returned distance).
func (d *differ) search(bx box, halfway, limit int) (dist, x, y int) {
	n, m := bx.x1-bx.x0, bx.y1-bx.y0
	for e := 0; e <= limit; e++ {
		for k := -e; k <= e; k += 2 {
			i := d.off + k
			far, from := d.reach(bx, e, k)
			d.far[i] = far
			if e > halfway {
				d.via[i] = d.via[d.off+from]
			} else {
				d.via[i] = k
			}
			if far == n && far-k == m {
				mid := d.via[i]
				return e, bx.x0 + d.half[d.off+mid], bx.y0 + d.half[d.off+mid] - mid
			}
		}
		if e == halfway {
			copy(d.half, d.far)
		}
	}
	return -1, 0, 0
}

// reach returns the furthest x on diagonal k that e edits reach (-1 if
// none do) and the diagonal its last edit came from. When adding a line
// and removing a line reach equally far, it adds, as the search always
// has; that choice decides between equally short scripts.
func (d *differ) reach(bx box, e, k int) (x, from int) {
	n, m := bx.x1-bx.x0, bx.y1-bx.y0
	x, from = -1, k
	if e == 0 {
		x = 0
	} else {
		if p := d.far[d.off+k+1]; k < e && p >= 0 && p-k <= m {
			x, from = p, k+1 // add a line of b
		}
		if p := d.far[d.off+k-1]; k > -e && p >= 0 && p < n && p+1 > x {
			x, from = p+1, k-1 // remove a line of a
		}
	}
	if x < 0 {
		return x, from
	}
	for x < n && x-k < m && d.a[bx.x0+x] == d.b[bx.y0+x-k] {
		x++
	}
	return x, from
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

// hunkRange formats one side of a hunk header as git does, omitting the
// count when it is one.
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
