// Package approxidate parses the dates people type after --since,
// --until and --older-than. Like git's approxidate, it accepts the forms
// people commonly use: RFC 3339, a date, a date and time, "2 hours ago",
// "yesterday", and short spans back from now such as "30d" or "2w".
//
// Every function is pure: the current time is passed in as now, and a
// date without a time zone is interpreted in now's location.
package approxidate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Error reports why a text is not a date this package can parse.
type Error struct {
	Text   string
	Reason string
}

// Error names the text and the forms to use instead.
func (e *Error) Error() string {
	return fmt.Sprintf("cannot read the time %q: %s; use 2026-01-31, 2026-01-31 14:00, RFC 3339, yesterday, \"2 hours ago\" or a span back from now such as 90m, 2h, 30d, 2w", e.Text, e.Reason)
}

// UserError marks the error as one in the caller's input.
func (e *Error) UserError() {}

// layouts lists the absolute formats, tried in order. A format without a
// time zone is interpreted in now's location.
var layouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006/01/02",
}

// units maps every accepted name of a unit to its duration.
var units = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// calendar maps the names of months and years, whose length varies, to
// a count of months and years.
var calendar = map[string][2]int{ // months, years
	"month": {1, 0}, "months": {1, 0}, "mo": {1, 0},
	"year": {0, 1}, "years": {0, 1}, "y": {0, 1},
}

// Parse parses s as a point in time, counting relative forms back from
// now. An empty s gives the zero time (meaning no bound). Text that
// cannot be parsed gives an *Error.
func Parse(s string, now time.Time) (time.Time, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return time.Time{}, nil
	}
	if len(text) > 64 {
		return time.Time{}, &Error{Text: text[:64] + "…", Reason: "it is too long to be a date"}
	}
	for _, layout := range layouts {
		if t, err := time.ParseInLocation(layout, text, now.Location()); err == nil {
			return t, nil
		}
	}
	if unix, ok := strings.CutPrefix(text, "@"); ok {
		n, err := strconv.ParseInt(unix, 10, 64)
		if err != nil {
			return time.Time{}, &Error{Text: text, Reason: "@ must be followed by seconds since 1970"}
		}
		return time.Unix(n, 0).In(now.Location()), nil
	}
	if t, ok := namedTime(strings.ToLower(text), now); ok {
		return t, nil
	}
	if looksLikeDate(text) {
		_, err := time.Parse("2006-01-02", text[:min(len(text), 10)])
		reason := "it is not in any supported date format"
		var pe *time.ParseError
		if errors.As(err, &pe) && pe.Message != "" {
			reason = "it is not a valid date (" + strings.TrimPrefix(pe.Message, ": ") + ")"
		}
		return time.Time{}, &Error{Text: text, Reason: reason}
	}
	return relativeTime(text, now)
}

// looksLikeDate reports whether s starts like a year and a month.
func looksLikeDate(s string) bool {
	return len(s) > 5 && strings.Trim(s[:4], "0123456789") == "" && (s[4] == '-' || s[4] == '/')
}

// namedTime parses the words git accepts for points in time, such as
// "now" and "yesterday".
func namedTime(s string, now time.Time) (time.Time, bool) {
	y, m, d := now.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	switch s {
	case "now":
		return now, true
	case "today", "midnight":
		return midnight, true
	case "yesterday":
		return midnight.AddDate(0, 0, -1), true
	case "noon":
		return midnight.Add(12 * time.Hour), true
	case "last week":
		return now.AddDate(0, 0, -7), true
	case "last month":
		return now.AddDate(0, -1, 0), true
	case "last year":
		return now.AddDate(-1, 0, 0), true
	}
	return time.Time{}, false
}

// relativeTime parses a span back from now: "2 hours ago", "2.hours.ago",
// "2h", "90m", "30d", "1h30m" (Go durations), or "3 months ago".
func relativeTime(text string, now time.Time) (time.Time, error) {
	s := strings.ToLower(strings.ReplaceAll(text, ".", " "))
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "ago"))
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, &Error{Text: text, Reason: "a span back from now cannot be negative"}
		}
		return now.Add(-d), nil
	}
	num := strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz ")
	unit := strings.TrimSpace(s[len(num):])
	num = strings.TrimSpace(num)
	if num == "" || unit == "" {
		return time.Time{}, &Error{Text: text, Reason: "it is neither a date nor a span"}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return time.Time{}, &Error{Text: text, Reason: fmt.Sprintf("%q is not a whole number of %s", num, unit)}
	}
	if u, ok := units[unit]; ok {
		if n > int(100*365*24*time.Hour/u) {
			return time.Time{}, &Error{Text: text, Reason: "it goes back more than 100 years"}
		}
		return now.Add(-time.Duration(n) * u), nil
	}
	if c, ok := calendar[unit]; ok {
		if n > 1200 {
			return time.Time{}, &Error{Text: text, Reason: "it goes back more than 100 years"}
		}
		return now.AddDate(-n*c[1], -n*c[0], 0), nil
	}
	return time.Time{}, &Error{Text: text, Reason: fmt.Sprintf("%q is not a unit (s, m, h, d, w, months, years)", unit)}
}
