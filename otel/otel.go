// Package otel writes a stored session as OpenTelemetry traces in OTLP
// (the protobuf types of go.opentelemetry.io/proto/otlp), following the
// GenAI semantic conventions, and sends them to an OTLP/HTTP endpoint.
//
// A session is one trace: an invoke_agent span over the whole session,
// a chat span for each model call (model, response id, tokens of each
// kind) and an execute_tool span for each tool call (tool name and call
// id; a failed call has status ERROR), from the call to its result. A
// subagent's spans are under an invoke_agent span of its own, a child of
// the tool call that ran it. Span times come from the records; a span
// whose end is unknown ends where it starts. IDs are derived from the
// session id, so the same session always exports the same trace.
package otel

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Attribute and operation names from the OpenTelemetry GenAI semantic
// conventions that this package writes.
const (
	AttrOperation     = "gen_ai.operation.name"
	AttrProvider      = "gen_ai.provider.name"
	AttrAgentName     = "gen_ai.agent.name"
	AttrConversation  = "gen_ai.conversation.id"
	AttrRequestModel  = "gen_ai.request.model"
	AttrResponseModel = "gen_ai.response.model"
	AttrResponseID    = "gen_ai.response.id"
	AttrInputTokens   = "gen_ai.usage.input_tokens" // all input, cache reads and writes included
	AttrOutputTokens  = "gen_ai.usage.output_tokens"
	AttrCacheRead     = "gen_ai.usage.cache_read.input_tokens"
	AttrCacheWrite    = "gen_ai.usage.cache_creation.input_tokens"
	AttrToolName      = "gen_ai.tool.name"
	AttrToolCallID    = "gen_ai.tool.call.id"
	AttrToolType      = "gen_ai.tool.type"
	AttrErrorType     = "error.type"
	// AttrEstimated marks a call whose tokens were estimated from its
	// text (the agent recorded none).
	AttrEstimated = "git_snap.usage.estimated"

	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

// ScopeName names the instrumentation scope of the spans.
const ScopeName = "github.com/git-snap/git-snap/otel"

// Options configure Traces.
type Options struct {
	// Source names the agent that recorded the document; "" means the
	// document's "agent" member.
	Source string
	// Session is the conversation id when the document has no
	// session_id member.
	Session string
}

// providers maps an agent to its gen_ai.provider.name, for the agents
// whose model provider is known.
var providers = map[string]string{"claude-code": "anthropic", "codex": "openai", "gemini": "gcp.gemini"}

// Traces converts doc, read through agent.Read, into one trace.
func Traces(doc map[string]any, o Options) *tracepb.TracesData {
	if o.Source == "" {
		o.Source, _ = doc["agent"].(string)
	}
	session, _ := doc["session_id"].(string)
	if session == "" {
		session = o.Session
	}
	r := agent.ReadAs(doc, o.Source)
	b := &builder{r: r, session: session, source: o.Source, trace: id(16, "trace", session)}
	b.build()
	res := &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", nonEmpty(o.Source, "unknown"))}}
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource:   res,
		ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: ScopeName}, Spans: b.spans}},
	}}}
}

// SpanCount returns the number of spans in td.
func SpanCount(td *tracepb.TracesData) int {
	n := 0
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			n += len(ss.Spans)
		}
	}
	return n
}

type builder struct {
	r       *agent.Session
	session string
	source  string
	trace   []byte
	spans   []*tracepb.Span
	times   []time.Time // of each record; zero when unknown

	root     *tracepb.Span
	threadOf map[string][]int         // thread → its records
	names    []string                 // the threads in order, the session's first
	ranBy    map[string]string        // thread → the tool call id that ran it
	parent   map[string]*tracepb.Span // thread → its invoke_agent span
	tools    map[string]*tracepb.Span // tool call id → its span
}

func (b *builder) build() {
	first, last := b.readTimes()
	b.root = b.span(OpInvokeAgent+" "+nonEmpty(b.source, "agent"), id(8, b.session, "root"), nil, tracepb.Span_SPAN_KIND_INTERNAL, first, last,
		str(AttrOperation, OpInvokeAgent), str(AttrAgentName, nonEmpty(b.source, "unknown")))
	b.common(b.root)
	b.readThreads()
	b.parent = map[string]*tracepb.Span{"": b.root}
	b.tools = map[string]*tracepb.Span{}
	b.toolSpans() // first, so that a subagent's span can be under its call
	total := b.chatSpans()
	b.root.Attributes = append(b.root.Attributes, usageAttrs(total)...)
}

