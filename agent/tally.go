package agent

import (
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// Tally counts a session's numbers as its live records come, in the
// order they are stored (see Session): the one count behind stats, show,
// trace, the viewer and exports. A document's numbers are a Tally fed
// every live record (Session.Numbers); a snapshot that appends records
// goes on from its parent's Tally with the records it adds (Append), so
// that a hook call counts what it adds, not the session. Marshal keeps
// a Tally between calls.
//
// Whatever a later record can change is kept per key: the usage each
// model call recorded last (snapshot.ModelCalls' rules: a later record of
// a call replaces its usage), whether each tool call's result was an
// error (a result may come in a later append than its call), and each
// thread's open prompt and pending command. Keys that are only compared
// (call ids, prompt texts) are kept hashed to 64 bits.
type Tally struct {
	source string
	turns  turnReader
	// mirror, for an agent that copies its subagents' records into their
	// parent's transcript, reads those copies; subs are the subagents'
	// records counted, by id, so that each counts once (see Mirrorer).
	mirror Mirrorer
	subs   table[bool]

	said, toolCalls, turnCount, compactions, failures int
	first, last                                       time.Time
	threads                                           map[string]*turnState
	tools                                             table[toolUse] // by call id

	// Model calls grouped by key (snapshot.CallGroups) and, separately, read
	// from running totals and from the totals of runs: a session with
	// running totals counts those; one whose calls read no input (they
	// record output counts at most) the runs' totals, when it has any.
	groups     snapshot.CallGroups
	calls      table[snapshot.CallSaid] // by UsageKey
	open       snapshot.CallSaid        // the call with no key, while groups.Open
	keyed      callSums
	running    snapshot.RunningTotals
	fromTotals callSums
	fromRuns   callSums

	events eventSums

	// baseData is the tables' base as read (UnmarshalParts), kept to be
	// written again as it is.
	baseData []byte
}

// toolUse is what is known of the tool calls with one id.
type toolUse struct {
	calls  int
	failed bool // the last result with the id was an error
}

// callSums sum model calls by model.
type callSums struct {
	estimated int // calls whose tokens are estimated
	input     int // calls whose usage says what input they read
	byModel   map[string]modelSum
}

type modelSum struct {
	calls int
	usage snapshot.Usage
}

// eventSums sum a harness's lifecycle events (see Recorder).
type eventSums struct {
	modelCalls, toolCalls, failures, compactions, turns int
	byModel                                             map[string]snapshot.Usage
}

// NewTally starts a count of a session recorded by the agent named
// source ("" or an unknown name: a harness, an import of documents).
func NewTally(source string) *Tally {
	a, _ := Lookup(source, Env{})
	return newTally(source, a)
}

func newTally(source string, a Adapter) *Tally {
	mirror, _ := a.(Mirrorer)
	return &Tally{mirror: mirror, subs: newTable[bool](seenCodec{}),
		source: source, turns: newTurnReader(a),
		threads: map[string]*turnState{}, tools: newTable[toolUse](toolCodec{}), calls: newTable[snapshot.CallSaid](callCodec{}),
		keyed: callSums{byModel: map[string]modelSum{}}, fromTotals: callSums{byModel: map[string]modelSum{}}, fromRuns: callSums{byModel: map[string]modelSum{}},
		events: eventSums{byModel: map[string]snapshot.Usage{}},
	}
}

// Source is the agent the tally reads records as.
func (t *Tally) Source() string { return t.source }

// TallyOf counts a whole document as the agent named source reads it.
func TallyOf(doc map[string]any, source string) *Tally {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	events, _ := doc[snapshot.MemberEvents].([]any)
	t, ok, _ := TallyStream(doc, len(msgs), events, source, func(i int) (any, error) { return msgs[i], nil })
	if ok {
		return t
	}
	t = NewTally(source)
	records, _, thread := liveRecords(doc)
	for i, raw := range records {
		t.Record(raw, ViewMessage(raw), thread[i])
	}
	t.eventsOf(events)
	return t
}

// TallyStream counts a document one record at a time, as its store reads
// them, so that a long session need not be held whole: rest are its
// members other than messages and events (others are not read), stored
// how many messages it holds, record(i) reads message i, only for those
// that are live. It returns false, having read nothing, when the agent
// that recorded it rewrites its records (see liveReducer): then only the
// whole document tells which are live (TallyOf).
func TallyStream(rest map[string]any, stored int, events []any, source string, record func(i int) (any, error)) (*Tally, bool, error) {
	runs, lr := liveRuns(rest, stored)
	if lr != nil {
		return nil, false, nil
	}
	t := NewTally(source)
	for _, run := range runs {
		for i := run.from; i < run.from+run.n; i++ {
			raw, err := record(i)
			if err != nil {
				return nil, false, err
			}
			t.Record(raw, ViewMessage(raw), run.thread)
		}
	}
	t.eventsOf(events)
	return t, true, nil
}

func (t *Tally) eventsOf(events []any) {
	for _, ev := range events {
		t.Event(ev)
	}
}

// feed counts every live record and event of a session read.
func (t *Tally) feed(r *Session) {
	for i, raw := range r.Records {
		t.Record(raw, r.Views[i], r.Thread[i])
	}
	for _, ev := range r.Events {
		t.Event(ev)
	}
}

// Record counts one live record, m its view, thread the file it is from.
func (t *Tally) Record(raw any, m snapshot.Message, thread string) {
	if _, skip := raw.(snapshot.Unchanged); skip {
		return
	}
	if t.mirror != nil {
		if sub, copied, ok := t.mirror.Mirrored(raw); ok {
			// the copy's time is when the parent wrote it, whatever view
			// the caller read it with
			t.stamp(ViewMessage(raw).Time)
			raw, m, thread = copied, ViewMessage(copied), t.mirror.SubagentFile(sub)
		} else {
			t.stamp(m.Time)
		}
		if t.countedBefore(raw, m) {
			t.modelCall(m) // the same response: its usage as recorded last
			return
		}
	} else {
		t.stamp(m.Time)
	}
	t.modelCall(m)
	if model, u, ok := t.running.Read(m); ok {
		t.fromTotals.add(snapshot.CallSaid{Model: model, Usage: u})
	}
	for _, rm := range m.RunTotals {
		t.fromRuns.addRun(rm)
	}
	for _, p := range m.Parts {
		if p.Kind == snapshot.PartToolResult {
			t.said++
			t.result(p.CallID, p.IsError)
		}
	}
	st := t.threads[thread]
	if st == nil {
		st = &turnState{}
		t.threads[thread] = st
	}
	step, answered := st.step(t.turns, raw, m)
	if answered { // a slash command the model answered
		t.turnCount++
		t.said++
	}
	switch step {
	case stepPrompt:
		t.turnCount++
		t.said++
	case stepCompaction:
		t.compactions++
	case stepAnswer:
		if strings.TrimSpace(firstText(m)) != "" {
			t.said++
		}
		for _, p := range m.Parts {
			if p.Kind == snapshot.PartToolCall {
				t.toolCalls++
				t.said++
				t.toolCall(p.CallID)
			}
		}
	}
}

// countedBefore reports whether raw, m is a subagent's record counted
// before, from its copy in the parent's transcript or from the
// subagent's own file, and notes it counted.
func (t *Tally) countedBefore(raw any, m snapshot.Message) bool {
	if m.ID == "" || t.mirror.Thread(raw) == "" {
		return false
	}
	k := hashString(m.ID)
	if _, seen := t.subs.get(k); seen {
		return true
	}
	t.subs.put(k, true)
	return false
}

// modelCall adds a record to the model call it is part of.
func (t *Tally) modelCall(m snapshot.Message) {
	key := hashString(m.UsageKey)
	c, seen := t.calls.get(key)
	switch t.groups.Join(m, seen && m.UsageKey != "") {
	case snapshot.NotACall:
		if !t.groups.Open {
			t.open = snapshot.CallSaid{}
		}
		return
	case snapshot.SameCall:
		t.keyed.remove(c)
	case snapshot.OpenCall:
		c = t.open
		t.keyed.remove(c)
	case snapshot.NewCall:
		c = snapshot.CallSaid{Model: t.groups.Model(m)}
	}
	c.Read(m)
	t.keyed.add(c)
	if m.UsageKey != "" {
		t.calls.put(key, c)
		if !t.groups.Open {
			t.open = snapshot.CallSaid{}
		}
	} else {
		t.open = c
	}
}

// result notes a tool result: its call failed or not, whichever append
// brought the call.
func (t *Tally) result(id string, failed bool) {
	k := hashString(id)
	u, _ := t.tools.get(k)
	switch {
	case failed && !u.failed:
		t.failures += u.calls
	case !failed && u.failed:
		t.failures -= u.calls
	}
	u.failed = failed
	t.tools.put(k, u)
}

// toolCall counts a tool call, failed when its result, if one came, was
// an error.
func (t *Tally) toolCall(id string) {
	k := hashString(id)
	u, _ := t.tools.get(k)
	u.calls++
	if u.failed {
		t.failures++
	}
	t.tools.put(k, u)
}

func (s *callSums) add(c snapshot.CallSaid) {
	m := s.byModel[c.Model]
	m.calls++
	m.usage.Add(c.Usage.OfCall())
	s.byModel[c.Model] = m
	if c.Estimated {
		s.estimated++
	}
	if readsInput(c.Usage) {
		s.input++
	}
}

func (s *callSums) remove(c snapshot.CallSaid) {
	m := s.byModel[c.Model]
	m.calls--
	m.usage.Remove(c.Usage.OfCall())
	if m.calls == 0 {
		delete(s.byModel, c.Model)
	} else {
		s.byModel[c.Model] = m
	}
	if c.Estimated {
		s.estimated--
	}
	if readsInput(c.Usage) {
		s.input--
	}
}

// addRun adds a run's calls of one model, known only from its totals.
func (s *callSums) addRun(rm snapshot.RunModel) {
	m := s.byModel[rm.Model]
	m.calls += rm.Calls
	m.usage.Add(rm.Usage)
	s.byModel[rm.Model] = m
}

// readsInput reports whether a call's usage says what input it read:
// every call reads some, so one that says none recorded at most its
// output.
func readsInput(u snapshot.Usage) bool { return u.Input+u.CacheRead+u.CacheWrite > 0 }

// Event counts one lifecycle event a harness recorded.
func (t *Tally) Event(raw any) {
	ev, _ := raw.(map[string]any)
	if ms, ok := num(ev["ts_ms"]); ok {
		t.stamp(time.UnixMilli(ms).UTC().Format(time.RFC3339Nano))
	}
	e := &t.events
	switch str(ev, "type") {
	case "post_model":
		e.modelCalls++
		u := e.byModel[str(ev, "model")]
		u.Add(EventUsage(ev).OfCall())
		e.byModel[str(ev, "model")] = u
	case "post_tool":
		e.toolCalls++
		if ev["ok"] == false || ev["error"] != nil {
			e.failures++
		}
	case "pre_compact":
		e.compactions++
	case "start":
		e.turns++
	}
}

// spanner is an adapter whose running totals may span several responses
// (see snapshot.Message.TotalSpans): its model calls are its responses.
type spanner interface {
	TotalsSpanResponses() bool
}

// stamp widens the span of the records' times by s, when s is a time.
func (t *Tally) stamp(s string) {
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return
	}
	if t.first.IsZero() || at.Before(t.first) {
		t.first = at
	}
	if at.After(t.last) {
		t.last = at
	}
}

