package search

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
)

// Field kinds, as stored in a segment.
const (
	kindText byte = iota + 1
	kindThinking
	kindToolInput
	kindToolResult
	kindPath
)

var kindNames = [...]string{"", FieldText, FieldThinking, FieldToolInput, FieldToolResult, FieldPath}

// field is one searchable text of a message.
type field struct {
	kind byte
	tool string
	text string
}

// extracted is what the index keeps of one message.
type extracted struct {
	role    string
	time    time.Time
	fields  []field
	agent   string   // the agent that wrote the record, "" when no agent recognises it
	touched []string // paths the message's tool calls wrote
}

// extractor reads messages with every agent's Viewer, and remembers tool
// calls so that a result can name the tool of its call.
type extractor struct {
	readers []agentReader
}

type agentReader struct {
	name string
	agent.RecordReader
}

func newExtractor() *extractor {
	x := &extractor{}
	for _, a := range agent.Adapters(agent.Env{}) {
		x.readers = append(x.readers, agentReader{a.Name(), a})
	}
	return x
}

// extract reads one stored message. calls maps the session's call ids to
// their tools; extract adds this message's calls to it and removes the
// calls whose results it holds.
func (x *extractor) extract(v any, calls map[string]string) extracted {
	var out extracted
	if s, ok := v.(string); ok { // a transcript line that was not JSON
		out.fields = []field{{kind: kindText, text: s}}
		return out
	}
	var m snapshot.Message
	viewed := false
	for _, r := range x.readers {
		if mm, ok := r.View(v); ok {
			m, viewed, out.agent = mm, true, r.name
			out.touched = r.TouchedFiles(v)
			break
		}
	}
	if !viewed {
		m = snapshot.ViewMessage(v)
	}
	out.role = m.Role
	if t, err := time.Parse(time.RFC3339Nano, m.Time); err == nil {
		out.time = t
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case snapshot.PartText:
			out.fields = appendField(out.fields, field{kind: kindText, text: p.Text})
		case snapshot.PartThinking:
			out.fields = appendField(out.fields, field{kind: kindThinking, text: p.Text})
		case snapshot.PartToolCall:
			if p.CallID != "" && len(calls) < maxOpenCalls {
				calls[p.CallID] = p.Tool
			}
			out.fields = appendField(out.fields, field{kind: kindToolInput, tool: p.Tool, text: inputText(p.Input)})
		case snapshot.PartToolResult:
			tool := calls[p.CallID]
			delete(calls, p.CallID)
			out.fields = appendField(out.fields, field{kind: kindToolResult, tool: tool, text: p.Text})
		}
	}
	return out
}

// maxOpenCalls bounds the number of calls remembered while waiting for
// their results, so that memory stays bounded in a session whose calls
// never get results.
const maxOpenCalls = 256

func appendField(fs []field, f field) []field {
	if f.text == "" {
		return fs
	}
	return append(fs, f)
}

// inputText formats a tool call's input for reading and searching: one
// "key: value" line per member, with string values unchanged (so that a
// command or an edit keeps its lines) and other values as compact JSON.
func inputText(in any) string {
	if s, ok := in.(string); ok { // OpenAI arguments: a JSON string
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return s
		}
		in = v
	}
	obj, ok := in.(map[string]any)
	if !ok {
		return jsonText(in)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k)
		b.WriteString(": ")
		if s, ok := obj[k].(string); ok {
			b.WriteString(s)
		} else {
			b.WriteString(jsonText(obj[k]))
		}
	}
	return b.String()
}

func jsonText(v any) string {
	if v == nil {
		return ""
	}
	out, err := snapshot.Marshal(v)
	if err != nil {
		return ""
	}
	return string(out)
}
