package layout

import (
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
	bare := snapshot.Header{Session: "s2", Seq: 1, Time: when}
	const bareMsg = "snapshot\n\nSnap-Session: s2\nSnap-Seq: 1\nSnap-Messages: 0\nSnap-Events: 0\nSnap-Files: 0\n"
	for _, c := range []struct {
		h   snapshot.Header
		msg string
	}{{full, fullMsg}, {bare, bareMsg}} {
		if got := CommitMessage(c.h); got != c.msg {
			t.Errorf("commitMessage:\n%q\nwant\n%q", got, c.msg)
		}
		want := c.h
		want.Message = oneLine(want.Message)
		if got, ok := ParseHeader(c.msg, when); !ok || got != want {
			t.Errorf("ParseHeader(%q) = %+v, %v; want %+v", c.msg, got, ok, want)
		}
	}
	if _, ok := ParseHeader("snapshot\n\nSnap-Seq: 1\n", when); ok {
		t.Error("a message without Snap-Session was taken for a snapshot")
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
	} {
		h, ok := ParseHeader(base+tc.trailers, tc.when)
		if ok != tc.ok {
			t.Errorf("%q at %v: snapshot %v (%+v), want %v", tc.trailers, tc.when, ok, h, tc.ok)
		}
	}
}
