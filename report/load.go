package report

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/agent"
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

// Load reads snap (gitsnap.Show's) as a Session, or with o.From only
// what happened after From: the messages of snap past those the two
// snapshots share. The checkpoints set on the snapshots in between are
// markers where they were taken; each turn's files are the diff of the
// captured files between the first snapshots that hold its start and
// its end. Load holds every turn; Open reads a session to give its
// turns one at a time.
func Load(ctx context.Context, s Store, snap *session.Snapshot, o Options) (*Session, error) {
	out, err := Open(ctx, s, snap, o)
	if err != nil {
		return nil, err
	}
	return out, out.readTurns(ctx)
}

// readTurns reads the turns of a Session from Open whole into Turns.
func (s *Session) readTurns(ctx context.Context) error {
	if s.stream == nil {
		return nil
	}
	var turns []Turn
	if err := s.EachTurn(ctx, func(t *Turn) error {
		turns = append(turns, *t)
		return nil
	}); err != nil {
		return err
	}
	s.Turns, s.stream = turns, nil
	return nil
}

// Open reads, of snap (read from s by gitsnap.ShowFrom), what a report's
// header and outline need (Load): its numbers, models and turns, whose
// items are left out; EachTurn then gives the turns whole, one at a
// time, reading the session again. A record is read at a time, so that
// a session of any length is read in about the memory of its longest
// turn (docs/design.md §8).
func Open(ctx context.Context, s Store, snap *session.Snapshot, o Options) (*Session, error) {
	entry, id := snap.Entry, snap.Entry.ID
	h := entry.Header
	events, _ := snap.Others[snapshot.MemberEvents].([]any)
	out := &Session{Name: h.Session, Agent: h.Source, Snapshot: id.String(), Seq: h.Seq, Code: h.Code, Dirty: h.Dirty, Other: map[string]int{}}
	a, _ := agent.Lookup(h.Source, agent.Env{})
	st := &stream{s: s, recs: snap.Records, source: h.Source, rd: snap.Reader, copies: agent.CopiesIn(a, snap.Others)}
	evStart := 0
	var from storage.ID
	var err error
	if o.From != "" {
		if from, evStart, err = st.rangeStart(ctx, o.From, snap.Rev, entry, events, out); err != nil {
			return nil, err
		}
	}
	out.Events = len(events) - evStart
	snaps, marks, err := history(ctx, s, id, from, snap.SessionCheckpoints)
	if err != nil {
		return nil, err
	}
	st.marks = marks
	if !o.NoFiles {
		st.files = &filer{s: s, snaps: snaps, from: from}
	}
	if err := st.outline(ctx, out, events[evStart:], o.Calls); err != nil {
		return nil, err
	}
	table := o.Prices
	if table == nil {
		table = prices.Default()
	}
	cost := table.Estimate(out.Numbers.ByModel)
	out.Numbers.Cost = &cost
	out.First, out.Last = out.Numbers.First, out.Numbers.Last
	out.stream = st
	return out, nil
}

// stream is what the second reading of an opened session needs.
type stream struct {
	s       Store
	recs    *session.Records
	source  string
	rd      agent.Reader // reads the records as source's agent
	start   int          // the first record of the range
	prompts int          // prompts before it
	marks   map[int][]string
	plan    *plan
	files   *filer // nil: no files
	// copies says how copies of subagents' records read (agent.Copies).
	copies agent.Copies
}

// at reads the live record at place k as it reads: a copy of a record
// of a subagent whose own file the session lacks reads as that record,
// in its thread (agent.Copies.Place). stored is the record as stored,
// as the numbers count it.
func (st *stream) at(ctx context.Context, k int) (rec, stored agent.Record, err error) {
	raw, err := st.recs.At(ctx, k)
	if err != nil {
		return agent.Record{}, agent.Record{}, err
	}
	stored = st.rd.Read(raw)
	if as, _, ok := st.copies.Place(raw, ""); ok {
		return st.rd.Read(as), stored, nil
	}
	return stored, stored, nil
}

// rangeStart reads the start of a range: the snapshot from names, the
// records and events the two ends share.
func (st *stream) rangeStart(ctx context.Context, fromRev, rev string, entry storage.Entry, events []any, out *Session) (storage.ID, int, error) {
	from, err := st.s.Resolve(ctx, fromRev)
	if err != nil {
		return from, 0, err
	}
	frest, fentry, err := st.s.ReadWithoutMessages(ctx, from)
	if err != nil {
		return from, 0, err
	}
	if err := CheckRange(fromRev, rev, fentry, entry); err != nil {
		return from, 0, err
	}
	out.From, out.FromSeq = from.String(), fentry.Header.Seq
	frecs, err := session.LiveRecords(ctx, st.s, fentry, frest)
	if err != nil {
		return from, 0, err
	}
	if st.start, err = st.recs.SharedPrefix(ctx, frecs); err != nil {
		return from, 0, err
	}
	fevents, _ := frest[snapshot.MemberEvents].([]any)
	return from, sharedPrefix(fevents, events), nil
}

