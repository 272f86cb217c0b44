package snapshot

import (
	"cmp"
	"slices"
	"strings"
)

// Kinds of message parts, shared by every agent's format.
const (
	PartText       = "text"
	PartThinking   = "thinking"
	PartToolCall   = "tool_call"
	PartToolResult = "tool_result"
	PartOther      = "other"
)

// Message is a read-only view of one stored message, normalised so that
// show, diff and stats treat every agent's format the same way. It never
// replaces the stored JSON.
type Message struct {
	ID    string
	Role  string
	Time  string
	Parts []Part
	Usage *Usage // nil when the message records no usage
	// UsageKey groups messages that belong to one model call (an API
	// response split over several records), so that its usage is counted
	// once.
	UsageKey string
	// Model is the model that produced the message, when recorded.
	Model string
	// TotalUsage is a running total of the whole session's tokens, which
	// some agents record after each model call (Codex's token_count).
	TotalUsage *Usage
	// TotalSpans says the running total may come after several responses
	// (Droid writes its session's totals as a turn ends): each response
	// since the total before, by its UsageKey, is a call, the tokens on
	// the last.
	TotalSpans bool
	// RunTotals is set on a record that sums up one run of the agent
	// (Copilot CLI's session.shutdown). It holds that run's model calls
	// and tokens per model. These totals are used for a session whose
	// records report no input tokens for any call (see ModelCalls).
	RunTotals []RunModel
}

// RunModel is what one run of an agent spent on one model: the number of
// model calls and their tokens.
type RunModel struct {
	Model string
	Calls int
	Usage Usage
}

// Part is one piece of a message.
type Part struct {
	Kind    string
	Text    string // text, thinking, or a tool result's output
	Tool    string // the tool name, for a tool call
	CallID  string // links a tool result to its call
	Input   any    // a tool call's input
	IsError bool   // the tool result reports a failure
}

// Usage is the token count of one model call, with each kind counted
// separately: uncached input, input read from the prompt cache, input
// written to the cache, and output. The kinds are priced differently,
// and summing them would report millions of "input" tokens for a
// session that sent hundreds.
type Usage struct {
	Input      int64
	CacheRead  int64
	CacheWrite int64
	Output     int64
	// CacheWrite1h is the part of CacheWrite written to the one-hour
	// cache (Anthropic's ephemeral_1h_input_tokens), which has its own
	// price.
	CacheWrite1h int64 `json:",omitzero"`
	// Long is the part of the counts above that came from calls with a
	// long prompt. Long[i] covers the calls whose prompt (input, cache
	// reads and cache writes) was over LongContext[i] tokens but not
	// over the next threshold, since prices change above each threshold.
	Long [len(LongContext)]Tokens `json:",omitzero"`
}

// LongContext lists the prompt sizes above which some models' prices
// change (LiteLLM's *_above_128k_tokens, _200k_, _272k_).
var LongContext = [...]int64{128_000, 200_000, 272_000}

// Tokens holds token counts of each kind.
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

// Kinds returns o's counts of each kind.
func (o Usage) Kinds() Tokens {
	return Tokens{o.Input, o.CacheRead, o.CacheWrite, o.CacheWrite1h, o.Output}
}

// Total returns the number of tokens of all kinds.
func (o Usage) Total() int64 { return o.Input + o.CacheRead + o.CacheWrite + o.Output }

// Less returns o minus the tokens t.
func (o Usage) Less(t Tokens) Usage {
	o.Input -= t.Input
	o.CacheRead -= t.CacheRead
	o.CacheWrite -= t.CacheWrite
	o.CacheWrite1h -= t.CacheWrite1h
	o.Output -= t.Output
	return o
}

// OfCall treats o as the usage of one model call and returns it with its
// tokens also counted in the Long entry that matches its prompt size.
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

// Remove subtracts u, previously added, from o. It is the inverse of
// Add.
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

// Sub returns o minus u, kind by kind, such as a running total minus an
// earlier one. The result's Long is left empty.
func (o Usage) Sub(u Usage) Usage {
	return Usage{Input: o.Input - u.Input, CacheRead: o.CacheRead - u.CacheRead, CacheWrite: o.CacheWrite - u.CacheWrite,
		Output: o.Output - u.Output, CacheWrite1h: o.CacheWrite1h - u.CacheWrite1h}
}

