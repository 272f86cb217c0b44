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

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/report"
	"github.com/git-snap/git-snap/snapshot"
)

// timelineView is the session page's data around the timeline itself,
// which package report writes.
type timelineView struct {
	Rev         string // as the URL gives it
	From        string // the start of the range shown, "" for the whole session
	Entry       gitstore.Entry
	Now         time.Time
	Checkpoints []gitstore.Checkpoint
	Others      []gitstore.Entry // the session's snapshots, to start a range at
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

// timelineBody renders what report read.
func (s *Server) timelineBody(sess *report.Session) (*timelineBody, error) {
	body, err := s.fragment(sess)
	if err != nil {
		return nil, err
	}
	calls := snapshot.ModelCalls(sess.Messages, agent.ViewMessage) // read once, for the turns and the chart
	return &timelineBody{
		Numbers: sess.Numbers, Body: body, Tools: toolsOf(sess),
		Turns: turnsOf(sess.Turns, calls, s.opts.Prices), Chart: chartOf(calls, 600, 80),
	}, nil
}

// bodyKey names a timeline body: the snapshot, the range's start and the
// checkpoints, whose markers it shows.
func bodyKey(id, from string, cps []gitstore.Checkpoint) string {
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
// bodies let 17 revisions of one such session hold over a GiB.
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
	maxBodyBytes = 64 << 20 // of every body kept; a larger one is not kept
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
// while it is still being written: the head once the snapshot is found,
// then, once the session is read (or found kept), the numbers, the rail
// and the timeline in chunks, each flushed to the browser.
func (s *Server) timelinePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := &timelineView{Rev: r.PathValue("rev"), From: r.URL.Query().Get("from"), Now: s.opts.Now()}
	var id, from, key string
	err := s.read(ctx, func(st gitstore.Reader) error {
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
	body, err := s.timelineBodyOf(ctx, id, from, key)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			_ = t.ExecuteTemplate(w, "timeline-failed", "cannot read this session: "+err.Error())
			_ = t.ExecuteTemplate(w, "bottom", p)
		}
		return
	}
	v.timelineBody = *body
	if t.ExecuteTemplate(w, "timeline-rest", p) != nil {
		return
	}
	for _, chunk := range chunksOf(string(body.Body), chunkBytes) {
		if _, err := io.WriteString(w, chunk); err != nil {
			return
		}
		_ = rc.Flush()
	}
	_ = t.ExecuteTemplate(w, "timeline-end", p)
	_ = t.ExecuteTemplate(w, "bottom", p)
}

// timelineHead reads what the page's head shows, under the store's
// lock: the snapshot, its checkpoints and the session's other
// snapshots. It returns the snapshot's id, the range's start as an id,
// and the key of the body in the cache.
func (s *Server) timelineHead(ctx context.Context, st gitstore.Reader, v *timelineView) (id, from, key string, err error) {
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

// timelineBodyOf is the body kept under key, else read and rendered
// (and kept).
func (s *Server) timelineBodyOf(ctx context.Context, id, from, key string) (*timelineBody, error) {
	if b := s.bodies.get(key); b != nil {
		return b, nil
	}
	var body *timelineBody
	err := s.read(ctx, func(st gitstore.Reader) error {
		sess, err := report.Load(ctx, st, id, report.Options{From: from, Prices: s.opts.Prices})
		if err != nil {
			return err
		}
		body, err = s.timelineBody(sess)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.bodies.put(key, body)
	return body, nil
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

// fragment writes the timeline as report does for the viewer, answers
// rendered from Markdown.
func (s *Server) fragment(sess *report.Session) (template.HTML, error) {
	s.md.answers(sess)
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, sess, report.HTMLOptions{Fragment: true}); err != nil {
		return "", err
	}
	return template.HTML(buf.String()), nil // report's html/template escaped every value
}

// toolsOf lists the tools a timeline calls, in the order first called,
// its subagents' included.
func toolsOf(sess *report.Session) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range sess.Turns {
		walkItems(t.Items, func(it *report.Item) {
			if it.Kind == report.KindTool && !seen[it.Tool.Name] {
				seen[it.Tool.Name] = true
				out = append(out, it.Tool.Name)
			}
		})
	}
	return out
}

// walkItems calls fn on each item, and on the items of the subagents
// they hold, in order.
func walkItems(items []report.Item, fn func(*report.Item)) {
	for i := range items {
		it := &items[i]
		fn(it)
		switch {
		case it.Tool != nil && it.Tool.Subagent != nil:
			walkItems(it.Tool.Subagent.Items, fn)
		case it.Subagent != nil:
			walkItems(it.Subagent.Items, fn)
		}
	}
}

// loadReport reads rev (from a start, when given) as report does.
func (s *Server) loadReport(ctx context.Context, rev, from string) (*report.Session, error) {
	var sess *report.Session
	err := s.read(ctx, func(st gitstore.Reader) error {
		var err error
		sess, err = report.Load(ctx, st, rev, report.Options{From: from, Prices: s.opts.Prices})
		return err
	})
	return sess, err
}
