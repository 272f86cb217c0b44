package demo

import (
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// The sample session grows step by step, as an agent's session does,
// and has exactly one checkpoint.
func TestStepsGrow(t *testing.T) {
	steps, err := Steps()
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) < 3 {
		t.Fatalf("%d steps", len(steps))
	}
	prev, checkpoints := 0, 0
	for i, st := range steps {
		parts, err := snapshot.Split(st.Doc)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if len(parts.Messages) < prev {
			t.Errorf("step %d has %d messages, fewer than the %d before", i, len(parts.Messages), prev)
		}
		prev = len(parts.Messages)
		if st.Label == "" || st.Turn < 1 {
			t.Errorf("step %d: label %q turn %d", i, st.Label, st.Turn)
		}
		if st.Checkpoint != "" {
			checkpoints++
		}
	}
	if checkpoints != 1 {
		t.Errorf("%d checkpoints, want 1", checkpoints)
	}
}
