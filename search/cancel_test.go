package search

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// TestSearchStopsAtOnceWhenCancelled checks that a search cancelled
// while verifying candidates matches no further message. Verification
// used to check its context once every 256 messages, so a slow regular
// expression over long messages kept running for seconds after the
// viewer's client had gone. It now checks before every message and
// every line.
func TestSearchStopsAtOnceWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	ctx := context.Background()
	s, err := gitstore.Open(ctx, dir, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := make([]any, 600)
	for i := range msgs {
		msgs[i] = map[string]any{"role": "user", "content": fmt.Sprintf("needle %d\n%s", i, strings.Repeat("hay hay\n", 50))}
	}
	if _, err := s.Save(ctx, map[string]any{"messages": msgs}, storage.SaveOptions{Session: "long"}); err != nil {
		t.Fatal(err)
	}
	x, err := Open(ctx, s, DefaultDir(s.Paths().CommonDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Update(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	verified, after := 0, 0
	verifyHook = func() {
		verified++
		if verified == 3 {
			cancel() // the client leaves while the third message is matched
		} else if verified > 3 {
			after++
		}
	}
	defer func() { verifyHook = nil }()
	_, err = x.Search(cctx, Query{Pattern: `needle \d+`, Regexp: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("search: %v, want it cancelled", err)
	}
	if after > 0 {
		t.Errorf("%d messages were matched after the search was cancelled", after)
	}
}
