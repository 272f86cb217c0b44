package agent

import (
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// fact is what a session's numbers and trace need of one record, read
// from it once: a session read a record at a time (Scan) keeps these
// and not its records.
type fact struct {
	at     time.Time // the record's time, when timed
	thread string
	role   string
	// what the agent says the record is
	prompt, command, input, compaction bool
	timed                              bool
	hasParts                           bool // the view has parts
	answer                             bool // an answer with text
	said                               *said
	parts                              []toolPart // its tool calls and results
}

// said is what a prompt or a command keeps: the record's kind, a hash
// of its text (a prompt written twice is one) and its text shortened
// for the trace. Most records are neither, and keep none.
type said struct {
	kind string
	key  uint64
	text string
}

// toolPart is a tool call (its tool) or a tool result (failed or not) a
// record holds.
type toolPart struct {
	callID, tool   string
	result, failed bool
}

// factOf reads one record (its view m) as the tracer needs it.
func factOf(a Adapter, raw any, m snapshot.Message, thread string) fact {
	f := fact{thread: thread, role: internRole(m.Role), hasParts: len(m.Parts) > 0}
	at, err := time.Parse(time.RFC3339Nano, m.Time)
	f.at, f.timed = at, err == nil
	if cmds, ok := a.(commandReader); ok {
		f.command, f.input = cmds.IsCommand(raw), cmds.IsInput(raw)
	}
	if a != nil {
		f.prompt = a.IsPrompt(raw)
	} else {
		f.prompt = m.Role == "user" && len(m.Parts) > 0 && m.Parts[0].Kind == snapshot.PartText
	}
	f.compaction = isCompaction(raw)
	switch {
	case f.command:
		f.said = &said{text: short(snapshot.ContentText(firstText(m)), 80)}
	case f.prompt:
		text := promptText(m)
		h := fnv.New64a()
		_, _ = h.Write([]byte(text))
		f.said = &said{kind: recordKind(raw), key: h.Sum64(), text: short(text, 80)}
	}
	f.answer = strings.TrimSpace(firstText(m)) != ""
	for _, p := range m.Parts {
		switch p.Kind {
		case snapshot.PartToolResult:
			f.parts = append(f.parts, toolPart{callID: p.CallID, result: true, failed: p.IsError})
		case snapshot.PartToolCall:
			f.parts = append(f.parts, toolPart{callID: p.CallID, tool: p.Tool})
		}
	}
	return f
}

// facts are the session's records read for the tracer: kept by Scan,
// read from Records and Views otherwise.
func (r *Session) factsOf() []fact {
	if r.facts != nil || len(r.Records) == 0 {
		return r.facts
	}
	out := make([]fact, len(r.Records))
	for i, rec := range r.Records {
		out[i] = factOf(r.Agent, rec, r.Views[i], r.Thread[i])
	}
	return out
}

// Scan reads a stored document one record at a time into a Session
// whose numbers and trace are Read's, without keeping the records: a
// session of 50,000 records is tens of MB of records, and its numbers
// need a few bytes of each. Records and Views of its Session stay nil.
type Scan struct {
	s     *Session
	calls snapshot.CallReader
}

// NewScan starts a Scan of a document whose members but its messages
// are rest (events and files are read from it); a is the agent that
// recorded it, nil for a harness.
func NewScan(rest map[string]any, a Adapter) *Scan {
	s := &Session{Agent: a, facts: []fact{}}
	s.Events, _ = rest[snapshot.MemberEvents].([]any)
	files, _ := rest[snapshot.MemberFiles].(map[string]any)
	s.Files = len(files)
	return &Scan{s: s}
}

// Reserve makes room for n records, so that a Scan of a long session
// holds no more than it needs.
func (sc *Scan) Reserve(n int) {
	sc.s.facts = slices.Grow(sc.s.facts, n)
	sc.s.Index = slices.Grow(sc.s.Index, n)
	sc.s.Thread = slices.Grow(sc.s.Thread, n)
}

// Add reads the next live record: raw, stored at index, in the file
// thread (see Session.Thread; "" for the main one), and returns its view.
func (sc *Scan) Add(index int, thread string, raw any) snapshot.Message {
	var m snapshot.Message
	if _, skip := raw.(snapshot.Unchanged); !skip {
		m = ViewMessage(raw)
		sc.calls.Add(len(sc.s.Index), m)
	}
	sc.s.Index = append(sc.s.Index, index)
	sc.s.Thread = append(sc.s.Thread, thread)
	sc.s.facts = append(sc.s.facts, factOf(sc.s.Agent, raw, m, thread))
	return m
}

// Session is what the scan read.
func (sc *Scan) Session() *Session {
	sc.s.Calls = sc.calls.Calls()
	return sc.s
}

// LiveIndex lists which of a document's n stored messages are live
// (see Session), in order, with the file each came from, reading only
// the document's other members (rest). ok is false when the records
// themselves say it (an agent whose transcript appends changes to
// records, Gemini CLI's JSONL chat): then read them all (LiveMessages).
func LiveIndex(rest map[string]any, n int) (index []int, thread []string, ok bool) {
	stub := make([]any, n)
	doc := map[string]any{snapshot.MemberMessages: stub}
	for k, v := range rest {
		if k != snapshot.MemberMessages {
			doc[k] = v
		}
	}
	if name, _ := rest["agent"].(string); name != "" {
		if a, err := Lookup(name, Env{}); err == nil {
			if _, reduces := a.(liveReducer); reduces {
				if _, state := docStateFrom(rest); !state {
					if l, err := LayoutFrom(rest); err == nil && len(l.Runs) > 0 {
						return nil, nil, false
					}
				}
			}
		}
	}
	_, index, thread = liveRecords(doc)
	return index, thread, true
}

// internRole is the role as one string of those agents write, so that a
// Scan of many records keeps one copy of each.
func internRole(r string) string {
	for _, known := range [...]string{"user", "assistant", "model", "tool", "system", "developer", "human"} {
		if r == known {
			return known
		}
	}
	return r
}
