package agent

import (
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

func TestStatsCountsUsageOncePerModelCall(t *testing.T) {
	// Claude Code writes one record per content block, each with a copy
	// of the response's usage; the first has a partial output count, so
	// the last counts.
	d, err := snapshot.ParseDocument([]byte(`{"messages":[
		{"type":"user","message":{"role":"user","content":"go"}},
		{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"thinking","thinking":"…"}],"usage":{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":1}}},
		{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":7}}},
		{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}},
		{"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":5,"output_tokens":2}}}]}`), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot.ComputeStats(d, ViewMessage)
	if s.ModelCalls != 2 || s.ToolCalls != 1 || s.InputTokens != 8 || s.CacheReadTokens != 100 || s.OutputTokens != 9 || s.Estimated {
		t.Errorf("stats = %+v, want 2 model calls, 1 tool call, 8 in, 100 cache read, 9 out", s)
	}
}
