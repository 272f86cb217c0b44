package layout

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// The trailers are git-snap's on-disk format: their names, order and
// the fields left out when empty must not change.
func TestCommitMessageFormatAndRoundTrip(t *testing.T) {
	when := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	full := snapshot.Header{
		Session: "s1", Seq: 7, Turn: 3, Label: "Stop", Source: "claude-code", Message: "fix  the\nbug",
		Time: when, Started: when.Add(-time.Hour), Code: "abc", Dirty: true,
		Messages: 12, Events: 2, Files: 1, RollbackOf: "def", Redacted: 4,
	}
	const fullMsg = "fix the bug\n\nSnap-Session: s1\nSnap-Seq: 7\nSnap-Turn: 3\nSnap-Label: Stop\nSnap-Source: claude-code\n" +
		"Snap-Started: 2025-03-01T11:00:00Z\nSnap-Code: abc\nSnap-Dirty: true\nSnap-Messages: 12\nSnap-Events: 2\nSnap-Files: 1\n" +
		"Snap-Rollback-Of: def\nSnap-Redacted: 4\n"
	counted := snapshot.Header{Session: "s3", Seq: 2, Time: when, Messages: 5, Counted: true, Totals: snapshot.Totals{
		ModelCalls: 2, ToolCalls: 3, ToolFailures: 1, Turns: 1, Compactions: 1,
		InputTokens: 233, CacheReadTokens: 12_900_000, CacheWriteTokens: 7, OutputTokens: 28_899, Estimated: true,
		First: when.Add(-time.Minute), Last: when,
		ByModel: []snapshot.ModelUsage{{Model: "", Usage: snapshot.Usage{Output: 1}}, {Model: "claude-opus-4", Usage: snapshot.Usage{Input: 233, CacheRead: 12_900_000, CacheWrite: 7, Output: 28_898}}},
	}}
	const countedMsg = "snapshot\n\nSnap-Session: s3\nSnap-Seq: 2\nSnap-Messages: 5\nSnap-Events: 0\nSnap-Files: 0\nSnap-Counted: true\n" +
		"Snap-Model-Calls: 2\nSnap-Tool-Calls: 3\nSnap-Tool-Failures: 1\nSnap-Turns: 1\nSnap-Compactions: 1\n" +
		"Snap-Input-Tokens: 233\nSnap-Cache-Read-Tokens: 12900000\nSnap-Cache-Write-Tokens: 7\nSnap-Output-Tokens: 28899\nSnap-Tokens-Estimated: true\n" +
		"Snap-First-Record: 2025-03-01T11:59:00Z\nSnap-Last-Record: 2025-03-01T12:00:00Z\n" +
		"Snap-Model-Usage: 0 0 0 1\nSnap-Model-Usage: 233 12900000 7 28898 claude-opus-4\n"
	bare := snapshot.Header{Session: "s2", Seq: 1, Time: when}
	const bareMsg = "snapshot\n\nSnap-Session: s2\nSnap-Seq: 1\nSnap-Messages: 0\nSnap-Events: 0\nSnap-Files: 0\n"
	for _, c := range []struct {
		h   snapshot.Header
		msg string
	}{{full, fullMsg}, {bare, bareMsg}, {counted, countedMsg}} {
		if got := CommitMessage(c.h); got != c.msg {
			t.Errorf("commitMessage:\n%q\nwant\n%q", got, c.msg)
		}
		want := c.h
		want.Message = oneLine(want.Message)
		if got, ok := ParseHeader(c.msg, when); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseHeader(%q) = %+v, %v; want %+v", c.msg, got, ok, want)
		}
	}
	// Totals on a commit that does not say it was counted are not read.
	if got, ok := ParseHeader("snapshot\n\nSnap-Session: s\nSnap-Tool-Calls: 9\nSnap-Model-Usage: 1 1 1 1 m\n", when); !ok || got.Counted || !reflect.DeepEqual(got.Totals, snapshot.Totals{}) {
		t.Errorf("stray totals read: %+v", got)
	}
	if _, ok := ParseHeader("snapshot\n\nSnap-Seq: 1\n", when); ok {
		t.Error("a message without Snap-Session was taken for a snapshot")
	}
	// Lines end at \n, one \r before it dropped (a message written on
	// Windows); a last line may lack its newline.
	crlf := "snapshot\n\r\nSnap-Session: s2\r\nSnap-Seq: 1\r\r\nSnap-Messages: 0\r\nSnap-Events: 0\nSnap-Files: 0"
	if got, ok := ParseHeader(crlf, when); ok || got.Session != "s2" || got.Events != 0 {
		t.Errorf("ParseHeader(%q) = %+v, %v; want s2, and no snapshot for Snap-Seq's \\r", crlf, got, ok)
	}
	crlf = strings.Replace(crlf, "1\r\r\n", "1\r\n", 1)
	if got, ok := ParseHeader(crlf, when); !ok || !reflect.DeepEqual(got, bare) {
		t.Errorf("ParseHeader(%q) = %+v, %v; want %+v", crlf, got, ok, bare)
	}
}

