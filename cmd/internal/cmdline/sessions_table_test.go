package cmdline

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/git-snap/git-snap/prices"
)

// The sessions table, written a line at a time, is aligned as
// text/tabwriter aligns it when it holds every line: names, labels and
// costs of different widths, labels with characters of several bytes,
// sessions with and without totals.
func TestSessionsTableIsAlignedAsTabwriterAlignsIt(t *testing.T) {
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	list := []*listedSession{
		{name: "a", seq: 1, first: at, last: at, label: "Stop", source: "claude-code", tokens: 1234567,
			cost: prices.Cost{Micros: 12_340_000}, hasCost: true},
		{name: "a-much-longer-session-name", seq: 12345, first: at, last: at.Add(time.Hour), label: "PostToolUse Édition — café ☕", source: "cli", tokens: -1},
		{name: "b", seq: 3, first: at, last: at, label: strings.Repeat("long label ", 10), source: "", tokens: 0,
			cost: prices.Cost{Micros: 5, Unknown: []string{"m"}}, hasCost: true},
	}
	var want bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
	for _, cells := range append([][]string{sessionsHeader}, list[0].cells(), list[1].cells(), list[2].cells()) {
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := writeSessionsTable(&got, list); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("the table is\n%s\ntabwriter aligns it\n%s", got.String(), want.String())
	}
}
