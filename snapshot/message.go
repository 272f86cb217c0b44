package snapshot

import (
	"cmp"
	"strings"
)

// Part kinds of a message, the same for every agent's format.
const (
	PartText       = "text"
	PartThinking   = "thinking"
	PartToolCall   = "tool_call"
	PartToolResult = "tool_result"
	PartOther      = "other"
)

// Message is a read-only view of one stored message, normalised so that
// show, diff and stats treat every agent's format alike. The stored JSON
// is never replaced by it.
type Message struct {
	ID    string
	Role  string
	Time  string
	Parts []Part
	Usage *Usage // nil when the message records none
	// UsageKey groups messages that share one model call (an API response
	// split over several records), so that its usage counts once.
	UsageKey string
	// Model that produced the message, when recorded.
	Model string
	// TotalUsage is a running total of the whole session's tokens, as
	// some agents record after each model call (Codex's token_count).
	TotalUsage *Usage
	// TotalSpans says the running total may come after several responses
	// (Droid writes its session's totals as a turn ends): each response
	// since the total before, by its UsageKey, is a call, the tokens on
	// the last.
	TotalSpans bool
}

// Part is one piece of a message.
type Part struct {
	Kind    string
	Text    string // text, thinking, or a tool result's output
	Tool    string // tool name of a call
	CallID  string // links a tool result to its call
	Input   any    // a tool call's input
	IsError bool   // a failed tool result
}

// Usage is the token count of one model call, each kind apart: input
// the model read anew, input read from the prompt cache, input written to
// it, and output. They are priced differently, and a sum of them reads
// as millions of "input" tokens for a session that sent hundreds.
type Usage struct {
	Input      int64
	CacheRead  int64
	CacheWrite int64
	Output     int64
	// CacheWrite1h is the part of CacheWrite written to the one-hour
	// cache (Anthropic's ephemeral_1h_input_tokens), priced apart.
	CacheWrite1h int64 `json:",omitzero"`
	// Long is the part of the above that calls with a long prompt made:
	// Long[i] is that of the calls whose prompt (input, cache reads and
	// writes) was over LongContext[i] tokens and not over the next
	// threshold, since prices change above such thresholds.
	Long [len(LongContext)]Tokens `json:",omitzero"`
}

// LongContext are the prompt sizes above which some models' prices change
// (LiteLLM's *_above_128k_tokens, _200k_, _272k_).
var LongContext = [...]int64{128_000, 200_000, 272_000}

// Tokens are token counts of each kind.
type Tokens struct {
	Input, CacheRead, CacheWrite, CacheWrite1h, Output int64
}

func (t *Tokens) add(u Tokens) {
	t.Input += u.Input
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.CacheWrite1h += u.CacheWrite1h
	t.Output += u.Output
}

// Kinds is u's counts of each kind.
func (o Usage) Kinds() Tokens {
	return Tokens{o.Input, o.CacheRead, o.CacheWrite, o.CacheWrite1h, o.Output}
}

// Total is the number of tokens of every kind.
func (o Usage) Total() int64 { return o.Input + o.CacheRead + o.CacheWrite + o.Output }

// Less is o without the tokens t.
func (o Usage) Less(t Tokens) Usage {
	o.Input -= t.Input
	o.CacheRead -= t.CacheRead
	o.CacheWrite -= t.CacheWrite
	o.CacheWrite1h -= t.CacheWrite1h
	o.Output -= t.Output
	return o
}

// OfCall is the usage of one model call with its tokens placed in the
// long-context part its prompt's size says.
func (o Usage) OfCall() Usage {
	o.Long = [len(LongContext)]Tokens{}
	prompt := o.Input + o.CacheRead + o.CacheWrite
	for i := len(LongContext) - 1; i >= 0; i-- {
		if prompt > LongContext[i] {
			o.Long[i] = o.Kinds()
			break
		}
	}
	return o
}

// Add adds u to o.
func (o *Usage) Add(u Usage) {
	o.Input += u.Input
	o.CacheRead += u.CacheRead
	o.CacheWrite += u.CacheWrite
	o.Output += u.Output
	o.CacheWrite1h += u.CacheWrite1h
	for i := range o.Long {
		o.Long[i].add(u.Long[i])
	}
}

