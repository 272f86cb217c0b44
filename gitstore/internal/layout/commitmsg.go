package layout

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// Trailer keys of a snapshot commit.
const (
	TrailerSession  = "Snap-Session"
	trailerSeq      = "Snap-Seq"
	trailerTurn     = "Snap-Turn"
	trailerLabel    = "Snap-Label"
	trailerSource   = "Snap-Source"
	trailerStarted  = "Snap-Started"
	trailerCode     = "Snap-Code"
	trailerDirty    = "Snap-Dirty"
	trailerMessages = "Snap-Messages"
	trailerEvents   = "Snap-Events"
	trailerFiles    = "Snap-Files"
	trailerRollback = "Snap-Rollback-Of"
	trailerRedacted = "Snap-Redacted"
)

// trailers maps the header's fields to trailers, in the order a commit
// message gives them: each is named once, so that writing and reading
// cannot disagree. An int with omitZero is left out when 0; an empty
// string, false and the zero time always are.
var trailers = []struct {
	key      string
	omitZero bool
	field    func(h *snapshot.Header) any // a pointer to the field
}{
	{TrailerSession, true, func(h *snapshot.Header) any { return &h.Session }},
	{trailerSeq, false, func(h *snapshot.Header) any { return &h.Seq }},
	{trailerTurn, true, func(h *snapshot.Header) any { return &h.Turn }},
	{trailerLabel, true, func(h *snapshot.Header) any { return &h.Label }},
	{trailerSource, true, func(h *snapshot.Header) any { return &h.Source }},
	{trailerStarted, true, func(h *snapshot.Header) any { return &h.Started }},
	{trailerCode, true, func(h *snapshot.Header) any { return &h.Code }},
	{trailerDirty, true, func(h *snapshot.Header) any { return &h.Dirty }},
	{trailerMessages, false, func(h *snapshot.Header) any { return &h.Messages }},
	{trailerEvents, false, func(h *snapshot.Header) any { return &h.Events }},
	{trailerFiles, false, func(h *snapshot.Header) any { return &h.Files }},
	{trailerRollback, true, func(h *snapshot.Header) any { return &h.RollbackOf }},
	{trailerRedacted, true, func(h *snapshot.Header) any { return &h.Redacted }},
}

// trailerIndex finds a key's place in trailers.
var trailerIndex = func() map[string]int {
	m := make(map[string]int, len(trailers))
	for i, t := range trailers {
		m[t.key] = i
	}
	return m
}()

// CommitMessage writes a header as a commit message: a subject a person
// reads in git log, then trailers a program reads back.
func CommitMessage(h snapshot.Header) string {
	var b strings.Builder
	b.WriteString(subject(h))
	b.WriteString("\n\n")
	for _, t := range trailers {
		if v, ok := formatTrailer(t.field(&h), t.omitZero); ok {
			fmt.Fprintf(&b, "%s: %s\n", t.key, oneLine(v))
		}
	}
	return b.String()
}

// formatTrailer gives a field's trailer value, or false to leave it out.
func formatTrailer(field any, omitZero bool) (string, bool) {
	switch f := field.(type) {
	case *string:
		return *f, *f != ""
	case *int:
		return strconv.Itoa(*f), *f != 0 || !omitZero
	case *bool:
		return "true", *f
	case *time.Time:
		return f.UTC().Format(time.RFC3339Nano), !f.IsZero()
	}
	panic(fmt.Sprintf("trailer of a %T", field))
}

// Bounds of what a header may say. Headers come from commits anyone may
// have written (bundles, remotes, git commit by hand), so a value outside
// them makes the commit not a snapshot, rather than a number that
// overflows what is computed from it (stats, sums, sequence arithmetic).
const (
	maxHeaderInt  = 1_000_000_000 // sequence numbers, turns and counts: 0..1e9
	minHeaderYear = 1970          // times: years 1970..9999
	maxHeaderYear = 9999
)

// headerTimeOK says whether t is within the years a header may name.
func headerTimeOK(t time.Time) bool {
	y := t.UTC().Year()
	return y >= minHeaderYear && y <= maxHeaderYear
}

// parseTrailer sets a field from its trailer value, and reports false
// when the value is unreadable or out of bounds: an int that is not
// decimal digits or above maxHeaderInt, a time outside the years
// minHeaderYear..maxHeaderYear.
func parseTrailer(field any, value string) bool {
	switch f := field.(type) {
	case *string:
		*f = value
	case *int:
		if value == "" || len(value) > 10 || strings.Trim(value, "0123456789") != "" {
			return false
		}
		n, err := strconv.Atoi(value)
		if err != nil || n > maxHeaderInt {
			return false
		}
		*f = n
	case *bool:
		*f = value == "true"
	case *time.Time:
		t, err := time.Parse(time.RFC3339Nano, value)
		if err != nil || !headerTimeOK(t) {
			return false
		}
		*f = t
	}
	return true
}

func subject(h snapshot.Header) string {
	switch {
	case h.Message != "":
		return oneLine(h.Message)
	case h.Label != "":
		return oneLine(h.Label)
	}
	return "snapshot"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ParseHeader reads a header back from a commit message. It returns
// false when the message is not a snapshot's: no Snap-Session trailer,
// a trailer out of its bounds (see parseTrailer), or a commit time
// outside the years a header may name.
func ParseHeader(msg string, when time.Time) (snapshot.Header, bool) {
	h := snapshot.Header{Time: when}
	valid := headerTimeOK(when)
	subj, _, _ := strings.Cut(msg, "\n")
	sc := bufio.NewScanner(strings.NewReader(msg))
	sc.Buffer(nil, len(msg)+1)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ": ")
		if i, known := trailerIndex[key]; ok && known && !parseTrailer(trailers[i].field(&h), value) {
			valid = false
		}
	}
	if subj != h.Label && subj != "snapshot" {
		h.Message = subj
	}
	return h, valid && h.Session != ""
}
