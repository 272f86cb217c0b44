package viewer

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/report"
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
	return &timelineBody{
		Numbers: sess.Numbers, Body: body, Tools: toolsOf(sess),
		Turns: turnsOf(sess.Turns, sess.Messages, s.opts.Prices), Chart: chartOf(sess.Messages, 600, 80),
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
// or coming back to it, reads nothing again.
type bodyCache struct {
	mu   sync.Mutex
	keys []string // oldest first
	byID map[string]*timelineBody
}

const maxBodies = 16

func (c *bodyCache) get(key string) *timelineBody {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byID[key]
}

// reset forgets every body, for a benchmark of the first render.
func (c *bodyCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys, c.byID = nil, nil
}

func (c *bodyCache) put(key string, b *timelineBody) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = map[string]*timelineBody{}
	}
	if _, ok := c.byID[key]; ok {
		return
	}
	if len(c.keys) >= maxBodies {
		delete(c.byID, c.keys[0])
		c.keys = c.keys[1:]
	}
	c.keys = append(c.keys, key)
	c.byID[key] = b
}

// Export is the query that exports what the page shows.
func (v *timelineView) Export() string {
	if v.From == "" {
		return ""
	}
	return "?" + url.Values{"from": {v.From}}.Encode()
}

func (s *Server) timelinePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := &timelineView{Rev: r.PathValue("rev"), From: r.URL.Query().Get("from"), Now: s.opts.Now()}
	var (
		key    string
		cached *timelineBody
	)
	err := s.read(ctx, func(st *gitstore.Store) error {
		id, err := st.Resolve(ctx, v.Rev)
		if err != nil {
			return err
		}
		if v.Entry, err = st.Entry(ctx, id); err != nil {
			return err
		}
		if v.Checkpoints, err = st.Checkpoints(ctx, v.Entry.Header.Session, false); err != nil {
			return err
		}
		if v.Others, err = chain(ctx, st, id); err != nil {
			return err
		}
		from := v.From
		if from != "" { // "a~2" names another snapshot as a grows
			fid, err := st.Resolve(ctx, from)
			if err != nil {
				return err
			}
			from = fid.String()
		}
		key = bodyKey(id.String(), from, v.Checkpoints)
		if cached = s.bodies.get(key); cached != nil {
			return nil
		}
		sess, err := report.Load(ctx, st, id.String(), report.Options{From: from, Prices: s.opts.Prices})
		if err != nil {
			return err
		}
		cached, err = s.timelineBody(sess)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.bodies.put(key, cached)
	v.timelineBody = *cached
	s.render(w, r, "timeline", page{Title: v.Entry.Header.Session, Nav: "sessions", Data: v})
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

// toolsOf lists the tools a timeline calls, in the order first called.
func toolsOf(sess *report.Session) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range sess.Turns {
		for _, it := range t.Items {
			if it.Tool != nil && !seen[it.Tool.Name] {
				seen[it.Tool.Name] = true
				out = append(out, it.Tool.Name)
			}
		}
	}
	return out
}

// loadReport reads rev (from a start, when given) as report does.
func (s *Server) loadReport(ctx context.Context, rev, from string) (*report.Session, error) {
	var sess *report.Session
	err := s.read(ctx, func(st *gitstore.Store) error {
		var err error
		sess, err = report.Load(ctx, st, rev, report.Options{From: from, Prices: s.opts.Prices})
		return err
	})
	return sess, err
}
