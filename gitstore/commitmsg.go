package gitstore

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
	trailerSession  = "Snap-Session"
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
	{trailerSession, true, func(h *snapshot.Header) any { return &h.Session }},
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

// commitMessage writes a header as a commit message: a subject a person
// reads in git log, then trailers a program reads back.
func commitMessage(h snapshot.Header) string {
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

// parseTrailer sets a field from its trailer value; an unreadable value
// leaves it zero.
func parseTrailer(field any, value string) {
	switch f := field.(type) {
	case *string:
		*f = value
	case *int:
		*f, _ = strconv.Atoi(value)
	case *bool:
		*f = value == "true"
	case *time.Time:
		*f, _ = time.Parse(time.RFC3339Nano, value)
	}
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

// parseHeader reads a header back from a commit message. It returns
// false when the message has no Snap-Session trailer: not a snapshot.
func parseHeader(msg string, when time.Time) (snapshot.Header, bool) {
	h := snapshot.Header{Time: when}
	subj, _, _ := strings.Cut(msg, "\n")
	sc := bufio.NewScanner(strings.NewReader(msg))
	sc.Buffer(nil, len(msg)+1)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ": ")
		if i, known := trailerIndex[key]; ok && known {
			parseTrailer(trailers[i].field(&h), value)
		}
	}
	if subj != h.Label && subj != "snapshot" {
		h.Message = subj
	}
	return h, h.Session != ""
}
