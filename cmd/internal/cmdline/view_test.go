package cmdline

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/viewer"
)

// lockedBuffer is an output written by the server's goroutine and read
// by the test's.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// git snap view prints its address on 127.0.0.1, serves the session
// named, and stops cleanly when interrupted.
func TestRunViewServesUntilInterrupted(t *testing.T) {
	d, _ := fixture(t)
	var opened atomic.Int32 // counted on the server's goroutine
	d.openAt = func(ctx context.Context, _ string) (*gitsnap.Repository, config.Config, error) {
		opened.Add(1)
		s, err := gitsnap.OpenPaths(ctx, d.paths, gitsnap.Options{})
		return s, d.cfg, err
	}
	out := &lockedBuffer{}
	d.out, d.errOut = out, out
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- runView(ctx, d, viewOptions{Rev: "a", Listen: viewer.ListenOptions{Port: 0, PortSet: true}})
	}()
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/session/a\b`)
	for deadline := time.Now().Add(time.Minute); !addr.MatchString(out.String()); {
		select {
		case err := <-done:
			t.Fatalf("view ended: %v\n%s", err, out)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("view printed no address:\n%s", out)
		}
	}
	url := addr.FindString(out.String())
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `data-session="a"`) {
		t.Errorf("GET %s: %d\n%.300s", url, resp.StatusCode, body)
	}
	// A search runs on a store of its own, opened once.
	for range 2 {
		resp, err = http.Get(strings.TrimSuffix(url, "/session/a") + "/search?q=a4")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `<li class="hit" data-session="a">`) {
			t.Errorf("search a4: %d\n%.300s", resp.StatusCode, body)
		}
	}
	if n := opened.Load(); n != 1 {
		t.Errorf("two searches opened %d stores, want 1", n)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("view after an interrupt: %v", err)
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("still serving after the interrupt")
	}
}
