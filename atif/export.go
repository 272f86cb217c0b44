// Package atif writes a stored session as an ATIF trajectory (the Agent
// Trajectory Interchange Format, Harbor RFC 0001) and reads one back.
//
// A trajectory holds what ATIF has fields for: user, system and agent
// steps, the agent's text, reasoning and tool calls, each call's result
// matched to it by id, per-step tokens, cost and model, and one embedded
// trajectory per subagent. Everything else (the agent's own records as
// written, their ids and fields, records that are not conversation, and
// the document's other members) is kept in `extra.git_snap` on the steps
// and on the trajectory, so that importing an exported trajectory gives
// back a JSON-equal document. A trajectory written by another tool has
// no such extension, so Import converts its steps into records of the
// common message shape.
package atif

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/snapshot"
)

// SchemaVersion is the ATIF version Export writes. (v1.8 differs from
// v1.7 only by the audio content part, which Export never writes.)
const SchemaVersion = "ATIF-v1.8"

// Extension is the member of `extra` that holds what ATIF has no fields
// for.
const Extension = "git_snap"

// extensionFormat versions the extension's layout.
const extensionFormat = 1

// Options configure Export.
type Options struct {
	// Source names the agent that recorded the document (its adapter);
	// "" means the document's "agent" member.
	Source string
	// Session is the trajectory's session_id when the document has no
	// session_id member.
	Session string
	// Prices is used to price each step's tokens; nil means the
	// built-in list.
	Prices *prices.Prices
}

// Export converts doc into a trajectory: a JSON value (maps, slices and
// the values snapshot.Parse returns) for snapshot.MarshalIndent.
//
// A document that Import made from a trajectory written by another tool,
// and that has not changed since, is exported as that same trajectory.
func Export(doc map[string]any, o Options) (map[string]any, error) {
	if t, ok := original(doc); ok {
		return t, nil
	}
	if o.Source == "" {
		o.Source, _ = doc["agent"].(string)
	}
	if o.Prices == nil {
		o.Prices = prices.Default()
	}
	r := agent.ReadAs(doc, o.Source)
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	b := &builder{r: r, table: o.Prices, msgs: msgs, carried: make([]bool, len(msgs)), stepOf: map[int]*step{}, callIDs: map[string]bool{}}
	threads := b.threads()
	b.linkSubagents(threads)
	built := make([][]*step, len(threads))
	for i, t := range threads {
		built[i] = b.trajectory(t)
	}
	b.assignCalls(threads)
	root := b.stepsJSON(built[0])
	var subs []any
	for i, t := range threads[1:] {
		sub := b.stepsJSON(built[i+1])
		sub["trajectory_id"] = t.name
		sub["schema_version"] = SchemaVersion
		subs = append(subs, sub)
	}
	session, _ := doc["session_id"].(string)
	if session == "" {
		session = o.Session
	}
	if session != "" {
		root["session_id"] = session
	}
	name := o.Source
	if name == "" {
		name = "unknown"
	}
	ag := map[string]any{"name": name, "version": agentVersion(r)}
	n := r.Numbers()
	if m := mainModel(n.ByModel); m != "" {
		ag["model_name"] = m
	}
	root["agent"] = ag
	for _, s := range subs {
		s.(map[string]any)["agent"] = ag
		if session != "" {
			s.(map[string]any)["session_id"] = session
		}
	}
	if len(subs) > 0 {
		root["subagent_trajectories"] = subs
	}
	root["final_metrics"] = b.finalMetrics(n, countSteps(root, subs))
	root["notes"] = "Written by git-snap export --format atif. extra." + Extension +
		" keeps the agent's records as written and the document's other members, which ATIF has no fields for; git snap import --from atif restores the session from them." +
		" final_metrics.total_steps counts the subagent trajectories' steps too. A tool call the agent wrote no id for (or one an earlier call has) is given one made from its record's place, git-snap-<record>-<part>."
	ext := map[string]any{"format": extensionFormat}
	rest := map[string]any{}
	for k, v := range doc {
		if k != snapshot.MemberMessages {
			rest[k] = v
		}
	}
	ext["document"] = rest
	if _, ok := doc[snapshot.MemberMessages]; ok {
		ext["messages"] = len(msgs)
	}
	var orphans []any
	for i, done := range b.carried {
		if !done {
			orphans = append(orphans, []any{i, msgs[i]})
		}
	}
	if len(orphans) > 0 {
		ext["records"] = orphans
	}
	root["extra"] = map[string]any{Extension: ext}
	root["schema_version"] = SchemaVersion
	return root, nil
}