// readTimes parses each record's time, and returns the first and last.
func (b *builder) readTimes() (first, last time.Time) {
	b.times = make([]time.Time, len(b.r.Records))
	for k, v := range b.r.Views {
		t, err := time.Parse(time.RFC3339Nano, v.Time)
		if err != nil {
			continue
		}
		b.times[k] = t
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	return first, last
}

// readThreads groups the records by thread and, when the agent records
// it (agent.Threads), finds which tool call ran each subagent.
func (b *builder) readThreads() {
	r := b.r
	b.threadOf = map[string][]int{}
	b.ranBy = map[string]string{}
	for k := range r.Records {
		n := r.Thread[k]
		if _, ok := b.threadOf[n]; !ok {
			b.names = append(b.names, n)
		}
		b.threadOf[n] = append(b.threadOf[n], k)
	}
	th, ok := r.Agent.(agent.Threads)
	if !ok {
		return
	}
	file := map[string]string{} // subagent → its thread
	for _, n := range b.names {
		for _, k := range b.threadOf[n] {
			if sub := th.Thread(r.Record(k)); sub != "" && n != "" {
				file[sub] = n
				break
			}
		}
	}
	for k := range r.Records {
		if call, sub := th.Spawned(r.Record(k)); sub != "" && file[sub] != "" {
			b.ranBy[file[sub]] = call
		}
	}
}

// threadSpan returns the invoke_agent span of thread n, creating it on
// first use. A subagent's span is a child of the tool call that ran it;
// otherwise the span is the session's.
func (b *builder) threadSpan(n string) *tracepb.Span {
	if s := b.parent[n]; s != nil {
		return s
	}
	start, end := b.span0(b.threadOf[n])
	up := b.root
	if t := b.tools[b.ranBy[n]]; t != nil {
		up = t
	}
	s := b.span(OpInvokeAgent+" "+nonEmpty(b.source, "agent"), id(8, b.session, "thread", n), up.SpanId, tracepb.Span_SPAN_KIND_INTERNAL, start, end,
		str(AttrOperation, OpInvokeAgent), str(AttrAgentName, nonEmpty(b.source, "unknown")), str("git_snap.subagent", n))
	b.common(s)
	b.parent[n] = s
	return s
}

// toolSpans adds an execute_tool span for each tool call, lasting from
// the call's record to its result's.
func (b *builder) toolSpans() {
	results := map[string]int{} // tool call id → the record of its result
	failed := map[string]bool{}
	for k, v := range b.r.Views {
		for _, p := range v.Parts {
			if p.Kind != snapshot.PartToolResult || p.CallID == "" {
				continue
			}
			if _, seen := results[p.CallID]; !seen {
				results[p.CallID] = k
			}
			if p.IsError {
				failed[p.CallID] = true
			}
		}
	}
	for _, n := range b.names { // the session's calls before the subagents'
		for _, k := range b.threadOf[n] {
			for pi, p := range b.r.Views[k].Parts {
				if p.Kind != snapshot.PartToolCall {
					continue
				}
				end := b.times[k]
				if rk, ok := results[p.CallID]; ok && !b.times[rk].IsZero() {
					end = b.times[rk]
				}
				b.toolSpan(n, k, pi, p, end, failed[p.CallID])
			}
		}
	}
}

func (b *builder) toolSpan(thread string, k, pi int, p snapshot.Part, end time.Time, failed bool) {
	key := p.CallID
	if key == "" {
		key = strconv.Itoa(k) + "/" + strconv.Itoa(pi)
	}
	s := b.span(OpExecuteTool+" "+nonEmpty(p.Tool, "tool"), id(8, b.session, "tool", key), b.threadSpan(thread).SpanId, tracepb.Span_SPAN_KIND_INTERNAL, b.times[k], end,
		str(AttrOperation, OpExecuteTool), str(AttrToolName, p.Tool), str(AttrToolType, "function"))
	if p.CallID != "" {
		s.Attributes = append(s.Attributes, str(AttrToolCallID, p.CallID))
		b.tools[p.CallID] = s
	}
	b.common(s)
	if failed {
		// Set no status message. The export carries none of the
		// session's text, and a failed tool's output is text that may
		// hold a path or a secret the tool printed.
		s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR}
		s.Attributes = append(s.Attributes, str(AttrErrorType, "tool_error"))
	}
}

