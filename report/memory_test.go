package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/heapwatch"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// memoryChild names, in the environment of the child process the
// memory test runs, the repository and the format it writes.
const memoryChild = "GIT_SNAP_REPORT_MEMORY_CHILD"

// A long session is written in about the memory of its outline and one
// turn, not of the whole session: a report held every record read (tens
// of MB for a 20 MB transcript) and every turn's items with their texts
// again, so that its export and the viewer's timeline peaked at several
// times the session (export --format html of a 50,000-record session:
// 287 MiB resident). The session here holds 24 MB of tool output in
// 1,000 turns; a child process writes it as HTML and as Markdown with
// the collector kept tight (GOGC=10) and samples its heap; the peak
// must stay under half the text (it is about a quarter; holding the
// records alone is more than the text).
func TestLongSessionIsWrittenInBoundedMemory(t *testing.T) {
	if env := os.Getenv(memoryChild); env != "" {
		writeForMemory(t, env)
		return
	}
	if testing.Short() {
		t.Skip("writes 4,000 objects")
	}
	s := newStore(t)
	const turns, output = 1000, 24 << 10
	msgs := make([]any, 0, 4*turns)
	for i := range turns {
		call := fmt.Sprintf("c%d", i)
		text := fmt.Sprintf("%d ", i) + strings.Repeat(fmt.Sprintf("line %d of a long tool output\n", i), output/32)
		msgs = append(msgs,
			map[string]any{"role": "user", "content": fmt.Sprintf("prompt %d", i)},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": call, "name": "Bash", "input": map[string]any{"command": "make"}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": text}}},
			map[string]any{"role": "assistant", "content": fmt.Sprintf("answer %d", i)})
	}
	if _, err := s.Save(context.Background(), map[string]any{"messages": msgs}, storage.SaveOptions{Session: "long"}); err != nil {
		t.Fatal(err)
	}
	text := int64(turns * output)
	for _, format := range []string{"html", "markdown"} {
		peak := heapwatch.InChild(t, "TestLongSessionIsWrittenInBoundedMemory", memoryChild+"="+s.Paths().GitDir+"|"+format)
		t.Logf("%s: peak heap %.1f MiB for %.1f MiB of tool output", format, float64(peak)/(1<<20), float64(text)/(1<<20))
		if peak > text/2 {
			t.Errorf("writing %s peaked at %.1f MiB of heap, over half the session's %.1f MiB of text", format, float64(peak)/(1<<20), float64(text)/(1<<20))
		}
	}
}

// writeForMemory is the child: it writes the session "long" of the
// repository env names in the format it names, and prints the largest
// heap it sampled meanwhile.
func writeForMemory(t *testing.T, env string) {
	dir, format, _ := strings.Cut(env, "|")
	ctx := context.Background()
	s, err := gitstore.OpenPaths(ctx, gitstore.Paths{GitDir: dir, CommonDir: dir}, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	peak, err := heapwatch.Peak(func() error {
		sess, err := openRev(ctx, s, "long", Options{})
		if err == nil && format == "html" {
			err = WriteHTML(ctx, io.Discard, sess, HTMLOptions{})
		} else if err == nil {
			err = WriteMarkdown(ctx, io.Discard, sess)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	heapwatch.Report(peak)
}
