package agent

import (
	"fmt"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// A table's entries set again and again stay what was set last, through
// the compactions of its buffer.
func TestTableSetAgain(t *testing.T) {
	tab := newTable[snapshot.CallSaid](callCodec{})
	want := map[uint64]snapshot.CallSaid{}
	for round := range 8 {
		for k := range uint64(5000) {
			c := snapshot.CallSaid{Model: fmt.Sprintf("m%d", k%3), Estimated: round%2 == 1,
				Usage: snapshot.Usage{Input: int64(k) * 1000, Output: int64(round)}}
			if k%7 == 0 {
				c.Model = ""
			}
			tab.put(k, c)
			want[k] = c
		}
	}
	if tab.over.dead > len(tab.over.data) {
		t.Errorf("%d of %d bytes dead: never compacted", tab.over.dead, len(tab.over.data))
	}
	for k, c := range want {
		if got, ok := tab.get(k); !ok || got != c {
			t.Fatalf("entry %d: got %+v, %v; want %+v", k, got, ok, c)
		}
	}
	if got := tab.overMap(); len(got) != len(want) {
		t.Errorf("%d entries, want %d", len(got), len(want))
	}
}
