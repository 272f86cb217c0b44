package cmdline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/internal/heapwatch"
	"github.com/git-snap/git-snap/snapshot"
)

// saveMemoryChild names, in the environment of the child process the
// save memory test runs, the repository and the document it saves.
const saveMemoryChild = "GIT_SNAP_SAVE_MEMORY_CHILD"

// A document is saved in the memory of its text, one message and a few
// bytes of bookkeeping a message (the blobs' ids, where each message lies,
// the model calls the totals count), not of the whole document parsed:
// save parsed it into Go values, some twice its text, and held every
// message's blob besides until it wrote them all (a 20 MB document of
// 50,000 messages was 168 MiB resident). Here a child process saves a
// document of 4,000 messages of 2 KB into an empty session, then the
// same with a message more (the tip holds the rest), with the collector
// kept tight, and samples its heap.
func TestSaveOfALongDocumentInBoundedMemory(t *testing.T) {
	if env := os.Getenv(saveMemoryChild); env != "" {
		saveForMemory(t, env)
		return
	}
	if testing.Short() {
		t.Skip("writes 4,000 objects twice")
	}
	_, paths := openEmpty(t)
	const n = 4000
	for _, k := range []int{n, n + 1} {
		data, largest := longDocument(t, k)
		file := filepath.Join(t.TempDir(), "doc.json")
		if err := os.WriteFile(file, data, 0o666); err != nil {
			t.Fatal(err)
		}
		peak := heapwatch.InChild(t, "TestSaveOfALongDocumentInBoundedMemory", saveMemoryChild+"="+paths.WorkTree+"|"+file)
		// The text, 8 copies of the largest message (its text, its
		// values, its blob, compressed), 1 KiB a message, 4 MiB of
		// runtime, store and config.
		bound := int64(len(data) + 8*largest + k<<10 + 4<<20)
		t.Logf("%d messages: peak heap %.1f MiB for a %.1f MiB document (bound %.1f MiB)", k, mib(peak), mib(int64(len(data))), mib(bound))
		if peak > bound {
			t.Errorf("saving %d messages peaked at %.1f MiB of heap, over the %.1f MiB of the text, one message and its bookkeeping", k, mib(peak), mib(bound))
		}
	}
}

// longDocument is a conversation of n messages of some 2 KB, and the
// length of its largest message's text.
func longDocument(t *testing.T, n int) ([]byte, int) {
	t.Helper()
	msgs := make([]any, n)
	largest := 0
	for i := range msgs {
		m := map[string]any{"id": fmt.Sprintf("m%d", i), "role": []string{"user", "assistant"}[i%2], "time": fmt.Sprintf("2026-03-02T10:%02d:%02dZ", i/60%60, i%60),
			"content": fmt.Sprintf("message %d: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 75)),
			"usage":   map[string]any{"input_tokens": 1000 + i, "output_tokens": 50 + i%40}}
		one, err := snapshot.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		largest, msgs[i] = max(largest, len(one)), m
	}
	data, err := snapshot.Marshal(map[string]any{"config": map[string]any{"model": "m"}, "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	return data, largest
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// saveForMemory is the child: it runs git snap save of the document env
// names into the repository it names, and prints the largest heap it
// sampled meanwhile.
func saveForMemory(t *testing.T, env string) {
	dir, file, _ := strings.Cut(env, "|")
	ctx := context.Background()
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg, err := config.Load(config.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	d := &deps{repo: s, paths: s.Paths(), cfg: cfg, out: io.Discard, errOut: io.Discard, dir: dir, workDir: dir}
	peak, err := heapwatch.Peak(func() error {
		return runSave(ctx, d, saveOptions{Session: "long", File: file, NoCode: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	heapwatch.Report(peak)
}
