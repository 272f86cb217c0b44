package viewer

import (
	"html/template"
	"net/http"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// timelineView is the session page's data around the timeline itself.
type timelineView struct {
	Rev         string // as the URL gives it
	Entry       gitstore.Entry
	Now         time.Time
	Numbers     agent.Numbers
	Turns       []turn
	Chart       chart
	Checkpoints []gitstore.Checkpoint
	Tools       []string      // the tools called, for the rail's filter
	Body        template.HTML // the timeline, as package report writes it
}

func (s *Server) timelinePage(w http.ResponseWriter, r *http.Request) {
	ctx, rev := r.Context(), r.PathValue("rev")
	v := &timelineView{Rev: rev, Now: s.opts.Now()}
	var doc map[string]any
	err := s.read(ctx, func(st *gitstore.Store) error {
		id, err := st.Resolve(ctx, rev)
		if err != nil {
			return err
		}
		if doc, v.Entry, err = st.Read(ctx, id); err != nil {
			return err
		}
		v.Checkpoints, err = st.Checkpoints(ctx, v.Entry.Header.Session, false)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	src := v.Entry.Header.Source
	a, _ := agent.Lookup(src, agent.Env{})
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	v.Numbers = agent.NumbersOf(doc, src)
	c := agent.EstimateCost(v.Numbers.ByModel, s.opts.Prices)
	v.Numbers.Cost = &c
	v.Turns = turnsOf(msgs, a, s.opts.Prices)
	v.Chart = chartOf(msgs, 600, 80)
	v.Tools = toolsOf(msgs)
	s.render(w, r, "timeline", page{Title: v.Entry.Header.Session, Nav: "sessions", Session: v.Entry.Header.Session, Data: v})
}

// toolsOf lists the tools a conversation calls, in the order first
// called.
func toolsOf(msgs []any) []string {
	seen := map[string]bool{}
	var out []string
	for _, raw := range msgs {
		for _, p := range agent.ViewMessage(raw).Parts {
			if p.Kind == snapshot.PartToolCall && !seen[p.Tool] {
				seen[p.Tool] = true
				out = append(out, p.Tool)
			}
		}
	}
	return out
}
