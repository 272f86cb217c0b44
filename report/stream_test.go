package report

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/storage"
)

// counting is a store that counts the messages read.
type counting struct {
	*gitstore.Store
	reads int
}

func (c *counting) Message(ctx context.Context, id storage.MessageID) (any, error) {
	c.reads++
	return c.Store.Message(ctx, id)
}

// A turn is given as soon as it ends, whole, before the records after it
// are read: a result that comes after the next prompt is read ahead and
// put on its call, and not shown again where it comes; a result whose
// call is not in the session is shown alone where it comes.
func TestTurnsAreGivenAsTheyEnd(t *testing.T) {
	s := newStore(t)
	recs := []string{
		`{"role": "user", "content": "first"}`,
		`{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "make"}}]}`,
		`{"role": "user", "content": "second"}`,
		`{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "late output"}]}`,
		`{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c9", "content": "no call"}]}`,
		`{"role": "assistant", "content": "done"}`,
	}
	for i := range 20 {
		recs = append(recs, fmt.Sprintf(`{"role": "user", "content": "more %d"}`, i), fmt.Sprintf(`{"role": "assistant", "content": "answer %d"}`, i))
	}
	saveDoc(t, s, "late", `{"messages": [`+strings.Join(recs, ",")+`]}`)
	c := &counting{Store: s}
	ctx := context.Background()
	sess, err := openRev(ctx, c, "late", Options{NoFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Turns) != 22 || sess.Turns[0].Items != nil {
		t.Fatalf("the outline has %d turns (want 22), the first with items %v (want none)", len(sess.Turns), sess.Turns[0].Items)
	}
	c.reads = 0
	var got []Turn
	readAt := map[int]int{}
	err = sess.EachTurn(ctx, func(turn *Turn) error {
		readAt[turn.N] = c.reads
		got = append(got, *turn)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 22 {
		t.Fatalf("%d turns given, want 22", len(got))
	}
	call := got[0].Items[0].Tool
	if call == nil || call.Result != "late output" || !call.HasResult {
		t.Errorf("turn 1's call: %+v, want the result that came in turn 2 on it", call)
	}
	if n := len(got[1].Items); n != 2 || got[1].Items[0].Kind != KindResult || got[1].Items[0].Text != "no call" || got[1].Items[1].Text != "done" {
		t.Errorf("turn 2 shows %+v, want the result with no call, then the answer", got[1].Items)
	}
	// Turn 1 ends at record 2, the next prompt; the result at 3 is read
	// ahead, and read again at its place. Turn 2 ends at record 6.
	if readAt[1] != 4 || readAt[2] != 8 || c.reads != len(recs)+1 {
		t.Errorf("turn 1 was given after %d records were read (want 4: its own, the next prompt and the result read ahead), turn 2 after %d (want 8), all after %d (want %d)", readAt[1], readAt[2], c.reads, len(recs)+1)
	}
	whole := loadSession(t, s, "late", Options{NoFiles: true})
	if fmt.Sprintf("%+v", whole.Turns[0].Items[0].Tool) != fmt.Sprintf("%+v", call) || len(whole.Turns) != len(got) {
		t.Errorf("Load and EachTurn read the session differently")
	}
}