// Marshal exports doc and encodes the trajectory as indented JSON.
func Marshal(doc map[string]any, o Options) ([]byte, error) {
	t, err := Export(doc, o)
	if err != nil {
		return nil, err
	}
	data, err := snapshot.MarshalIndent(t)
	if err != nil {
		return nil, fmt.Errorf("atif: %w", err)
	}
	return data, nil
}

func countSteps(root map[string]any, subs []any) int {
	n := len(root["steps"].([]any))
	for _, s := range subs {
		n += len(s.(map[string]any)["steps"].([]any))
	}
	return n
}

// thread holds one file's records: the session's own (name "") or a
// subagent's.
type thread struct {
	name    string
	records []int // indexes into Session.Records
}

type builder struct {
	r       *agent.Session
	table   *prices.Prices
	msgs    []any         // the document's stored messages
	carried []bool        // stored messages a step carries
	stepOf  map[int]*step // record → the step that carries it
	// spawned maps the tool call id of each subagent call to the
	// trajectory_id of the subagent it ran, for agents that record it
	// (agent.Threads).
	spawned map[string]string
	// callIDs holds the tool_call_ids written so far, so that each is
	// unique across the trajectory and its subagents'.
	callIDs map[string]bool
}

// threads lists the records by file, the session's own first.
func (b *builder) threads() []thread {
	out := []thread{{name: ""}}
	at := map[string]int{"": 0}
	for k := range b.r.Records {
		name := b.r.Thread[k]
		i, ok := at[name]
		if !ok {
			i = len(out)
			at[name] = i
			out = append(out, thread{name: name})
		}
		out[i].records = append(out[i].records, k)
	}
	return out
}

// isPrompt reports whether record k is a prompt by its agent's rules
// (Codex's prompts are events, not messages of the conversation).
func (b *builder) isPrompt(k int) bool {
	return b.r.Agent != nil && b.r.Agent.IsPrompt(b.r.Record(k))
}

// linkSubagents fills in spawned from what the agent records: which
// subagent each call ran, and which subagent each file belongs to.
func (b *builder) linkSubagents(threads []thread) {
	th, ok := b.r.Agent.(agent.Threads)
	if !ok {
		return
	}
	file := map[string]string{} // subagent → its thread's name
	for _, t := range threads[1:] {
		for _, k := range t.records {
			if id := th.Thread(b.r.Record(k)); id != "" {
				file[id] = t.name
				break
			}
		}
	}
	b.spawned = map[string]string{}
	for k := range b.r.Records {
		if call, id := th.Spawned(b.r.Record(k)); id != "" && file[id] != "" {
			b.spawned[call] = file[id]
		}
	}
}

// step is a trajectory step being built.
type step struct {
	source    string
	time      string
	text      []string
	reasoning []string
	calls     []any
	results   []any
	key       string // the model response's id, for agent steps
	records   []any  // [stored index, record] pairs
	usage     snapshot.Usage
	model     string
	llmCalls  int
	estimated bool
}

func (s *step) carry(b *builder, k int) {
	i := b.r.Index[k]
	if i >= 0 && i < len(b.carried) && !b.carried[i] {
		b.carried[i] = true
		s.records = append(s.records, []any{i, b.msgs[i]}) // as stored: a live record may be read out of it
	}
}

// parts holds a record's parts by kind, leaving out text and reasoning
// that are only whitespace.
type parts struct {
	text, thinking []string
	calls, results []snapshot.Part
}

func split(v snapshot.Message) parts {
	var p parts
	for _, x := range v.Parts {
		switch x.Kind {
		case snapshot.PartText:
			if strings.TrimSpace(x.Text) != "" {
				p.text = append(p.text, x.Text)
			}
		case snapshot.PartThinking:
			if strings.TrimSpace(x.Text) != "" {
				p.thinking = append(p.thinking, x.Text)
			}
		case snapshot.PartToolCall:
			p.calls = append(p.calls, x)
		case snapshot.PartToolResult:
			p.results = append(p.results, x)
		}
	}
	return p
}

