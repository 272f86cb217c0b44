package viewer

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// A session of 5,000 messages, one of them a 1 MB line, is served whole:
// the sessions page, its timeline (the last message in it), its snapshot
// and files pages. With GIT_SNAP_LONG_TESTS set (as .ci/run sets it) the
// session has 50,000 messages, which takes a minute.
func TestHugeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("writes thousands of objects")
	}
	n := 5000
	if os.Getenv("GIT_SNAP_LONG_TESTS") != "" {
		n = 50000
	}
	ctx := context.Background()
	store, err := openRepo(ctx, filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	msgs := make([]any, n)
	for i := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs[i] = map[string]any{"role": role, "content": fmt.Sprintf("message %d <b>not bold</b>", i)}
	}
	msgs[n/2] = map[string]any{"role": "assistant", "content": "HUGE " + strings.Repeat("x", 1<<20)}
	msgs[n-1] = map[string]any{"role": "assistant", "content": "THE-LAST-MESSAGE"}
	if _, err := store.Save(ctx, map[string]any{"messages": msgs}, storage.SaveOptions{Session: "huge"}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(store, Options{Addr: ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	f := &fixture{url: "http://" + ln.Addr().String()}
	for path, want := range map[string]string{
		"/":                     `data-session="huge"`,
		"/session/huge":         "THE-LAST-MESSAGE",
		"/snapshot/huge":        fmt.Sprintf("%d messages", n),
		"/files/huge":           "No files",
		"/?sort=tokens":         `data-session="huge"`,
		"/export/markdown/huge": "THE-LAST-MESSAGE",
	} {
		resp, body := get(t, f, http.MethodGet, path, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d, %q in it: %v", path, resp.StatusCode, want, strings.Contains(body, want))
		}
		if strings.Contains(body, "<b>not bold</b>") {
			t.Errorf("GET %s: a message's markup is in the page unescaped", path)
		}
	}
}
