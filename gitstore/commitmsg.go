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

// commitMessage writes a header as a commit message: a subject a person
// reads in git log, then trailers a program reads back.
func commitMessage(h snapshot.Header) string {
	var b strings.Builder
	b.WriteString(subject(h))
	b.WriteString("\n\n")
	add := func(key, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%s: %s\n", key, oneLine(value))
		}
	}
	add(trailerSession, h.Session)
	add(trailerSeq, strconv.Itoa(h.Seq))
	if h.Turn > 0 {
		add(trailerTurn, strconv.Itoa(h.Turn))
	}
	add(trailerLabel, h.Label)
	add(trailerSource, h.Source)
	if !h.Started.IsZero() {
		add(trailerStarted, h.Started.UTC().Format(time.RFC3339Nano))
	}
	add(trailerCode, h.Code)
	if h.Dirty {
		add(trailerDirty, "true")
	}
	add(trailerMessages, strconv.Itoa(h.Messages))
	add(trailerEvents, strconv.Itoa(h.Events))
	add(trailerFiles, strconv.Itoa(h.Files))
	add(trailerRollback, h.RollbackOf)
	if h.Redacted > 0 {
		add(trailerRedacted, strconv.Itoa(h.Redacted))
	}
	return b.String()
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
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(value)
		switch key {
		case trailerSession:
			h.Session = value
		case trailerSeq:
			h.Seq = n
		case trailerTurn:
			h.Turn = n
		case trailerLabel:
			h.Label = value
		case trailerSource:
			h.Source = value
		case trailerStarted:
			h.Started, _ = time.Parse(time.RFC3339Nano, value)
		case trailerCode:
			h.Code = value
		case trailerDirty:
			h.Dirty = value == "true"
		case trailerMessages:
			h.Messages = n
		case trailerEvents:
			h.Events = n
		case trailerFiles:
			h.Files = n
		case trailerRollback:
			h.RollbackOf = value
		case trailerRedacted:
			h.Redacted = n
		}
	}
	if subj != h.Label && subj != "snapshot" {
		h.Message = subj
	}
	return h, h.Session != ""
}