// Numbers are the numbers counted so far; Records, Events and Files,
// which the caller knows, are left 0.
func (t *Tally) Numbers() Numbers {
	calls, responses := t.keyed, 0
	switch {
	case len(t.fromTotals.byModel) > 0:
		calls = t.fromTotals
		if s, ok := t.turns.a.(spanner); ok && s.TotalsSpanResponses() {
			for _, s := range t.keyed.byModel {
				responses += s.calls
			}
		}
	case len(t.fromRuns.byModel) > 0 && t.keyed.input == 0:
		calls = t.fromRuns
	}
	e := t.events
	n := Numbers{
		Messages: t.said, ToolCalls: t.toolCalls + e.toolCalls, ToolFailures: t.failures + e.failures,
		ModelCalls: e.modelCalls, Turns: t.turnCount + e.turns, Compactions: t.compactions + e.compactions,
		Estimated: calls.estimated > 0, First: t.first, Last: t.last, ByModel: map[string]snapshot.Usage{},
	}
	for model, s := range calls.byModel {
		n.ModelCalls += s.calls
		u := n.ByModel[model]
		u.Add(s.usage)
		n.ByModel[model] = u
	}
	n.ModelCalls = max(n.ModelCalls, e.modelCalls+responses) // totals that span responses count each
	for model, eu := range e.byModel {
		u := n.ByModel[model]
		u.Add(eu)
		n.ByModel[model] = u
	}
	for _, u := range n.ByModel {
		n.InputTokens += u.Input
		n.CacheReadTokens += u.CacheRead
		n.CacheWriteTokens += u.CacheWrite
		n.OutputTokens += u.Output
	}
	return n
}

