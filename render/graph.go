package render

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/storage"
)

// Graph draws log --graph's columns as git does, with ASCII: "*" for the
// snapshot shown, "|" for a line of history that goes on beside it, "\"
// where a merge snapshot's other parent opens a line, "/" where two lines
// join or one ends and those right of it move left. Snapshots must come
// children before parents (the order log gives).
type Graph struct {
	lanes []storage.ID // the snapshot each column waits for
}

// Entry writes text (one snapshot's lines, as the log prints them) with
// the graph beside it: the lines that join columns before it, the
// snapshot's own "*" on its first line, the columns going on beside the
// rest, and the lines that open or close columns after it.
func (g *Graph) Entry(w io.Writer, e storage.Entry, text []byte) {
	col := slices.Index(g.lanes, e.ID)
	if col < 0 {
		col = len(g.lanes)
		g.lanes = append(g.lanes, e.ID)
	}
	// Other columns waiting for this snapshot join its column first.
	for j := len(g.lanes) - 1; j > col; j-- {
		if g.lanes[j] == e.ID {
			writeLine(w, g.shiftLine(j, '/'))
			g.lanes = slices.Delete(g.lanes, j, j+1)
		}
	}
	lines := splitLines(text)
	for i, l := range lines {
		if i == 0 {
			writeLine(w, g.row(col, '*')+l)
		} else {
			writeLine(w, g.row(-1, 0)+l)
		}
	}
	parents := append([]storage.ID{}, e.Merged...)
	switch {
	case e.Parent.IsZero():
		// A session's first snapshot: its column ends.
		if col < len(g.lanes)-1 {
			writeLine(w, g.endLine(col))
		}
		g.lanes = slices.Delete(g.lanes, col, col+1)
	default:
		g.lanes[col] = e.Parent
	}
	for _, p := range parents {
		if slices.Contains(g.lanes, p) {
			continue
		}
		g.lanes = slices.Insert(g.lanes, col+1, p)
		writeLine(w, g.openLine(col+1))
	}
}

// More writes text that belongs to the last snapshot (its --stat or
// --patch) beside the columns.
func (g *Graph) More(w io.Writer, text []byte) {
	for _, l := range splitLines(text) {
		writeLine(w, g.row(-1, 0)+l)
	}
}

// row is the columns as they stand, mark at col (none for -1).
func (g *Graph) row(col int, mark byte) string {
	var b strings.Builder
	for i := range g.lanes {
		if i == col {
			b.WriteByte(mark)
		} else {
			b.WriteByte('|')
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// shiftLine draws column j ending and the columns right of it moving
// left one place: "|/", "| |/ /".
func (g *Graph) shiftLine(j int, mark byte) string {
	b := bytes.Repeat([]byte(" "), 2*len(g.lanes))
	for i := range g.lanes {
		switch {
		case i < j:
			b[2*i] = '|'
		default:
			b[2*i-1] = mark
		}
	}
	return strings.TrimRight(string(b), " ")
}

// endLine draws column col ending, those right of it moving left: " /".
func (g *Graph) endLine(col int) string {
	b := []byte(g.shiftLine(col+1, '/'))
	b[2*col] = ' '
	return string(b)
}

// openLine draws a column opening at j (a merge's other parent), those
// at j and right of it moving right one place: "|\", "| |\ \".
func (g *Graph) openLine(j int) string {
	b := bytes.Repeat([]byte(" "), 2*len(g.lanes))
	for i := range g.lanes {
		switch {
		case i < j:
			b[2*i] = '|'
		default:
			b[2*i-1] = '\\'
		}
	}
	return strings.TrimRight(string(b), " ")
}

func splitLines(text []byte) []string {
	s := strings.TrimSuffix(string(text), "\n")
	if s == "" {
		return []string{""}
	}
	return strings.Split(s, "\n")
}

func writeLine(w io.Writer, s string) {
	_, _ = io.WriteString(w, strings.TrimRight(s, " ")+"\n") // as LogWriter.More
}