// Viewer reads a stored message as a Message. Agents write records in
// their own shapes (a Claude Code record wraps its message, a Codex line
// wraps its payload); package agent provides a Viewer for those. A nil
// Viewer means ViewMessage.
type Viewer func(v any) Message

func (view Viewer) orGeneric() Viewer {
	if view == nil {
		return ViewMessage
	}
	return view
}

// ViewMessage reads a stored message in the common shapes: a plain
// {role, content|parts} object (with the role taken from "type" when
// there is no "role"), Anthropic content blocks, and OpenAI tool_calls.
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

// ContentParts returns the parts of a message object. They come from its
// content (a string, or a list of Anthropic or OpenAI blocks) or else its
// parts, followed by its OpenAI tool_calls. The parts of a tool message
// are tool results.
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

// ContentText flattens a content value to text: a string is returned
// as is, a list yields its text blocks one per line, and anything else
// yields its JSON.
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

// Int returns v as an int64. v may be a parsed Number or a Go number
// (float64, int, int64). Anything else, or a Number out of range,
// returns 0.
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
	// InputTokens counts uncached input only; cache reads and writes are
	// counted separately.
	InputTokens      int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	OutputTokens     int64
	// ByModel holds the token usage per model ("" when a call names no
	// model), so that a cost can be computed.
	ByModel map[string]Usage
	// Estimated is true when some model calls recorded no usage, so their
	// tokens were estimated from text length (about four bytes a token).
	Estimated bool
}

// ComputeStats summarises a document's messages, read by view (nil means
// ViewMessage). Model calls and their tokens are counted as ModelCalls
// counts them.
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
		s.ModelCalls += c.Count
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
// For a session counted from the totals of its runs, a Call is instead
// all of one run's calls to one model.
type Call struct {
	// Records are the indexes of the messages that hold the response, in
	// order. For a call known from a running total, they are the
	// responses the total covers followed by the record holding the
	// total.
	Records []int
	ID      string // the response's id (UsageKey), when recorded
	Model   string
	Time    string // the time of its first record
	Usage   Usage
	// Estimated is true when the call recorded no usage and its output
	// tokens were estimated from its text.
	Estimated bool
	// Count is the number of model calls it stands for: 1, or a run's
	// count (RunTotals).
	Count int
}

// ModelCalls returns the model calls of a conversation, in the order of
// their first records:
//
//   - When running totals are recorded (Codex's token_count), each total
//     that differs from the previous one is a call, and its tokens are
//     the difference. A total equal to the previous one is the same event
//     written again, since every call reads some input.
//     A total covers the responses written since the previous total. But
//     if an input came between those responses and the total, it covers
//     the responses that follow it instead, because some releases (Codex
//     0.39) write a call's total before its response.
//   - Otherwise, when the records report no input tokens for any call
//     but sum up the agent's runs (RunTotals), each run's calls to each
//     model become one Call with that Count. Copilot CLI, before it
//     recorded usage per call, wrote only output counts and each run's
//     totals at the end of the run.
//   - Otherwise, assistant records sharing a UsageKey are one response,
//     even with other records between them, and the last usage recorded
//     counts, because streamed records repeat the usage and the first
//     has a partial output count. Assistant records without a key are one
//     response until a record of another conversation role (user, tool,
//     developer, system) comes between them, because an agent sends its
//     inputs and then reads a new response.
//
// CallGroups, RunningTotals and the handling of run totals implement
// these rules. agent.Tally, which counts records as they arrive, follows
// the same rules.
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