// threadSteps is the state of trajectory while it reads one thread.
type threadSteps struct {
	b         *builder
	steps     []*step
	callStep  map[string]*step  // tool call id → the step that made it
	written   map[string]string // tool call id → the tool_call_id it is written with
	cur       *step
	lastInput bool // an input came since the last agent step
}

func (ts *threadSteps) add(s *step) *step {
	ts.steps = append(ts.steps, s)
	return s
}

// trajectory builds the steps of one thread.
func (b *builder) trajectory(t thread) []*step {
	ts := &threadSteps{b: b, callStep: map[string]*step{}, written: map[string]string{}, lastInput: true}
	var pending []int // records before the first step
	for _, k := range t.records {
		into := ts.place(k)
		if into == nil {
			pending = append(pending, k)
			continue
		}
		for _, p := range pending {
			into.carry(b, p)
		}
		pending = nil
		into.carry(b, k)
		b.stepOf[k] = into
	}
	return ts.steps
}

// place adds record k to the steps and returns the step that carries
// it, or nil when k comes before the first step.
func (ts *threadSteps) place(k int) *step {
	v := ts.b.r.Views[k]
	p := split(v)
	prompt := ts.b.isPrompt(k)
	switch {
	case v.Role == "assistant" && len(v.Parts) > 0:
		return ts.agent(k, v, p)
	case len(p.results) > 0:
		return ts.results(v, p)
	case len(p.text) > 0 && (v.Role == "user" || v.Role == "system" || v.Role == "developer" || prompt):
		src := "system"
		if v.Role == "user" || prompt {
			src = "user"
		}
		if c := ts.cur; c != nil && c.source == src && ts.lastInput && slices.Equal(c.text, p.text) {
			return c // the same input written twice (Codex 0.169's prompt as two events)
		}
		ts.cur = ts.add(&step{source: src, time: v.Time, text: p.text})
		ts.lastInput = true
		return ts.cur
	}
	return ts.cur
}

// agent adds an assistant record to the current agent step, or to a new
// one when an input came in between or the record belongs to another
// response.
func (ts *threadSteps) agent(k int, v snapshot.Message, p parts) *step {
	c := ts.cur
	if c == nil || c.source != "agent" || ts.lastInput || (v.UsageKey != "" && c.key != "" && v.UsageKey != c.key) {
		c = ts.add(&step{source: "agent", time: v.Time, key: v.UsageKey})
		ts.cur = c
	}
	if c.key == "" {
		c.key = v.UsageKey
	}
	if c.model == "" {
		c.model = v.Model
	}
	c.text = append(c.text, p.text...)
	c.reasoning = append(c.reasoning, p.thinking...)
	for j, call := range p.calls {
		id := ts.b.callID(call.CallID, k, j)
		c.calls = append(c.calls, toolCall(call, id))
		if call.CallID != "" && ts.callStep[call.CallID] == nil {
			ts.callStep[call.CallID] = c
			ts.written[call.CallID] = id
		}
	}
	for _, res := range p.results {
		c.results = append(c.results, ts.b.result(res, ts.inStep(c, res.CallID)))
	}
	ts.lastInput = false
	return c
}

// callID returns the tool_call_id to write for a call the agent gave id.
// That is id itself, unless the agent gave none or an earlier call has
// it. Then the id is made from the position of the record (k, a live
// record) and of the call within it (j), so it is the same in every
// export.
func (b *builder) callID(id string, k, j int) string {
	if id == "" || b.callIDs[id] {
		id = fmt.Sprintf("git-snap-%d-%d", b.r.Index[k], j)
	}
	b.callIDs[id] = true
	return id
}

// inStep returns the tool_call_id to write for a result of call id in
// step s: the call's, when s made the call, else "". ATIF's results can
// refer only to calls in their own step.
func (ts *threadSteps) inStep(s *step, id string) string {
	if id == "" || ts.callStep[id] != s {
		return ""
	}
	return ts.written[id]
}