// Remove takes u, added before, out of o again: Add's inverse.
func (o *Usage) Remove(u Usage) {
	o.Input -= u.Input
	o.CacheRead -= u.CacheRead
	o.CacheWrite -= u.CacheWrite
	o.Output -= u.Output
	o.CacheWrite1h -= u.CacheWrite1h
	for i := range o.Long {
		o.Long[i] = Tokens{o.Long[i].Input - u.Long[i].Input, o.Long[i].CacheRead - u.Long[i].CacheRead, o.Long[i].CacheWrite - u.Long[i].CacheWrite,
			o.Long[i].CacheWrite1h - u.Long[i].CacheWrite1h, o.Long[i].Output - u.Long[i].Output}
	}
}

// Sub is o minus u, kind by kind (a running total less an earlier one).
func (o Usage) Sub(u Usage) Usage {
	return Usage{Input: o.Input - u.Input, CacheRead: o.CacheRead - u.CacheRead, CacheWrite: o.CacheWrite - u.CacheWrite,
		Output: o.Output - u.Output, CacheWrite1h: o.CacheWrite1h - u.CacheWrite1h}
}

// Viewer reads a stored message as a Message. Agents write records of
// their own shapes (a Claude Code record wraps its message, a Codex line
// its payload); package agent has a Viewer for those. A nil Viewer is
// ViewMessage.
type Viewer func(v any) Message

func (view Viewer) orGeneric() Viewer {
	if view == nil {
		return ViewMessage
	}
	return view
}

// ViewMessage reads a stored message in the common shapes: a plain
// {role, content|parts} object (role taken from type when it has none),
// Anthropic content blocks, OpenAI tool_calls.
func ViewMessage(v any) Message {
	obj, _ := v.(map[string]any)
	m := Message{ID: str(obj, "id"), Time: firstStr(obj, "time", "timestamp", "ts")}
	if m.ID == "" {
		m.ID = str(obj, "uuid")
	}
	m.Role = firstStr(obj, "role", "type")
	m.Parts = ContentParts(obj)
	m.Model = str(obj, "model")
	if u, ok := obj["usage"].(map[string]any); ok {
		m.Usage = &Usage{
			Input:      num(u, "input_tokens") + num(u, "prompt_tokens"),
			CacheRead:  num(u, "cache_read_input_tokens"),
			CacheWrite: num(u, "cache_creation_input_tokens"),
			Output:     num(u, "output_tokens") + num(u, "completion_tokens"),
		}
		if cc, ok := u["cache_creation"].(map[string]any); ok {
			m.Usage.CacheWrite1h = num(cc, "ephemeral_1h_input_tokens")
		}
		m.UsageKey = m.ID
	}
	return m
}

// ContentParts reads the parts of a message object: its content (a
// string, or a list of Anthropic or OpenAI blocks), or its parts, and
// its OpenAI tool_calls; a tool message's parts are tool results.
func ContentParts(obj map[string]any) []Part {
	var parts []Part
	content := obj["content"]
	if content == nil {
		content = obj["parts"]
	}
	switch c := content.(type) {
	case string:
		parts = append(parts, Part{Kind: PartText, Text: c})
	case []any:
		for _, b := range c {
			parts = append(parts, blockPart(b))
		}
	}
	if calls, ok := obj["tool_calls"].([]any); ok {
		for _, c := range calls {
			co, _ := c.(map[string]any)
			fn, _ := co["function"].(map[string]any)
			parts = append(parts, Part{Kind: PartToolCall, Tool: str(fn, "name"), CallID: str(co, "id"), Input: fn["arguments"]})
		}
	}
	if obj["role"] == "tool" && len(parts) > 0 {
		for i := range parts {
			parts[i] = Part{Kind: PartToolResult, Text: parts[i].Text, CallID: str(obj, "tool_call_id")}
		}
	}
	return parts
}