// chatSpans adds a chat span for each model call, under the thread of
// its first record with content, and returns the calls' tokens.
func (b *builder) chatSpans() snapshot.Usage {
	var total snapshot.Usage
	for ci, c := range b.r.Calls {
		if len(c.Records) == 0 {
			continue
		}
		k := c.Records[0]
		for _, rk := range c.Records {
			if len(b.r.Views[rk].Parts) > 0 {
				k = rk
				break
			}
		}
		n := b.r.Thread[k]
		start, end := b.callTimes(c, b.threadOf[n])
		total.Add(c.Usage)
		s := b.span(OpChat+" "+nonEmpty(c.Model, "model"), id(8, b.session, "call", strconv.Itoa(ci), c.ID), b.threadSpan(n).SpanId, tracepb.Span_SPAN_KIND_CLIENT, start, end,
			str(AttrOperation, OpChat))
		if c.Model != "" {
			s.Attributes = append(s.Attributes, str(AttrRequestModel, c.Model), str(AttrResponseModel, c.Model))
		}
		if c.ID != "" {
			s.Attributes = append(s.Attributes, str(AttrResponseID, c.ID))
		}
		s.Attributes = append(s.Attributes, usageAttrs(c.Usage)...)
		if c.Estimated {
			s.Attributes = append(s.Attributes, boolean(AttrEstimated, true))
		}
		b.common(s)
	}
	return total
}

// callTimes returns the time span of a model call: from the record
// before its response (among recs, its thread's records) to the
// response's last record.
func (b *builder) callTimes(c snapshot.Call, recs []int) (start, end time.Time) {
	for _, rk := range c.Records {
		if b.times[rk].After(end) {
			end = b.times[rk]
		}
	}
	start = end
	for i, rk := range recs {
		if rk == c.Records[0] && i > 0 && !b.times[recs[i-1]].IsZero() && !b.times[recs[i-1]].After(end) {
			return b.times[recs[i-1]], end
		}
	}
	return start, end
}

// span0 returns the time span of records.
func (b *builder) span0(recs []int) (start, end time.Time) {
	for _, k := range recs {
		t := b.times[k]
		if t.IsZero() {
			continue
		}
		if start.IsZero() || t.Before(start) {
			start = t
		}
		if t.After(end) {
			end = t
		}
	}
	return start, end
}

func (b *builder) span(name string, spanID, parentID []byte, kind tracepb.Span_SpanKind, start, end time.Time, attrs ...*commonpb.KeyValue) *tracepb.Span {
	if end.Before(start) {
		end = start
	}
	s := &tracepb.Span{TraceId: b.trace, SpanId: spanID, ParentSpanId: parentID, Name: name, Kind: kind,
		StartTimeUnixNano: unixNano(start), EndTimeUnixNano: unixNano(end), Attributes: attrs}
	b.spans = append(b.spans, s)
	return s
}

// common adds the attributes every span has.
func (b *builder) common(s *tracepb.Span) {
	if b.session != "" {
		s.Attributes = append(s.Attributes, str(AttrConversation, b.session))
	}
	if p := providers[b.source]; p != "" {
		s.Attributes = append(s.Attributes, str(AttrProvider, p))
	}
}

func usageAttrs(u snapshot.Usage) []*commonpb.KeyValue {
	return []*commonpb.KeyValue{
		integer(AttrInputTokens, u.Input+u.CacheRead+u.CacheWrite),
		integer(AttrOutputTokens, u.Output),
		integer(AttrCacheRead, u.CacheRead),
		integer(AttrCacheWrite, u.CacheWrite),
	}
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return uint64(t.UnixNano())
}

// id derives an n-byte id from parts.
func id(n int, parts ...string) []byte {
	h := sha256.Sum256([]byte("git-snap\x00" + strings.Join(parts, "\x00")))
	return h[:n]
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func integer(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

func boolean(k string, v bool) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v}}}
}

func nonEmpty(s, or string) string {
	if s == "" {
		return or
	}
	return s
}