// Totals are the numbers a snapshot's header keeps.
func (t *Tally) Totals() snapshot.Totals { return t.Numbers().Totals() }

// Append goes on counting from one snapshot of the session to the next:
// parent is the first's members other than messages and events (only
// they are read), holding stored messages; next is the second's, which
// stores added after them, and events after the first's. When the
// second's live records are the first's followed by some of those added,
// it counts those and the events and returns true. Otherwise (a document
// transcript rewritten in place, a file's new generation, an agent that
// rewrites records by id) it counts nothing and returns false: the
// second's document must be counted whole.
func (t *Tally) Append(parent map[string]any, stored int, next map[string]any, added, events []any) bool {
	before, lr := liveRuns(parent, stored)
	if lr != nil {
		return false
	}
	after, lr := liveRuns(next, stored+len(added))
	if lr != nil {
		return false
	}
	more, ok := appendedRuns(before, after, stored)
	if !ok {
		return false
	}
	for _, run := range more {
		for i := run.from; i < run.from+run.n; i++ {
			rec := added[i-stored]
			t.Record(rec, ViewMessage(rec), run.thread)
		}
	}
	t.eventsOf(events)
	return true
}

// appendedRuns returns the runs of after past those of before, when
// after's live records are before's, in the same places and files,
// followed only by records stored from stored on.
func appendedRuns(before, after []liveRun, stored int) ([]liveRun, bool) {
	j, off := 0, 0 // the next record of after: after[j].from+off
	for _, b := range before {
		for b.n > 0 {
			if j == len(after) {
				return nil, false
			}
			a := after[j]
			if a.thread != b.thread || a.from+off != b.from {
				return nil, false
			}
			k := min(a.n-off, b.n)
			b.from, b.n, off = b.from+k, b.n-k, off+k
			if off == a.n {
				j, off = j+1, 0
			}
		}
	}
	var more []liveRun
	if j < len(after) && off > 0 {
		a := after[j]
		more = append(more, liveRun{a.from + off, a.n - off, a.thread})
		j++
	}
	more = append(more, after[j:]...)
	for _, r := range more {
		if r.from < stored {
			return nil, false
		}
	}
	return more, true
}