func blockPart(b any) Part {
	o, ok := b.(map[string]any)
	if !ok {
		if s, ok := b.(string); ok {
			return Part{Kind: PartText, Text: s}
		}
		return Part{Kind: PartOther}
	}
	switch t := str(o, "type"); t {
	case "text", "input_text", "output_text", "summary_text", "reasoning_text", "":
		return Part{Kind: PartText, Text: str(o, "text")}
	case "thinking", "reasoning":
		return Part{Kind: PartThinking, Text: firstStr(o, "thinking", "text")}
	case "tool_use", "tool_call", "function_call", "server_tool_use":
		input := o["input"]
		if input == nil {
			input = o["arguments"]
		}
		return Part{Kind: PartToolCall, Tool: str(o, "name"), CallID: firstStr(o, "id", "call_id"), Input: input}
	case "tool_result", "function_call_output":
		isErr, _ := o["is_error"].(bool)
		return Part{Kind: PartToolResult, Text: ContentText(firstOf(o, "content", "output")), CallID: firstStr(o, "tool_use_id", "call_id"), IsError: isErr}
	default:
		return Part{Kind: PartOther, Text: t}
	}
}

// ContentText flattens a content value to its text: a string, the text
// blocks of a list one per line, or the JSON of anything else.
func ContentText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, e := range v {
			if p := blockPart(e); p.Kind == PartText {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(p.Text)
			}
		}
		return b.String()
	case nil:
		return ""
	}
	out, _ := Marshal(v)
	return string(out)
}

func firstOf(o map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := o[k]; ok {
			return v
		}
	}
	return nil
}

func str(o map[string]any, key string) string {
	s, _ := o[key].(string)
	return s
}

func firstStr(o map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(o, k); s != "" {
			return s
		}
	}
	return ""
}

func num(o map[string]any, key string) int64 { return Int(o[key]) }

// Int reads a number as parsed (Number) or as Go code built it (float64,
// int, int64); anything else, or a Number out of range, is 0.
func Int(v any) int64 {
	switch n := v.(type) {
	case Number:
		i, _ := n.Int64()
		return i
	case float64:
		return int64(n)
	case int:
		return int64(n)
	case int64:
		return n
	}
	return 0
}

// Stats summarises a document's conversation.
type Stats struct {
	Messages   int
	Events     int
	Files      int
	ToolCalls  int
	ModelCalls int
	// InputTokens is uncached input; cache reads and writes are apart.
	InputTokens      int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	OutputTokens     int64
	// ByModel is the tokens of each model ("" when a call names none),
	// so that a cost can be put on them.
	ByModel map[string]Usage
	// Estimated is true when some model calls recorded no usage, so their
	// tokens were estimated from text length (about four bytes a token).
	Estimated bool
}

// ComputeStats counts what a document's messages record, read by view
// (nil: ViewMessage). Model calls and their tokens are those of
// ModelCalls.
func ComputeStats(doc map[string]any, view Viewer) Stats {
	view = view.orGeneric()
	msgs, _ := doc[MemberMessages].([]any)
	events, _ := doc[MemberEvents].([]any)
	files, _ := doc[MemberFiles].(map[string]any)
	s := Stats{Messages: len(msgs), Events: len(events), Files: len(files), ByModel: map[string]Usage{}}
	for _, raw := range msgs {
		if _, skip := raw.(Unchanged); skip {
			continue
		}
		for _, p := range view(raw).Parts {
			if p.Kind == PartToolCall {
				s.ToolCalls++
			}
		}
	}
	for _, c := range ModelCalls(msgs, view) {
		s.ModelCalls++
		s.Estimated = s.Estimated || c.Estimated
		s.InputTokens += c.Usage.Input
		s.CacheReadTokens += c.Usage.CacheRead
		s.CacheWriteTokens += c.Usage.CacheWrite
		s.OutputTokens += c.Usage.Output
		u := s.ByModel[c.Model]
		u.Add(c.Usage)
		s.ByModel[c.Model] = u
	}
	return s
}

// Call is one model call (one API response) read from a conversation.
type Call struct {
	// Records are the indexes of the messages the response was written
	// in, in order; for a call known from a running total, the record
	// that carries it.
	Records []int
	ID      string // the response's id (UsageKey), when recorded
	Model   string
	Time    string // of its first record
	Usage   Usage
	// Estimated is true when the call recorded no usage and its output
	// tokens were estimated from its text.
	Estimated bool
}

