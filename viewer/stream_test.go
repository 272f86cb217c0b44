package viewer

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestChunksOf(t *testing.T) {
	body := strings.Repeat("<div>a line</div>\n", 1000) + "<p>no newline at the end</p>"
	chunks := chunksOf(body, 1000)
	if strings.Join(chunks, "") != body {
		t.Fatal("the chunks put together are not the body")
	}
	for i, c := range chunks[:len(chunks)-1] {
		if len(c) < 1000 || !strings.HasSuffix(c, "\n") || len(c) > 1000+len("<div>a line</div>\n") {
			t.Errorf("chunk %d is %d bytes ending %q", i, len(c), c[len(c)-5:])
		}
	}
	if got := chunksOf("short", 1000); len(got) != 1 || got[0] != "short" {
		t.Errorf("a short body is cut into %q", got)
	}
	if got := chunksOf(strings.Repeat("x", 3000), 1000); len(got) != 1 {
		t.Errorf("a body with no line end is cut into %d pieces", len(got))
	}
}

// flushes counts what a handler flushed to the client.
type flushes struct {
	*httptest.ResponseRecorder
	n int
}

func (f *flushes) Flush() { f.n++; f.ResponseRecorder.Flush() }

// A long timeline is sent as it is written: the head at once, then the
// timeline in chunks, each flushed.
func TestTimelineIsSentInParts(t *testing.T) {
	f := testFixture(t)
	for _, reload := range []string{"first", "kept"} {
		req := httptest.NewRequest(http.MethodGet, "/session/"+longSession, nil)
		req.Host = f.addr
		w := &flushes{ResponseRecorder: httptest.NewRecorder()}
		f.srv.ServeHTTP(w, req)
		body := w.Body.String()
		if w.Code != http.StatusOK || !strings.HasSuffix(strings.TrimSpace(body), "</html>") {
			t.Fatalf("%s: status %d, the page ends %q", reload, w.Code, body[max(0, len(body)-80):])
		}
		start := strings.Index(body, `<section class="timeline" id="timeline">`)
		end := strings.LastIndex(body, `</section>`)
		timeline := end - start
		if min := 1 + timeline/(chunkBytes+4096); start < 0 || timeline < 4*chunkBytes || w.n < min {
			t.Errorf("%s: a timeline of %d bytes sent in %d flushes, want at least %d (the head, then about every %d bytes)", reload, timeline, w.n, min, chunkBytes)
		}
	}
}

// A range the page cannot show is refused with its status before any of
// the page is sent.
func TestTimelineRefusesABadRange(t *testing.T) {
	f := testFixture(t)
	for _, c := range []struct{ path, want string }{
		{"/session/demo~3?from=demo", "newer than"},
		{"/session/demo?from=" + longSession, "two sessions"},
		{"/session/demo?from=nothing-here", "nothing-here"},
	} {
		resp, body := get(t, f, http.MethodGet, c.path, nil)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, c.want) || strings.Contains(body, `id="session-head"`) {
			t.Errorf("GET %s: status %d, want 404 saying %q and no page head: %.300s", c.path, resp.StatusCode, c.want, body)
		}
	}
}

// The timeline is written through chunked: flushed about every
// chunkBytes, and a copy kept for the cache only while it is at most
// its limit. A timeline longer than that is not held whole: the copy
// is dropped once the limit is passed and nothing more is added to it.
func TestChunkedKeepsNoLongTimeline(t *testing.T) {
	line := strings.Repeat("x", 1023) + "\n"
	for _, c := range []struct {
		lines int
		kept  bool
	}{{10, true}, {3 * chunkBytes / 1024, false}} {
		w := &flushes{ResponseRecorder: httptest.NewRecorder()}
		out := &chunked{w: w, rc: http.NewResponseController(w), keep: &bytes.Buffer{}, limit: 64 << 10}
		for range c.lines {
			if _, err := out.Write([]byte(line)); err != nil {
				t.Fatal(err)
			}
		}
		sent := c.lines * len(line)
		if w.Body.Len() != sent || w.n < sent/chunkBytes {
			t.Errorf("%d bytes: %d sent in %d flushes, want all in at least %d", sent, w.Body.Len(), w.n, sent/chunkBytes)
		}
		if kept := out.keep != nil; kept != c.kept || kept && out.keep.String() != w.Body.String() {
			t.Errorf("%d bytes: a copy kept %v, want %v (and the same bytes)", sent, kept, c.kept)
		}
	}
}
