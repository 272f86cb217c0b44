package viewer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// benchServer serves a new repository of n sessions, each of msgs
// Anthropic-style messages with usage, through the viewer's handler
// (no network: what is measured is the server's time).
func benchServer(b *testing.B, n, msgs int) *Server {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	store, err := openRepo(ctx, filepath.Join(dir, "repo"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for i := range n {
		doc := map[string]any{"messages": benchMessages(i, msgs)}
		if _, err := store.Save(ctx, doc, storage.SaveOptions{Session: fmt.Sprintf("s%05d", i), Source: "cli", Time: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			b.Fatal(err)
		}
	}
	srv, err := New(store, Options{Addr: "127.0.0.1:7414"})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

func benchMessages(session, n int) []any {
	out := make([]any, n)
	for i := range out {
		if i%2 == 0 {
			out[i] = map[string]any{"role": "user", "content": fmt.Sprintf("prompt %d of session %d: fix the failing test", i, session)}
			continue
		}
		out[i] = map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "id": fmt.Sprintf("msg_%d_%d", session, i),
			"content": []any{map[string]any{"type": "text", "text": "Done: the test passes now."}},
			"usage":   map[string]any{"input_tokens": 100 + i, "output_tokens": 20, "cache_read_input_tokens": 1000 * i}}
	}
	return out
}

func serve(b *testing.B, srv *Server, path string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1:7414"
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %.300s", path, w.Code, w.Body)
	}
}

// BenchmarkSessionsPage is the sessions page of 10,000 sessions, once
// each session's summary is read (Warm, as git snap view does at start).
func BenchmarkSessionsPage(b *testing.B) {
	srv := benchServer(b, 10000, 20)
	start := time.Now()
	if err := srv.Warm(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "warm-ms")
	for _, path := range []string{"/", "/?sort=tokens", "/?q=session+9999"} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				serve(b, srv, path)
			}
		})
	}
}

// BenchmarkTimeline is the timeline of the longest real session in
// testdata (1,512 records, 150 tool calls, thinking, a compaction), its
// objects loose as the hooks write them, then packed by git gc; again
// and from nothing kept (-first: the page's first render).
func BenchmarkTimeline(b *testing.B) {
	f, err := buildFixture(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	_, port, _ := strings.Cut(f.addr, ":")
	first := false
	page := func(b *testing.B) {
		for b.Loop() {
			if first {
				f.srv.bodies.reset()
			}
			req := httptest.NewRequest(http.MethodGet, "/session/4d5611e5-241a-462a-8d15-5122611a9569", nil)
			req.Host = "127.0.0.1:" + port
			w := httptest.NewRecorder()
			f.srv.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatal(w.Code)
			}
		}
	}
	b.Run("loose", page)
	first = true
	b.Run("loose-first", page)
	first = false
	if out, err := exec.Command("git", "-C", f.dir, "gc", "-q").CombinedOutput(); err != nil {
		b.Fatalf("git gc: %v %s", err, out)
	}
	b.Run("packed", page)
	first = true
	b.Run("packed-first", page)
}
