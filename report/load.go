package report

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/prices"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// RangeError is a range whose ends do not make one: the user's input is
// wrong.
type RangeError struct{ Msg string }

// Error says what is wrong with the range.
func (e *RangeError) Error() string { return e.Msg }

// UserError marks it as the caller's mistake (exit status 2).
func (e *RangeError) UserError() {}

// ParseRange splits "A..B" into its ends. Both are needed: a range
// names where to start and where to stop.
func ParseRange(r string) (from, to string, err error) {
	from, to, ok := strings.Cut(r, "..")
	if !ok || from == "" || to == "" || strings.Contains(to, "..") {
		return "", "", &RangeError{fmt.Sprintf("range %q: write it as A..B, two revisions (fix-login~5..fix-login)", r)}
	}
	return from, to, nil
}

// Load reads the snapshot rev names as a Session, or with o.From only
// what happened after From: the messages of rev past those the two
// snapshots share. The checkpoints set on the snapshots in between are
// markers where they were taken; each turn's files are the diff of the
// captured files between the first snapshots that hold its start and
// its end.
func Load(ctx context.Context, s gitstore.Snapshots, rev string, o Options) (*Session, error) {
	id, err := s.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	doc, entry, err := s.Read(ctx, id)
	if err != nil {
		return nil, err
	}
	h := entry.Header
	msgs, events := live(doc)
	out := &Session{Name: h.Session, Agent: h.Source, Snapshot: id.String(), Seq: h.Seq, Code: h.Code, Dirty: h.Dirty, Other: map[string]int{}, Messages: msgs}
	start, evStart := 0, 0
	var from plumbing.Hash
	if o.From != "" {
		if from, err = s.Resolve(ctx, o.From); err != nil {
			return nil, err
		}
		fdoc, fentry, err := s.Read(ctx, from)
		if err != nil {
			return nil, err
		}
		if err := CheckRange(o.From, rev, fentry, entry); err != nil {
			return nil, err
		}
		out.From, out.FromSeq = from.String(), fentry.Header.Seq
		fmsgs, fevents := live(fdoc)
		start, evStart = sharedPrefix(fmsgs, msgs), sharedPrefix(fevents, events)
	}
	out.Events = len(events) - evStart
	part := map[string]any{snapshot.MemberMessages: msgs[start:], snapshot.MemberEvents: events[evStart:]}
	out.Numbers = agent.NumbersOf(part, h.Source)
	table := o.Prices
	if table == nil {
		table = prices.Default()
	}
	cost := table.Estimate(out.Numbers.ByModel)
	out.Numbers.Cost = &cost
	out.First, out.Last = out.Numbers.First, out.Numbers.Last
	snaps, marks, err := history(ctx, s, id, from, h.Session)
	if err != nil {
		return nil, err
	}
	b := newBuilder(out, h.Source, msgs, start, marks)
	b.build()
	if !o.NoFiles {
		if err := turnFiles(ctx, s, out, b.spans, snaps, from, doc); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// live is what a session shows of a document: its live records (see
// agent.Session) and its events.
func live(doc map[string]any) (msgs, events []any) {
	events, _ = doc[snapshot.MemberEvents].([]any)
	return agent.LiveMessages(doc), events
}

// CheckRange tells whether snapshots from and to (named fromRev and
// rev) make a range: both of one session, from not after to.
func CheckRange(fromRev, rev string, from, to gitstore.Entry) error {
	f, t := from.Header, to.Header
	if f.Session != t.Session {
		return &RangeError{fmt.Sprintf("range %s..%s: the ends are in two sessions (%s and %s); a range is part of one session", fromRev, rev, f.Session, t.Session)}
	}
	if f.Seq > t.Seq {
		return &RangeError{fmt.Sprintf("range %s..%s: %s is newer than %s (#%d after #%d); write the older snapshot first", fromRev, rev, fromRev, rev, f.Seq, t.Seq)}
	}
	return nil
}

// sharedPrefix is how many elements a and b share from the start.
func sharedPrefix(a, b []any) int {
	n := 0
	for n < len(a) && n < len(b) && snapshot.Equal(a[n], b[n]) {
		n++
	}
	return n
}

// history lists the snapshots after from up to id, oldest first, and the
// checkpoints set on them (and on from) by the message count they were
// taken at. It reads commits and tags, never trees.
func history(ctx context.Context, s gitstore.Snapshots, id, from plumbing.Hash, session string) ([]gitstore.Entry, map[int][]string, error) {
	var snaps []gitstore.Entry
	err := s.Walk(ctx, []plumbing.Hash{id}, func(e gitstore.Entry) error {
		if e.ID == from {
			return gitstore.ErrStop
		}
		snaps = append(snaps, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(snaps, func(a, b gitstore.Entry) int { return a.Header.Seq - b.Header.Seq })
	cps, err := s.Checkpoints(ctx, session, false)
	if err != nil {
		return nil, nil, err
	}
	at := map[plumbing.Hash]int{}
	for _, e := range snaps {
		at[e.ID] = e.Header.Messages
	}
	marks := map[int][]string{}
	for _, cp := range cps {
		if n, ok := at[cp.Target]; ok {
			marks[n] = append(marks[n], cp.Name)
		}
	}
	return snaps, marks, nil
}