// CallReader finds model calls as ModelCalls does, one message at a
// time, so that a reader of a long session does not need to keep all
// its messages. Call Add for each message in order, with its index, then
// call Calls.
type CallReader struct {
	resp     responses
	g        CallGroups
	openCall int32 // the call without a key that is still being read
	// Calls found from running totals, which take precedence when there
	// are any.
	rt         RunningTotals
	totals     []Call
	unmeasured []int // responses not yet covered by a total
	// unmeasuredKeys are their UsageKeys, for a total that spans them
	// (Message.TotalSpans).
	// They are kept in one buffer: with no totals, every response of a
	// long session stays unmeasured.
	unmeasuredKeys keyList
	// inputAfter reports whether an input came after the last of
	// unmeasured.
	inputAfter bool
	// earlyTotal is the index in totals of a total that was read before
	// its responses, when hasEarlyTotal is set.
	earlyTotal    int
	hasEarlyTotal bool
	// Calls found from the totals of runs, which take precedence when no
	// call reports input tokens.
	runs    []Call
	runResp []int // responses since the last run's totals
}

// Add reads message m, whose index is i.
func (r *CallReader) Add(i int, m Message) {
	r.addTotal(i, m)
	r.addRun(i, m)
	n, seen := r.resp.find(m.UsageKey)
	switch r.g.Join(m, seen) {
	case NotACall:
		return
	case OpenCall:
		n = r.openCall
	case NewCall:
		n = r.resp.add(i, m, r.g.Model(m))
		if m.UsageKey == "" {
			r.openCall = n
		}
	}
	r.resp.read(n, i, m)
}

// isResponse reports whether m is a record of a model's response, not a
// total or an input.
func isResponse(m Message) bool {
	return m.TotalUsage == nil && (m.Role == "assistant" || m.Role == "model")
}

// isInput reports whether m is an input to the conversation.
func isInput(m Message) bool {
	switch m.Role {
	case "user", "tool", "human", "developer", "system":
		return true
	}
	return false
}

// addTotal reads message m, at index i, for the running-totals rule (see
// ModelCalls). A total covers the responses before it, unless an input
// came after them. In that case the responses belong to the early total
// read before them, and the new total becomes the early total that
// waits for its own responses.
func (r *CallReader) addTotal(i int, m Message) {
	model, u, ok := r.rt.Read(m)
	switch {
	case ok && m.TotalSpans:
		r.totals = append(r.totals, spanned(r.unmeasured, r.unmeasuredKeys.all(), i, model, m.Time, u)...)
		r.unmeasured, r.unmeasuredKeys, r.hasEarlyTotal = nil, keyList{}, false
	case ok:
		c := Call{Records: []int{i}, Model: model, Time: m.Time, Usage: u, Count: 1}
		switch {
		case len(r.unmeasured) > 0 && !r.inputAfter, len(r.unmeasured) > 0 && !r.hasEarlyTotal:
			c.Records = append(r.unmeasured, i)
			r.unmeasured, r.unmeasuredKeys, r.hasEarlyTotal = nil, keyList{}, false
		case len(r.unmeasured) > 0:
			p := &r.totals[r.earlyTotal]
			p.Records = append(p.Records, r.unmeasured...)
			r.unmeasured, r.unmeasuredKeys, r.earlyTotal = nil, keyList{}, len(r.totals)
		default:
			r.earlyTotal, r.hasEarlyTotal = len(r.totals), true
		}
		r.totals = append(r.totals, c)
	case isResponse(m):
		r.unmeasured, r.inputAfter = append(r.unmeasured, i), false
		r.unmeasuredKeys.add(m.UsageKey)
	case isInput(m) && len(r.unmeasured) > 0:
		r.inputAfter = true
	}
}

// spanned splits the responses a total spans (Message.TotalSpans) into
// one call per UsageKey, in order, with the total's tokens and record
// (total) on the last.
func spanned(since []int, keys []string, total int, model, at string, u Usage) []Call {
	var out []Call
	byKey := map[string]int{}
	for j, rec := range since {
		n, seen := byKey[keys[j]]
		if !seen || keys[j] == "" {
			n = len(out)
			byKey[keys[j]] = n
			out = append(out, Call{ID: keys[j], Model: model, Time: at, Count: 1})
		}
		out[n].Records = append(out[n].Records, rec)
	}
	if len(out) == 0 {
		out = append(out, Call{Model: model, Time: at, Count: 1})
	}
	last := &out[len(out)-1]
	last.Records, last.Usage = append(last.Records, total), u
	return out
}