// outline is the first reading: the range's numbers (agent.Tally, as
// show and stats count them), its models, turns without their items,
// and the plan of the second reading.
func (st *stream) outline(ctx context.Context, out *Session, events []any, calls bool) error {
	b := newBuilder(out, st.rd, st.start, st.marks)
	b.outline = true
	var all *snapshot.CallReader // the whole session's, for a chart of it, when asked
	if calls {
		all = &snapshot.CallReader{}
	}
	add := func(k int, m snapshot.Message) {
		if all != nil {
			all.Add(k, m)
		}
	}
	for k := 0; k < st.start; k++ {
		rec, _, err := st.at(ctx, k)
		if err != nil {
			return err
		}
		add(k, rec.Message)
		if st.rd.IsPrompt(rec) {
			st.prompts++
		}
	}
	b.begin(st.prompts)
	tally := agent.NewTally(st.source)
	models := map[string]bool{}
	for k := st.start; k < st.recs.Len(); k++ {
		rec, stored, err := st.at(ctx, k)
		if err != nil {
			return err
		}
		m := rec.Message
		tally.Record(stored.Raw, stored.Message, "") // as agent.NumbersOf counts the range's records alone
		add(k, m)
		if m.Model != "" && !strings.HasPrefix(m.Model, "<") { // "<synthetic>": written by the harness, not a model
			models[m.Model] = true
		}
		if err := b.next(k, rec); err != nil {
			return err
		}
	}
	if err := b.end(st.recs.Len()); err != nil {
		return err
	}
	out.Models = slices.Sorted(maps.Keys(models))
	for _, ev := range events {
		tally.Event(ev)
	}
	out.Numbers = tally.Numbers()
	out.Numbers.Records, out.Numbers.Events = st.recs.Len()-st.start, len(events)
	out.calls = all
	out.Tools = b.toolsShown()
	st.plan = b.plan
	out.threadTurns = map[int]int{}
	for name, k := range b.plan.home {
		for _, r := range b.plan.threads[name] {
			out.threadTurns[r] = k
		}
	}
	return nil
}

// EachTurn gives the session's turns in order, each whole (items and
// files), to fn. The turn is fn's to keep. A Session from Open reads
// its records again, a turn at a time; one from Load gives its Turns.
func (s *Session) EachTurn(ctx context.Context, fn func(t *Turn) error) error {
	st := s.stream
	if st == nil {
		for k := range s.Turns {
			if err := fn(&s.Turns[k]); err != nil {
				return err
			}
		}
		return nil
	}
	b := newBuilder(&Session{Other: map[string]int{}}, st.rd, st.start, st.marks)
	b.plan = st.plan
	b.begin(st.prompts)
	b.fetch = func(i int) (agent.Record, error) {
		rec, _, err := st.at(ctx, i)
		return rec, err
	}
	files := st.files.restart()
	b.emit = func(t *Turn) error {
		if files != nil {
			var err error
			if t.Files, err = files.of(ctx, t.Start, t.End); err != nil {
				return err
			}
		}
		return fn(t)
	}
	n := st.recs.Len()
	for i := st.start; i < n; i++ {
		if b.read[i] { // read ahead: a later result or a subagent's record
			b.mark(i)
			delete(b.read, i)
			continue
		}
		rec, err := b.fetch(i)
		if err != nil {
			return err
		}
		if err := b.next(i, rec); err != nil {
			return err
		}
	}
	return b.end(n)
}

// ThreadTurns maps each record of a subagent's thread to the place in
// Turns of the turn that shows the thread: its records can arrive much
// later (an import puts them after the whole main transcript), but its
// work is that turn's.
func (s *Session) ThreadTurns() map[int]int { return s.threadTurns }

// CheckRange tells whether snapshots from and to (named fromRev and
// rev) make a range: both of one session, from not after to.
func CheckRange(fromRev, rev string, from, to storage.Entry) error {
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

// history lists the snapshots after from up to id, oldest first, and
// those of the session's checkpoints cps set on them (and on from) by
// the message count they were taken at. It reads commits, never trees.
func history(ctx context.Context, s Store, id, from storage.ID, cps []storage.Checkpoint) ([]storage.Entry, map[int][]string, error) {
	var snaps []storage.Entry
	err := s.Walk(ctx, []storage.ID{id}, func(e storage.Entry) error {
		if e.ID == from {
			return storage.ErrStop
		}
		snaps = append(snaps, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(snaps, func(a, b storage.Entry) int { return a.Header.Seq - b.Header.Seq })
	at := map[storage.ID]int{}
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
