package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

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
	out := &lockedBuffer{}
	d.out, d.errOut = out, out
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- runView(ctx, d, viewOptions{Rev: "a", Listen: viewer.ListenOptions{Port: 0, PortSet: true}})
	}()
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/session/a\b`)
	for !addr.MatchString(out.String()) {
		select {
		case err := <-done:
			t.Fatalf("view ended: %v\n%s", err, out)
		case <-time.After(20 * time.Millisecond):
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
	cancel()
	if err := <-done; err != nil {
		t.Errorf("view after an interrupt: %v", err)
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("still serving after the interrupt")
	}
}
