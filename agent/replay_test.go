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