// TestHeaderBounds: a header's numbers and times come from commits
// anyone may write; out of bounds, the commit is not a snapshot (it was
// read as Snap-Seq 9223372036854775807 and summed by stats).
func TestHeaderBounds(t *testing.T) {
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := "snapshot\n\nSnap-Session: s\n"
	for _, tc := range []struct {
		trailers string
		when     time.Time
		ok       bool
	}{
		{"Snap-Seq: 12\nSnap-Messages: 3\n", when, true},
		{"Snap-Seq: 1000000000\n", when, true},
		{"Snap-Seq: 1000000001\n", when, false},
		{"Snap-Seq: 99999999999999999999999\n", when, false},
		{"Snap-Seq: 9223372036854775807\n", when, false},
		{"Snap-Seq: -1\n", when, false},
		{"Snap-Seq: +1\n", when, false},
		{"Snap-Seq: 1x\n", when, false},
		{"Snap-Messages: -5\n", when, false},
		{"Snap-Turn: 4000000000\n", when, false},
		{"Snap-Started: 2026-01-01T00:00:00Z\n", when, true},
		{"Snap-Started: 1969-12-31T23:59:59Z\n", when, false},
		{"Snap-Started: not a time\n", when, false},
		{"Snap-Seq: 1\n", time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"Snap-Seq: 1\n", time.Unix(1<<40, 0), false},
		{"Snap-Counted: true\nSnap-Output-Tokens: 1000000000000\n", when, true},
		{"Snap-Counted: true\nSnap-Output-Tokens: 1000000000001\n", when, false},
		{"Snap-Counted: true\nSnap-Model-Usage: 1 2 3\n", when, false},
		{"Snap-Counted: true\nSnap-Model-Usage: 1 2 3 -4 m\n", when, false},
		{"Snap-Counted: true\nSnap-Model-Usage: 1 2 3 4 a model\n", when, true},
		{"Snap-Counted: true\nSnap-Last-Record: 1900-01-01T00:00:00Z\n", when, false},
		{"Snap-Counted: true\n" + strings.Repeat("Snap-Model-Usage: 1 1 1 1 m\n", 101), when, false},
	} {
		h, ok := ParseHeader(base+tc.trailers, tc.when)
		if ok != tc.ok {
			t.Errorf("%q at %v: snapshot %v (%+v), want %v", tc.trailers, tc.when, ok, h, tc.ok)
		}
	}
}

// A header a reader would refuse (ParseHeader) is refused before it is
// written: its session would vanish from every command.
func TestCheckHeaderRefusesWhatNoReaderTakes(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ok := snapshot.Header{Session: "s", Seq: 1, Time: at, Counted: true, Totals: snapshot.Totals{InputTokens: 5, OutputTokens: 1_000_000_000_000}}
	if err := CheckHeader(ok); err != nil {
		t.Fatalf("a header in bounds: %v", err)
	}
	if _, read := ParseHeader(CommitMessage(ok), at); !read {
		t.Fatal("a header CheckHeader takes is not read back")
	}
	for name, change := range map[string]func(h *snapshot.Header){
		"negative input tokens": func(h *snapshot.Header) { h.Totals.InputTokens = -5 },
		"tokens past 1e12":      func(h *snapshot.Header) { h.Totals.CacheReadTokens = 1_000_000_000_001 },
		"a model's negative": func(h *snapshot.Header) {
			h.Totals.ByModel = []snapshot.ModelUsage{{Model: "m", Usage: snapshot.Usage{Output: -1}}}
		},
		"a turn past 1e9": func(h *snapshot.Header) { h.Turn = 2_000_000_000 },
		"a negative turn": func(h *snapshot.Header) { h.Turn = -1 },
		"the year 10000":  func(h *snapshot.Header) { h.Totals.Last = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
	} {
		h := ok
		change(&h)
		err := CheckHeader(h)
		if _, read := ParseHeader(CommitMessage(h), at); read || err == nil {
			t.Errorf("%s: read back %v, checked %v; want neither", name, read, err)
		}
	}
}