// results adds tool results to the steps of their calls. A result with
// no call in this thread makes a system step. Text next to the results
// is the user's.
func (ts *threadSteps) results(v snapshot.Message, p parts) *step {
	var into *step
	for _, res := range p.results {
		s := ts.callStep[res.CallID]
		if s == nil {
			s = ts.add(&step{source: "system", time: v.Time})
		}
		s.results = append(s.results, ts.b.result(res, ts.inStep(s, res.CallID)))
		if into == nil {
			into = s
		}
	}
	if len(p.text) > 0 {
		ts.add(&step{source: "user", time: v.Time, text: p.text})
	}
	ts.lastInput = true
	return into
}

// callStep returns the agent step that model call c belongs to (see
// assignCalls).
func (b *builder) callStep(c snapshot.Call, threads []thread, pos map[int][2]int) *step {
	for pass := 0; pass < 2; pass++ {
		for _, k := range c.Records {
			if st := b.stepOf[k]; st != nil && st.source == "agent" && (pass == 1 || isResponse(b.r.Views[k])) {
				return st
			}
		}
	}
	p, ok := pos[c.Records[0]]
	for i := p[1]; ok && i >= 0; i-- {
		if st := b.stepOf[threads[p[0]].records[i]]; st != nil && st.source == "agent" {
			return st
		}
	}
	return nil
}

// isResponse reports whether v is a record of a model's response with
// something in it.
func isResponse(v snapshot.Message) bool {
	return (v.Role == "assistant" || v.Role == "model") && len(v.Parts) > 0
}

// assignCalls assigns each model call to one agent step. That is the
// step of a record the response was written in, preferring one with
// content over a copy without it (Claude Code mirrors a subagent's
// response into its parent). The record that carries the call's token
// total is not used for this, because any step may carry it. A call with
// no such record (a running total with no response of its own) goes to
// the agent step before its first record in its file.
func (b *builder) assignCalls(threads []thread) {
	pos := map[int][2]int{} // record → its thread and place there
	for ti, t := range threads {
		for i, k := range t.records {
			pos[k] = [2]int{ti, i}
		}
	}
	for _, c := range b.r.Calls {
		if len(c.Records) == 0 {
			continue
		}
		s := b.callStep(c, threads, pos)
		if s == nil {
			continue
		}
		s.usage.Add(c.Usage)
		s.llmCalls += c.Count
		s.estimated = s.estimated || c.Estimated
		if c.Model != "" {
			s.model = c.Model
		}
	}
}

func (b *builder) stepsJSON(steps []*step) map[string]any {
	out := make([]any, len(steps))
	for i, s := range steps {
		out[i] = b.stepJSON(i+1, s)
	}
	return map[string]any{"steps": out}
}

func (b *builder) stepJSON(id int, s *step) map[string]any {
	out := map[string]any{"step_id": id, "source": s.source, "message": strings.Join(s.text, "\n\n")}
	if ts, ok := isoTime(s.time); ok {
		out["timestamp"] = ts
	}
	if s.source == "agent" {
		if s.model != "" {
			out["model_name"] = s.model
		}
		if len(s.reasoning) > 0 {
			out["reasoning_content"] = strings.Join(s.reasoning, "\n\n")
		}
		if len(s.calls) > 0 {
			out["tool_calls"] = s.calls
		}
		if s.llmCalls > 0 {
			out["llm_call_count"] = s.llmCalls
			out["metrics"] = b.metrics(s)
		}
	}
	if len(s.results) > 0 {
		out["observation"] = map[string]any{"results": s.results}
	}
	if len(s.records) > 0 {
		out["extra"] = map[string]any{Extension: map[string]any{"records": s.records}}
	}
	return out
}

func (b *builder) metrics(s *step) map[string]any {
	u := s.usage
	m := map[string]any{
		"prompt_tokens":     u.Input + u.CacheRead + u.CacheWrite,
		"completion_tokens": u.Output,
		"cached_tokens":     u.CacheRead,
	}
	if cost := b.table.Estimate(map[string]snapshot.Usage{s.model: u}); len(cost.Unknown) == 0 && u.Total() > 0 {
		m["cost_usd"] = cost.USD
	}
	extra := map[string]any{"cache_write_tokens": u.CacheWrite}
	if u.CacheWrite1h > 0 {
		extra["cache_write_1h_tokens"] = u.CacheWrite1h
	}
	if s.estimated {
		extra["estimated"] = true
	}
	m["extra"] = extra
	return m
}

