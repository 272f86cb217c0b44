package agent

import (
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// Session is a stored document read once, the one pass that stats,
// show, trace, replay, the viewer and export share: its live records,
// each viewed once with the view of the agent whose shape it has, and
// the model calls they make.
//
// A document's live records are what the agent's files hold as of the
// snapshot: for a document transcript rewritten in place (Gemini CLI's
// chat, OpenCode's export), the records of its last version; for a file
// the agent rewrote (a new generation, see Layout), its newest
// generation's lines. Versions they replaced stay in the session's
// history (restore gives each back) but are not counted again.
type Session struct {
	// Agent recorded the document; nil for a harness (see Recorder).
	Agent Adapter
	// Records are the live records in the order they were stored, Index
	// their places among the stored messages, Views how they read.
	Records []any
	Index   []int
	Views   []snapshot.Message
	// Thread is each record's file (its name in the layout), for merging
	// a subagent's timeline with its parent's by time; a copy of a
	// subagent's record whose own file the session lacks is in that
	// subagent's thread (see Copies.Place).
	Thread []string
	// placed are the records those copies read as, by place.
	placed map[int]any
	// Events a harness recorded; Files the captured files' count.
	Events []any
	Files  int
	// Calls are the model calls of the records (snapshot.ModelCalls);
	// their Records index Records.
	Calls []snapshot.Call
}

// Read reads doc once (see Session); a is the agent that recorded it,
// nil for a harness.
func Read(doc map[string]any, a Adapter) *Session {
	r := &Session{Agent: a}
	r.Records, r.Index, r.Thread = liveRecords(doc)
	r.Events, _ = doc[snapshot.MemberEvents].([]any)
	files, _ := doc[snapshot.MemberFiles].(map[string]any)
	r.Files = len(files)
	r.Views = make([]snapshot.Message, len(r.Records))
	ids := make([]any, len(r.Records))
	copies := CopiesIn(a, doc)
	for i, rec := range r.Records {
		ids[i] = i
		if _, skip := rec.(snapshot.Unchanged); skip {
			continue
		}
		if as, th, ok := copies.Place(rec, r.Thread[i]); ok {
			if r.placed == nil {
				r.placed = map[int]any{}
			}
			r.placed[i], r.Thread[i], rec = as, th, as
		}
		r.Views[i] = ViewMessage(rec)
	}
	r.Calls = snapshot.ModelCalls(ids, func(v any) snapshot.Message { return r.Views[v.(int)] })
	return r
}

// Record is the live record at place k as it reads: itself, or, for a
// copy of a subagent's record placed in that subagent's thread, the
// record it copies (Records keeps the stored one).
func (r *Session) Record(k int) any {
	if rec, ok := r.placed[k]; ok {
		return rec
	}
	return r.Records[k]
}

// ReadAs is Read with the adapter named source (nil when no agent has
// that name: a harness, an import of documents).
func ReadAs(doc map[string]any, source string) *Session {
	a, _ := Lookup(source, Env{})
	return Read(doc, a)
}

// liveRecords lists a document's live records (see Session), their
// places among the stored messages and the file each came from.
func liveRecords(doc map[string]any) (records []any, index []int, thread []string) {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	runs, lr := liveRuns(doc, len(msgs))
	for _, run := range runs {
		for i := run.from; i < run.from+run.n; i++ {
			records = append(records, msgs[i])
			index = append(index, i)
			thread = append(thread, run.thread)
		}
	}
	if lr != nil {
		records, index = lr.Live(records, index)
		thread = make([]string, len(records))
	}
	return records, index, thread
}

// liveRun is a run of live records: n stored messages from index from,
// of one file.
type liveRun struct {
	from, n int
	thread  string
}

// liveRuns says where the live records of a document (or of its members
// other than messages: only those are read) are among its stored
// messages, of which it has stored; lr, when not nil, is the agent's
// reducer that makes the live records of those (see liveReducer).
func liveRuns(doc map[string]any, stored int) (runs []liveRun, lr liveReducer) {
	if st, ok := docStateFrom(doc); ok {
		for _, r := range st.Live {
			from, to := max(r[0], 0), min(r[0]+max(r[1], 0), int64(stored))
			if r[0] < int64(stored) && to > from {
				runs = append(runs, liveRun{from: int(from), n: int(to - from)})
			}
		}
		return runs, nil
	}
	layout, err := LayoutFrom(doc)
	if err != nil || len(layout.Runs) == 0 {
		if stored > 0 {
			runs = []liveRun{{0, stored, ""}}
		}
		return runs, nil
	}
	pos := 0
	for _, run := range layout.Runs {
		f := layout.Files[run[0]]
		if n := min(run[1], stored-pos); layout.latest(f.Name) == run[0] && n > 0 {
			runs = append(runs, liveRun{pos, n, f.Name})
		}
		pos += run[1]
	}
	if pos < stored { // past what the layout counts: kept, as the main file's
		runs = append(runs, liveRun{pos, stored - pos, ""})
	}
	if name, _ := doc["agent"].(string); name != "" {
		if a, err := Lookup(name, Env{}); err == nil {
			lr, _ = a.(liveReducer)
		}
	}
	return runs, lr
}

// liveReducer is a RecordReader whose agent appends changes to its
// transcript rather than only new records (Gemini CLI's JSONL chat: a
// record again with the same id replaces it, others set metadata or
// rewind): Live gives the records the agent itself loads from the
// lines, in order, each with the place of the line it came from.
type liveReducer interface {
	Live(lines []any, index []int) ([]any, []int)
}

// LiveMessages is the conversation a document holds now: its live
// records (see Session).
func LiveMessages(doc map[string]any) []any {
	records, _, _ := liveRecords(doc)
	return records
}

// Order is the order a timeline shows the records in: each file's
// records in the order they were written, and the files' records merged
// by time, so that a subagent's lines fall among its parent's where they
// happened. A record without a time keeps its place after the one
// before it in its file.
func (r *Session) Order() []int {
	type queue struct {
		recs []int
		at   []time.Time
	}
	byThread := map[string]*queue{}
	var threads []*queue
	for i := range r.Records {
		q := byThread[r.Thread[i]]
		if q == nil {
			q = &queue{}
			byThread[r.Thread[i]] = q
			threads = append(threads, q)
		}
		at, err := time.Parse(time.RFC3339Nano, r.Views[i].Time)
		if err != nil && len(q.at) > 0 {
			at = q.at[len(q.at)-1]
		}
		q.recs = append(q.recs, i)
		q.at = append(q.at, at)
	}
	if len(threads) == 1 {
		return threads[0].recs
	}
	out := make([]int, 0, len(r.Records))
	for len(out) < len(r.Records) {
		best := -1
		for k, q := range threads {
			if len(q.recs) == 0 {
				continue
			}
			if best < 0 || q.at[0].Before(threads[best].at[0]) {
				best = k
			}
		}
		q := threads[best]
		out = append(out, q.recs[0])
		q.recs, q.at = q.recs[1:], q.at[1:]
	}
	return out
}

// Numbers are the session's statistics: a Tally fed its records.
func (r *Session) Numbers() Numbers {
	t := newTally("", r.Agent)
	t.feed(r)
	n := t.Numbers()
	n.Records, n.Events, n.Files = len(r.Records), len(r.Events), r.Files
	return n
}
