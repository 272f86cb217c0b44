package approxidate

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	now := time.Date(2026, 3, 15, 14, 30, 0, 0, berlin)
	day := 24 * time.Hour
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"", time.Time{}},
		{"2026-01-31", time.Date(2026, 1, 31, 0, 0, 0, 0, berlin)},
		{"2026/01/31", time.Date(2026, 1, 31, 0, 0, 0, 0, berlin)},
		{"2026-01-31 14:00", time.Date(2026, 1, 31, 14, 0, 0, 0, berlin)},
		{"2026-01-31T14:00:05", time.Date(2026, 1, 31, 14, 0, 5, 0, berlin)},
		{"2026-01-31T14:00:05Z", time.Date(2026, 1, 31, 14, 0, 5, 0, time.UTC)},
		{"2026-01-31T14:00:05.25+02:00", time.Date(2026, 1, 31, 14, 0, 5, 250_000_000, time.FixedZone("", 7200))},
		{"2026-01-31 14:00:05 -0500", time.Date(2026, 1, 31, 14, 0, 5, 0, time.FixedZone("", -5*3600))},
		{"@1700000000", time.Unix(1700000000, 0)},
		{"now", now},
		{"today", time.Date(2026, 3, 15, 0, 0, 0, 0, berlin)},
		{"Yesterday", time.Date(2026, 3, 14, 0, 0, 0, 0, berlin)},
		{"noon", time.Date(2026, 3, 15, 12, 0, 0, 0, berlin)},
		{"last week", now.Add(-7 * day)},
		{"last month", time.Date(2026, 2, 15, 14, 30, 0, 0, berlin)},
		{"2 hours ago", now.Add(-2 * time.Hour)},
		{"2.hours.ago", now.Add(-2 * time.Hour)},
		{"1 hour ago", now.Add(-time.Hour)},
		{"  45 minutes ago ", now.Add(-45 * time.Minute)},
		{"2h", now.Add(-2 * time.Hour)},
		{"2h ago", now.Add(-2 * time.Hour)},
		{"90m", now.Add(-90 * time.Minute)},
		{"1h30m", now.Add(-90 * time.Minute)},
		{"720h", now.Add(-30 * day)},
		{"30d", now.Add(-30 * day)},
		{"30 days", now.Add(-30 * day)},
		{"2w", now.Add(-14 * day)},
		{"3 weeks ago", now.Add(-21 * day)},
		{"10s", now.Add(-10 * time.Second)},
		{"3 months ago", time.Date(2025, 12, 15, 14, 30, 0, 0, berlin)},
		{"1y", time.Date(2025, 3, 15, 14, 30, 0, 0, berlin)},
		{"0d", now},
	} {
		got, err := Parse(tc.in, now)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("Parse(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	now := time.Date(2026, 3, 15, 14, 30, 0, 0, time.UTC)
	for _, tc := range []struct{ in, wantErr string }{
		{"yesterdayish", "neither a date nor a span"},
		{"soon", "neither a date nor a span"},
		{"-5d", "not a whole number"},
		{"-2h", "cannot be negative"},
		{"5 fortnights ago", `"fortnights" is not a unit`},
		{"2026-13-01", "month out of range"},
		{"2026-02-30 10:00", "day out of range"},
		{"@12x", "seconds since 1970"},
		{"99999999999 days", "more than 100 years"},
		{"5000 years", "more than 100 years"},
		{strings.Repeat("9", 200) + "d", "too long"},
		{"d", "neither a date nor a span"},
	} {
		_, err := Parse(tc.in, now)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q): err = %v, want *Error", tc.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("Parse(%q): %q does not contain %q", tc.in, err, tc.wantErr)
		}
	}
}

// FuzzParse checks that any text gives a time or an *Error, never a
// panic, and that a relative form never gives a time after now.
func FuzzParse(f *testing.F) {
	now := time.Date(2026, 3, 15, 14, 30, 0, 0, time.UTC)
	for _, seed := range []string{"2 hours ago", "30d", "yesterday", "2026-01-31", "@1", "-1h", "9999999999999999999999d", "1e9h", "2.hours.ago", "", "2026-02-30", " ago", "0x10d"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s, now)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("Parse(%q): %v is not an *Error", s, err)
		}
		if err == nil && strings.HasSuffix(strings.TrimSpace(s), "ago") && got.After(now) {
			t.Fatalf("Parse(%q) = %v, after now", s, got)
		}
	})
}
