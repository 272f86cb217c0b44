package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/git-snap/git-snap/search"
)

// Hits writes search hits as git grep writes matches, one line each:
// the session and snapshot number, the snapshot id, the message index
// (as show numbers messages), the role and field, then the line with
// each match highlighted.
func Hits(w io.Writer, p Palette, hits []search.Hit) { HitsWith(w, p, hits, false) }

// HitsWith is Hits, with each line's number in its field after the field
// when lineNumbers is set (search -n): "[5] user text:2: …".
func HitsWith(w io.Writer, p Palette, hits []search.Hit, lineNumbers bool) {
	for _, h := range hits {
		where := h.Field
		if h.Tool != "" {
			where += "(" + h.Tool + ")"
		}
		if lineNumbers {
			where += fmt.Sprintf(":%d", h.LineNumber)
		}
		if h.Message >= 0 {
			where = fmt.Sprintf("[%d] %s %s", h.Message, h.Role, where)
		}
		fmt.Fprintf(w, "%s %s %s: %s\n", p.Cyan(fmt.Sprintf("%s#%d", h.Session, h.Seq)), p.Yellow(short(h.Snapshot)),
			p.Dim(strings.TrimSpace(where)), highlight(p, h))
	}
}

// HitSessions writes the sessions of hits, one name a line.
func HitSessions(w io.Writer, hits []search.Hit) {
	for _, h := range hits {
		fmt.Fprintln(w, h.Session)
	}
}

func short(id string) string { return id[:min(12, len(id))] }

// highlight marks the matches of a hit's line; control characters from
// the transcript are shown escaped, never sent to the terminal.
func highlight(p Palette, h search.Hit) string {
	var b strings.Builder
	at := 0
	for _, m := range h.Match {
		if m[0] < at || m[1] > len(h.Line) || m[0] > m[1] {
			continue
		}
		b.WriteString(Printable(h.Line[at:m[0]]))
		b.WriteString(p.wrap("1;31", Printable(h.Line[m[0]:m[1]])))
		at = m[1]
	}
	b.WriteString(Printable(h.Line[at:]))
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f || (r >= 0x80 && r < 0xa0) }
