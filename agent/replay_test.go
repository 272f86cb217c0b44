package agent

import (
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

// Replay yields one output per model call: as many as the statistics
// count (responses by their id), on every real transcript, and the same
// bytes every time.
func TestReplayOneOutputPerModelCall(t *testing.T) {
	ts, err := testdocs.Transcripts()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		doc, err := tr.Document(len(tr.Lines))
		if err != nil {
			t.Fatal(err)
		}
		var first []byte
		for range 2 {
			var out []byte
			n := 0
			for o := range Replay(doc) {
				n++
				if o.Call != n {
					t.Fatalf("%s: call %d numbered %d", tr.Name, n, o.Call)
				}
				b, _ := snapshot.Marshal(o.Content)
				out = append(out, b...)
			}
			if want := snapshot.ComputeStats(doc, ViewMessage).ModelCalls; n != want {
				t.Errorf("%s: %d outputs, %d model calls", tr.Name, n, want)
			}
			if first != nil && string(first) != string(out) {
				t.Errorf("%s: replay is not deterministic", tr.Name)
			}
			first = out
		}
	}
}

// A harness's post_model event may give its tokens as a usage object, as
// the model's API does; trace, replay and show read it alike.
func TestRecordedUsageObject(t *testing.T) {
	doc := map[string]any{snapshot.MemberEvents: []any{
		map[string]any{"type": "post_model", "ts_ms": 1, "model": "m", "usage": map[string]any{"input_tokens": 5, "cache_read_input_tokens": 7, "output_tokens": 2}, "output": "hi"},
		map[string]any{"type": "post_model", "ts_ms": 2, "model": "m", "input_tokens": 1, "output_tokens": 1, "output": "bye"},
	}}
	_, st := Trace(doc, nil)
	if st.ModelCalls != 2 || st.InputTokens != 6 || st.CacheReadTokens != 7 || st.OutputTokens != 3 {
		t.Errorf("trace stats %+v", st)
	}
	var usage []OutputUsage
	for o := range Replay(doc) {
		if o.Usage == nil {
			t.Fatalf("call %d: no usage", o.Call)
		}
		usage = append(usage, *o.Usage)
	}
	if len(usage) != 2 || usage[0] != (OutputUsage{Input: 5, CacheRead: 7, Output: 2}) {
		t.Errorf("replay usage %+v", usage)
	}
}