// ModelCalls reads the model calls of a conversation, in the order their
// first records come:
//
//   - When running totals are recorded (Codex's token_count), each total
//     that differs from the one before is a call, and its tokens are the
//     difference. An equal total is the same event written again (a call
//     always reads some input).
//   - Otherwise assistant records sharing a UsageKey are one response,
//     even with other records between them, and the last usage recorded
//     counts: streamed records repeat it, the first with a partial output
//     count. Assistant records with no key are one response until a
//     record of another role in the conversation (user, tool, developer,
//     system) comes between them: an agent sends its inputs and reads a
//     new response after each.
//
// The rules are CallGroups' and RunningTotals', which a count kept as
// records come (agent.Tally) follows too.
func ModelCalls(msgs []any, view Viewer) []Call {
	view = view.orGeneric()
	var r CallReader
	for i, raw := range msgs {
		if _, skip := raw.(Unchanged); !skip {
			r.Add(i, view(raw))
		}
	}
	return r.Calls()
}

// CallReader reads model calls as ModelCalls does, one message at a
// time, so that a reader of a long session need not keep its messages:
// Add them in order, each with its index, then take the Calls.
type CallReader struct {
	calls []Call
	said  []CallSaid // each call's, as its records come
	byKey map[string]int
	g     CallGroups
	open  int // the key-less call still being read
	// the same from running totals, which win when there are any
	rt        RunningTotals
	totals    []Call
	since     []int    // the responses since the last total
	sinceKeys []string // their UsageKeys
}

// Add reads message i, m.
func (r *CallReader) Add(i int, m Message) {
	model, u, ok := r.rt.Read(m)
	switch {
	case ok && m.TotalSpans:
		r.totals = append(r.totals, spanned(r.since, r.sinceKeys, i, model, m.Time, u)...)
		r.since, r.sinceKeys = nil, nil
	case ok:
		r.totals = append(r.totals, Call{Records: append(r.since, i), Model: model, Time: m.Time, Usage: u})
		r.since, r.sinceKeys = nil, nil
	case m.TotalUsage == nil && (m.Role == "assistant" || m.Role == "model"):
		r.since, r.sinceKeys = append(r.since, i), append(r.sinceKeys, m.UsageKey)
	}
	if r.byKey == nil {
		r.byKey = map[string]int{}
	}
	_, seen := r.byKey[m.UsageKey]
	var n int
	switch r.g.Join(m, seen) {
	case NotACall:
		return
	case SameCall:
		n = r.byKey[m.UsageKey]
	case OpenCall:
		n = r.open
	case NewCall:
		n = len(r.calls)
		r.calls = append(r.calls, Call{ID: m.UsageKey, Time: m.Time})
		r.said = append(r.said, CallSaid{Model: r.g.Model(m)})
		if m.UsageKey != "" {
			r.byKey[m.UsageKey] = n
		} else {
			r.open = n
		}
	}
	r.calls[n].Records = append(r.calls[n].Records, i)
	r.said[n].Read(m)
}

// spanned splits the responses a total spans (Message.TotalSpans) into
// one call per UsageKey, in order, the total's tokens and record (total)
// on the last.
func spanned(since []int, keys []string, total int, model, at string, u Usage) []Call {
	var out []Call
	byKey := map[string]int{}
	for j, rec := range since {
		n, seen := byKey[keys[j]]
		if !seen || keys[j] == "" {
			n = len(out)
			byKey[keys[j]] = n
			out = append(out, Call{ID: keys[j], Model: model, Time: at})
		}
		out[n].Records = append(out[n].Records, rec)
	}
	if len(out) == 0 {
		out = append(out, Call{Model: model, Time: at})
	}
	last := &out[len(out)-1]
	last.Records, last.Usage = append(last.Records, total), u
	return out
}

// Calls are the model calls of the messages added: those of the running
// totals when there are any.
func (r *CallReader) Calls() []Call {
	if len(r.totals) > 0 {
		return r.totals
	}
	for i, s := range r.said {
		r.calls[i].Model, r.calls[i].Usage, r.calls[i].Estimated = s.Model, s.Usage.OfCall(), s.Estimated
	}
	return r.calls
}