// addRun reads message m, at index i, for the run-totals rule: a run's
// totals cover the responses since the previous run's totals.
func (r *CallReader) addRun(i int, m Message) {
	switch {
	case len(m.RunTotals) > 0:
		for k, rm := range m.RunTotals {
			c := Call{Records: []int{i}, Model: rm.Model, Time: m.Time, Usage: rm.Usage, Count: rm.Calls}
			if k == 0 {
				c.Records = append(r.runResp, i)
			}
			r.runs = append(r.runs, c)
		}
		r.runResp = nil
	case isResponse(m):
		r.runResp = append(r.runResp, i)
	}
}

// Calls returns the model calls of the messages added so far: the calls
// from running totals when there are any; otherwise the calls from the
// runs' totals when no call reports input tokens; otherwise the
// responses.
func (r *CallReader) Calls() []Call {
	if len(r.totals) > 0 {
		out := r.totals
		if len(r.unmeasured) > 0 && r.hasEarlyTotal { // the last responses came after their total
			out = slices.Clone(out)
			out[r.earlyTotal].Records = append(slices.Clone(out[r.earlyTotal].Records), r.unmeasured...)
		}
		return out
	}
	if len(r.runs) > 0 && !r.resp.readInput() {
		return r.runs
	}
	out := make([]Call, r.resp.len())
	for n := range out {
		out[n] = r.resp.call(n)
	}
	return out
}

// Each gives the calls Calls returns to fn, in order, each made as it is
// given: a reader of a long session's calls need not hold them all as
// Call values.
func (r *CallReader) Each(fn func(c Call)) {
	if len(r.totals) > 0 || len(r.runs) > 0 && !r.resp.readInput() {
		for _, c := range r.Calls() {
			fn(c)
		}
		return
	}
	for n := range r.resp.len() {
		fn(r.resp.call(n))
	}
}

// CallGroups is the state kept from one record to the next while
// grouping records into model calls (ModelCalls): whether a call without
// a key is still being read, and the model named by the last record
// that is not a response (Codex's turn_context).
type CallGroups struct {
	Open  bool
	Named string
}

// Joined describes how a record relates to the model calls read so far.
type Joined int

// The results of Join.
const (
	NotACall Joined = iota // not a response, so not part of any call
	NewCall                // the first record of a call
	SameCall               // another record of the call with the same UsageKey
	OpenCall               // another record of the call without a key that is still being read
)

// Join reads one record and reports how it relates to the calls read so
// far. seen reports whether a call with the record's UsageKey was read
// before.
func (g *CallGroups) Join(m Message, seen bool) Joined {
	switch m.Role {
	case "assistant", "model":
	case "user", "tool", "human", "developer", "system":
		g.Open = false
		g.Named = cmp.Or(m.Model, g.Named)
		return NotACall
	default: // progress lines and events are not part of the conversation
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

// Model returns the model of a new call that starts with m.
func (g *CallGroups) Model(m Message) string { return cmp.Or(m.Model, g.Named) }

// CallSaid is what a call's records have reported about it so far: its
// model and its usage. The usage is the last one recorded or, when no
// record has one, an estimate from the first record's text.
type CallSaid struct {
	Model     string
	Usage     Usage // as recorded; OfCall fills in Long
	Estimated bool
}

// Read adds another record of the call.
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

// RunningTotals finds model calls from running totals as ModelCalls
// does, one record at a time. Prev is the last total that produced a
// call, and Model is the model named by the last record that is not a
// response.
type RunningTotals struct {
	Prev  Usage
	Model string
}

// Read reads one record. If the record holds a new total, Read returns
// the call it stands for: its model and tokens (with Long set by OfCall).
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

// fromTotals returns the model calls found from running totals
// (RunningTotals). A call's records are the assistant records since the
// previous call (the response), followed by the total itself.
func fromTotals(msgs []any, view Viewer) []Call {
	var r CallReader
	for i, raw := range msgs {
		if _, skip := raw.(Unchanged); !skip {
			r.Add(i, view(raw))
		}
	}
	return r.totals
}

// RunningTotal returns the last running total of tokens, which some
// agents such as Codex record after each model call, and the number of
// model calls the totals record.
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
