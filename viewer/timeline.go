package viewer

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/report"
	"github.com/git-snap/git-snap/storage"
)

// timelineView is the session page's data around the timeline itself,
// which package report writes.
type timelineView struct {
	Rev         string // as the URL gives it
	From        string // the start of the range shown, "" for the whole session
	Entry       storage.Entry
	Now         time.Time
	Checkpoints []storage.Checkpoint
	Others      []storage.Entry // the session's snapshots, to start a range at
	// Follow is set when the page shows its session's newest snapshot by
	// the session's name: the page then takes in the snapshots saved
	// while it is open (a running session), without a reload.
	Follow bool
	timelineBody
}

// timelineBody is what the session page shows of one snapshot (or
// range): it depends only on the snapshot, which never changes, and on
// the checkpoints set, so it is kept (see bodyCache).
type timelineBody struct {
	Numbers agent.Numbers // of the range
	Turns   []turn
	Chart   chart
	Tools   []string      // the tools called, for the rail's filter
	Body    template.HTML // report's fragment
}

// outlineOf is what the page shows around the timeline of a session
// report.Open read: its numbers, turns with their tokens, chart and
// tools. The timeline itself is written as it is read (streamTimeline).
func (s *Server) outlineOf(sess *report.Session) *timelineBody {
	turns, chart := turnsOf(sess.Turns, sess.ThreadTurns(), sess.EachCall, s.opts.Prices, 600, 80)
	return &timelineBody{Numbers: sess.Numbers, Tools: sess.Tools, Turns: turns, Chart: chart}
}

// bodyKey names a timeline body: the snapshot, the range's start and the
// checkpoints, whose markers it shows.
func bodyKey(id, from string, cps []storage.Checkpoint) string {
	var b strings.Builder
	b.WriteString(id + " " + from)
	for _, cp := range cps {
		b.WriteString(" " + cp.Name + "=" + cp.Target.String())
	}
	return b.String()
}

// bodyCache keeps the last timeline bodies rendered: reloading a page,
// or coming back to it, reads nothing again. It is bounded in bytes, not
// bodies: one body of a 20 MB session is tens of MB, and a count of
// bodies let 17 revisions of one such session hold over a GiB. A body
// over maxKeptBody is not kept at all: such a timeline is read and sent
// again a turn at a time, never held whole (docs/design.md §8).
type bodyCache struct {
	mu    sync.Mutex
	keys  []string // oldest first
	byID  map[string]*timelineBody
	sizes map[string]int
	bytes int // the sum of sizes
	limit int // 0: maxBodyBytes
}

const (
	maxBodies    = 16
	maxBodyBytes = 16 << 20 // of every body kept
	maxKeptBody  = 2 << 20  // of the markup of one body kept; a larger one is not kept
)

func (c *bodyCache) get(key string) *timelineBody {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byID[key]
}

// reset forgets every body, for a benchmark of the first render.
func (c *bodyCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys, c.byID, c.sizes, c.bytes = nil, nil, nil, 0
}

func (c *bodyCache) put(key string, b *timelineBody) {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.limit
	if limit == 0 {
		limit = maxBodyBytes
	}
	size := b.size() + len(key)
	if size > limit {
		return // kept, it would push out everything else and still be too big
	}
	if c.byID == nil {
		c.byID, c.sizes = map[string]*timelineBody{}, map[string]int{}
	}
	if _, ok := c.byID[key]; ok {
		return
	}
	for len(c.keys) > 0 && (len(c.keys) >= maxBodies || c.bytes+size > limit) {
		old := c.keys[0]
		c.bytes -= c.sizes[old]
		delete(c.byID, old)
		delete(c.sizes, old)
		c.keys = c.keys[1:]
	}
	c.keys = append(c.keys, key)
	c.byID[key] = b
	c.sizes[key] = size
	c.bytes += size
}

// size is about what a body holds in memory: its markup, and its turns,
// tools and chart by their strings and a fixed cost each.
func (b *timelineBody) size() int {
	n := len(b.Body) + 512
	for _, t := range b.Turns {
		n += 128 + len(t.ID) + len(t.Prompt)
	}
	for _, tool := range b.Tools {
		n += 16 + len(tool)
	}
	return n + len(b.Chart.Context) + len(b.Chart.Output)
}

// Export is the query that exports what the page shows.
func (v *timelineView) Export() string {
	if v.From == "" {
		return ""
	}
	return "?" + url.Values{"from": {v.From}}.Encode()
}

