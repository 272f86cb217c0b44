package agent

import "github.com/git-snap/git-snap/snapshot"

// Reader reads a session's records as the agent its snapshot's header
// names (Source): its adapter's view first. Each record is viewed once
// (Read), and what show, the export and the viewer ask of it (is it
// conversation, a preamble, a subagent's) is answered from that view,
// not by asking the adapters again. A record the agent's adapter does
// not read, and every record of a session no agent recorded ("cli",
// "import", a harness), is read by the first adapter whose shape it has,
// as ViewMessage reads it. The zero Reader is such a session's.
type Reader struct {
	a Adapter // nil: no agent recorded the session
}

// ReaderFor reads the records of a session whose header's Source is
// source.
func ReaderFor(source string) Reader {
	a, _ := Lookup(source, Env{})
	return Reader{a: a}
}

// Record is a stored record as its agent reads it.
type Record struct {
	Raw any
	// Message is the record's view: its role, parts, time and usage.
	Message snapshot.Message
	by      Adapter // the adapter whose shape it has; nil for none
}

// Read views a stored record.
func (r Reader) Read(raw any) Record {
	if r.a != nil {
		if m, ok := r.a.View(raw); ok {
			return Record{Raw: raw, Message: m, by: r.a}
		}
	}
	if m, ok := viewExternal(raw); ok { // an external agent's record carries its view
		return Record{Raw: raw, Message: m}
	}
	for _, a := range viewers() {
		if r.a != nil && a.Name() == r.a.Name() {
			continue // asked above
		}
		if m, ok := a.View(raw); ok {
			return Record{Raw: raw, Message: m, by: a}
		}
	}
	return Record{Raw: raw, Message: snapshot.ViewMessage(raw)}
}

// IsPrompt reports whether a record is a prompt the user typed, as the
// session's agent says; in a session no agent recorded, a user message
// that starts with text.
func (r Reader) IsPrompt(rec Record) bool {
	if r.a != nil {
		return r.a.IsPrompt(rec.Raw)
	}
	m := rec.Message
	return m.Role == "user" && len(m.Parts) > 0 && m.Parts[0].Kind == snapshot.PartText
}

// IsCompaction reports whether a record marks where the conversation
// was compacted, as the session's agent says; in a session no agent
// recorded, as any agent says.
func (r Reader) IsCompaction(rec Record) bool {
	if r.a != nil {
		return r.a.IsCompaction(rec.Raw)
	}
	return isCompaction(rec.Raw)
}

// Threads is the session's agent as a reader of its subagents' threads;
// nil when it runs none, or no agent recorded the session.
func (r Reader) Threads() Threads {
	t, _ := r.a.(Threads)
	return t
}

// IsConversation reports whether the record is part of the
// conversation: a message of a conversational role (or of no role, with
// content). Progress lines, file-history notes, queue operations and
// other lifecycle records are not: they are counted where they would be
// shown.
func (rec Record) IsConversation() bool {
	m := rec.Message
	if m.Role == "" {
		return len(m.Parts) > 0
	}
	return conversationRoles[m.Role]
}

// Kind names what the record is, for the counts of those not shown: its
// role, or "(no role)".
func (rec Record) Kind() string {
	if rec.Message.Role != "" {
		return rec.Message.Role
	}
	return "(no role)"
}

// IsPreamble reports whether the record is a preamble the harness wrote
// (a system or developer message, context injected as the user's): show
// folds it unless --full, the export and the viewer fold it as context.
// The agent whose record it is decides, where it says (Preambler); else
// a system or developer message is one.
func (rec Record) IsPreamble() bool {
	if p, ok := rec.by.(Preambler); ok {
		return p.IsPreamble(rec.Raw)
	}
	r := rec.Message.Role
	return r == "system" || r == "developer"
}

// Thread names the subagent whose thread the record is in, as the agent
// whose record it is says (Threads); "" for the main thread.
func (rec Record) Thread() string {
	if t, ok := rec.by.(Threads); ok {
		return t.Thread(rec.Raw)
	}
	return ""
}