// CallGroups is what grouping records into model calls (ModelCalls) keeps
// from one record to the next: whether a call with no key is still being
// read, and the model the last record that is no response named (Codex's
// turn_context).
type CallGroups struct {
	Open  bool
	Named string
}

// Joined says what a record is to the model calls read so far.
type Joined int

// What Join finds a record to be.
const (
	NotACall Joined = iota // not a response: no call's record
	NewCall                // the first record of a call
	SameCall               // another record of the call with its UsageKey
	OpenCall               // another record of the call with no key still being read
)

// Join reads one record: seen says a call with the record's UsageKey was
// read before.
func (g *CallGroups) Join(m Message, seen bool) Joined {
	switch m.Role {
	case "assistant", "model":
	case "user", "tool", "human", "developer", "system":
		g.Open = false
		g.Named = cmp.Or(m.Model, g.Named)
		return NotACall
	default: // progress lines, events: not part of the conversation
		g.Named = cmp.Or(m.Model, g.Named)
		return NotACall
	}
	switch {
	case m.UsageKey != "" && seen:
		return SameCall
	case m.UsageKey == "" && g.Open:
		return OpenCall
	}
	g.Open = m.UsageKey == ""
	return NewCall
}

// Model is the model a new call that starts with m is of.
func (g *CallGroups) Model(m Message) string { return cmp.Or(m.Model, g.Named) }

// CallSaid is what a call's records said of it so far: its model, and its
// usage, the last one recorded, or, when none records one, an estimate
// from the first record's text.
type CallSaid struct {
	Model     string
	Usage     Usage // as recorded: OfCall places it
	Estimated bool
}

// Read adds one more record of the call.
func (c *CallSaid) Read(m Message) {
	if c.Model == "" {
		c.Model = m.Model
	}
	if m.Usage != nil {
		c.Usage, c.Estimated = *m.Usage, false
	} else if c.Usage == (Usage{}) {
		c.Estimated = true
		c.Usage.Output += EstimateTokens(m)
	}
}

// RunningTotals reads model calls from running totals as ModelCalls
// does, one record at a time: Prev is the last total that made a call,
// Model the model the last record that is no response named.
type RunningTotals struct {
	Prev  Usage
	Model string
}

// Read reads one record, and returns the call its total makes, if any:
// its model and tokens (placed by OfCall).
func (rt *RunningTotals) Read(m Message) (model string, u Usage, ok bool) {
	if m.TotalUsage == nil {
		if m.Role != "assistant" && m.Role != "model" && m.Model != "" {
			rt.Model = m.Model
		}
		return "", Usage{}, false
	}
	if *m.TotalUsage == rt.Prev {
		return "", Usage{}, false
	}
	u = m.TotalUsage.Sub(rt.Prev).OfCall()
	rt.Prev = *m.TotalUsage
	return cmp.Or(m.Model, rt.Model), u, true // a total may name its model (Droid's)
}

// fromTotals reads model calls from running totals (RunningTotals). A
// call's records are the assistant records since the call before (what
// the response said), then the total itself.
func fromTotals(msgs []any, view Viewer) []Call {
	var r CallReader
	for i, raw := range msgs {
		if _, skip := raw.(Unchanged); !skip {
			r.Add(i, view(raw))
		}
	}
	return r.totals
}

// RunningTotal finds the last running total of tokens (some agents, as
// Codex, record one after each model call) and how many model calls they
// record.
func RunningTotal(msgs []any, view Viewer) (Usage, int) {
	calls := fromTotals(msgs, view.orGeneric())
	var total Usage
	for _, c := range calls {
		total.Add(c.Usage)
	}
	return total, len(calls)
}

// EstimateTokens guesses a message's token count from its text.
func EstimateTokens(m Message) int64 {
	n := 0
	for _, p := range m.Parts {
		n += len(p.Text) + len(p.Tool)
		if p.Input != nil {
			b, _ := Marshal(p.Input)
			n += len(b)
		}
	}
	return int64((n + 3) / 4)
}