// timelinePage sends the page in parts, so that a long session shows
// while it is still being read and is never held whole: the head once
// the snapshot is found, then, once report has read the session's
// outline (or found it kept), the numbers, the rail and the timeline a
// turn at a time, flushed to the browser about every chunkBytes.
func (s *Server) timelinePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := &timelineView{Rev: r.PathValue("rev"), From: r.URL.Query().Get("from"), Now: s.opts.Now()}
	var id, from, key string
	err := s.read(ctx, func(st storage.Reader) error {
		var err error
		id, from, key, err = s.timelineHead(ctx, st, v)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := page{Title: v.Entry.Header.Session, Nav: "sessions", Data: v}
	t := s.pages["timeline"]
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	rc := http.NewResponseController(w)
	if t.ExecuteTemplate(w, "top", p) != nil || t.ExecuteTemplate(w, "timeline-head", p) != nil {
		return // the client left, or a template failed on data it was made for
	}
	_ = rc.Flush()
	if body := s.bodies.get(key); body != nil {
		v.timelineBody = *body
		s.sendKept(w, rc, p)
		return
	}
	if err := s.streamTimeline(ctx, w, rc, v, id, from, key); err != nil {
		if !errors.Is(err, context.Canceled) {
			_ = t.ExecuteTemplate(w, "timeline-failed", "cannot read this session: "+err.Error())
			_ = t.ExecuteTemplate(w, "bottom", p)
		}
		return
	}
	_ = t.ExecuteTemplate(w, "timeline-end", p)
	_ = t.ExecuteTemplate(w, "bottom", p)
}

// sendKept writes the rest of the page from a body kept.
func (s *Server) sendKept(w http.ResponseWriter, rc *http.ResponseController, p page) {
	t := s.pages["timeline"]
	v := p.Data.(*timelineView)
	if t.ExecuteTemplate(w, "timeline-rest", p) != nil {
		return
	}
	for _, chunk := range chunksOf(string(v.Body), chunkBytes) {
		if _, err := io.WriteString(w, chunk); err != nil {
			return
		}
		_ = rc.Flush()
	}
	_ = t.ExecuteTemplate(w, "timeline-end", p)
	_ = t.ExecuteTemplate(w, "bottom", p)
}

// streamTimeline reads the session's outline, writes the numbers and the
// rail, then the timeline as report writes it, a turn at a time. A
// timeline of at most maxKeptBody is kept for the next request.
func (s *Server) streamTimeline(ctx context.Context, w io.Writer, rc *http.ResponseController, v *timelineView, id, from, key string) error {
	sess, err := s.loadReport(ctx, id, from)
	if err != nil {
		return err
	}
	outline := s.outlineOf(sess)
	v.timelineBody = *outline
	p := page{Title: v.Entry.Header.Session, Nav: "sessions", Data: v}
	if err := s.pages["timeline"].ExecuteTemplate(w, "timeline-rest", p); err != nil {
		return err
	}
	out := &chunked{w: w, rc: rc, keep: &bytes.Buffer{}, limit: maxKeptBody}
	if err := report.WriteHTML(ctx, out, sess, report.HTMLOptions{Fragment: true, Turn: s.md.turn}); err != nil {
		return err
	}
	_ = rc.Flush()
	if out.keep != nil {
		outline.Body = template.HTML(out.keep.String()) // report's html/template escaped every value
		s.bodies.put(key, outline)
	}
	return nil
}

// chunked writes a timeline to the client, flushed about every
// chunkBytes, and keeps a copy of it while it is at most limit bytes
// (keep is nil once it is over).
type chunked struct {
	w       io.Writer
	rc      *http.ResponseController
	pending int // written since the last flush
	keep    *bytes.Buffer
	limit   int
}

func (c *chunked) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil {
		return n, err
	}
	if c.keep != nil && c.keep.Len()+n > c.limit {
		c.keep = nil // too long to keep: it is read again when asked for again
	} else if c.keep != nil {
		c.keep.Write(p[:n])
	}
	if c.pending += n; c.pending >= chunkBytes {
		c.pending = 0
		_ = c.rc.Flush()
	}
	return n, nil
}

// timelineHead reads what the page's head shows, under the store's
// lock: the snapshot, its checkpoints and the session's other
// snapshots. It returns the snapshot's id, the range's start as an id,
// and the key of the body in the cache.
func (s *Server) timelineHead(ctx context.Context, st storage.Reader, v *timelineView) (id, from, key string, err error) {
	h, err := st.Resolve(ctx, v.Rev)
	if err != nil {
		return "", "", "", err
	}
	if v.Entry, err = st.Entry(ctx, h); err != nil {
		return "", "", "", err
	}
	if v.Checkpoints, err = st.Checkpoints(ctx, v.Entry.Header.Session, false); err != nil {
		return "", "", "", err
	}
	if v.Others, err = chain(ctx, st, h); err != nil {
		return "", "", "", err
	}
	if tip, err := st.SessionTip(v.Entry.Header.Session); err == nil && tip == h {
		rev := strings.ToLower(v.Rev)
		v.Follow = !strings.ContainsAny(v.Rev, "~^") && !strings.HasPrefix(h.String(), rev)
	}
	if v.From != "" { // "a~2" names another snapshot as a grows
		fid, err := st.Resolve(ctx, v.From)
		if err != nil {
			return "", "", "", err
		}
		fe, err := st.Entry(ctx, fid)
		if err != nil {
			return "", "", "", err
		}
		// Refused here, with its status, before the page is sent.
		if err := report.CheckRange(v.From, v.Rev, fe, v.Entry); err != nil {
			return "", "", "", err
		}
		from = fid.String()
	}
	return h.String(), from, bodyKey(h.String(), from, v.Checkpoints), nil
}

// chunkBytes is about how much of the timeline is written between
// flushes. A turn can hold hundreds of tool calls, so the cuts are by
// size, at the end of a line (report writes an element a line).
const chunkBytes = 64 << 10

// chunksOf cuts body into pieces of at least n bytes, each but the last
// ending with a newline.
func chunksOf(body string, n int) []string {
	var out []string
	for len(body) > n {
		i := strings.IndexByte(body[n:], '\n')
		if i < 0 {
			break
		}
		out = append(out, body[:n+i+1])
		body = body[n+i+1:]
	}
	return append(out, body)
}

// loadReport opens rev (from a start, when given) as show reads it
// (gitsnap.ShowFrom), to be written a turn at a time.
func (s *Server) loadReport(ctx context.Context, rev, from string) (*report.Session, error) {
	snap, err := gitsnap.ShowFrom(ctx, locked{s}, rev)
	if err != nil {
		return nil, err
	}
	return report.Open(ctx, locked{s}, snap, report.Options{From: from, Prices: s.opts.Prices, Calls: true})
}