func (b *builder) finalMetrics(n agent.Numbers, steps int) map[string]any {
	var total snapshot.Usage
	for _, u := range n.ByModel {
		total.Add(u)
	}
	fm := map[string]any{
		"total_prompt_tokens":     total.Input + total.CacheRead + total.CacheWrite,
		"total_completion_tokens": total.Output,
		"total_cached_tokens":     total.CacheRead,
		"total_steps":             steps,
	}
	cost := b.table.Estimate(n.ByModel)
	if len(cost.Unknown) == 0 {
		fm["total_cost_usd"] = cost.USD
	}
	extra := map[string]any{
		"cache_write_tokens": total.CacheWrite,
		"model_calls":        n.ModelCalls,
		"tool_calls":         n.ToolCalls,
		"tool_failures":      n.ToolFailures,
		"turns":              n.Turns,
	}
	if n.Estimated {
		extra["estimated"] = true
	}
	if len(cost.Unknown) > 0 {
		extra["unpriced_models"] = toAny(cost.Unknown)
	}
	fm["extra"] = extra
	return fm
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// toolCall converts a call part into an ATIF tool call with the given
// id. ATIF's arguments must be an object, so input that is a JSON object
// (or a string holding one) is used as is, and any other input becomes
// {"input": value}.
func toolCall(p snapshot.Part, id string) map[string]any {
	out := map[string]any{"tool_call_id": id, "function_name": p.Tool, "arguments": arguments(p.Input)}
	if p.Tool == "" {
		out["function_name"] = "unknown"
	}
	return out
}

func arguments(in any) map[string]any {
	switch v := in.(type) {
	case map[string]any:
		return v
	case nil:
		return map[string]any{}
	case string:
		if parsed, err := snapshot.Parse([]byte(v), snapshot.Limits{}); err == nil {
			if m, ok := parsed.(map[string]any); ok {
				return m
			}
		}
	}
	return map[string]any{"input": in}
}

// result converts a tool result into an ATIF observation result, naming
// the subagent trajectory a subagent call ran. source is the tool_call_id
// of its call in its step, or "" when the step made no such call; then
// the call's id, if any, is kept in the result's extra.
func (b *builder) result(p snapshot.Part, source string) map[string]any {
	out := map[string]any{"content": p.Text}
	extra := map[string]any{}
	switch {
	case source != "":
		out["source_call_id"] = source
	case p.CallID != "":
		extra["call_id"] = p.CallID
	}
	if sub := b.spawned[p.CallID]; sub != "" && p.CallID != "" {
		out["subagent_trajectory_ref"] = []any{map[string]any{"trajectory_id": sub}}
	}
	if p.IsError {
		extra["is_error"] = true
	}
	if len(extra) > 0 {
		out["extra"] = extra
	}
	return out
}

// isoTime reports whether t parses as an RFC 3339 time (ATIF's
// timestamps are ISO 8601) and returns it if so. A step whose record has
// no such time gets no timestamp.
func isoTime(t string) (string, bool) {
	if t == "" {
		return "", false
	}
	if _, err := time.Parse(time.RFC3339Nano, t); err == nil {
		return t, true
	}
	return "", false
}

// agentVersion returns the version the agent wrote in its records
// (Claude Code's "version", Codex's "cli_version"), else "unknown".
func agentVersion(r *agent.Session) string {
	for _, rec := range r.Records {
		obj, _ := rec.(map[string]any)
		if v, ok := obj["version"].(string); ok && v != "" {
			return v
		}
		if p, ok := obj["payload"].(map[string]any); ok {
			if v, ok := p["cli_version"].(string); ok && v != "" {
				return v
			}
		}
	}
	return "unknown"
}

// mainModel returns the model that wrote the most output.
func mainModel(by map[string]snapshot.Usage) string {
	best, most := "", int64(-1)
	for m, u := range by {
		if m == "" {
			continue
		}
		if t := u.Total(); t > most || (t == most && m < best) {
			best, most = m, t
		}
	}
	return best
}
