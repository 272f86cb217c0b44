package httpprog

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/cmd/internal/programs"
	"github.com/git-snap/git-snap/modelapi"
	"github.com/git-snap/git-snap/render"
)

// Replay is programs.Set's Replay, replay --serve: it serves r.Doc's
// model calls as the model API its agent speaks (package modelapi) on
// r.Addr until ctx ends, printing the address and how to point the
// agent at it, on stderr what each request got, and at the end how many
// calls were served.
func Replay(ctx context.Context, r programs.ReplayRequest) error {
	h := r.Header
	api, script, err := modelapi.ReplayScript(r.Doc, h.Source)
	if err != nil {
		return err
	}
	logged := &loggedScript{script: script, w: r.Err}
	srv, err := modelapi.Start(ctx, api, r.Addr, logged)
	if err != nil {
		return fmt.Errorf("serve the replay: %w", err)
	}
	defer srv.Close()
	fmt.Fprintf(r.Out, "serving %s of %s as %s at %s\n", render.Count(len(script.Steps), "model call"), h.Session, srv.API().Title(), srv.URL())
	if a, err := agent.Lookup(h.Source, r.AgentEnv); err == nil {
		if m, ok := a.(agent.ModelAPIer); ok {
			fmt.Fprintf(r.Out, "point %s at it:\n    %s\n", h.Source, strings.ReplaceAll(m.ModelEndpoint(srv.URL()), "\n", "\n    "))
		}
	}
	if f, ok := r.Out.(interface{ Flush() error }); ok {
		_ = f.Flush() // the address is read before anything is served
	}
	<-ctx.Done()
	srv.Close()
	srv.Wait()
	fmt.Fprintf(r.Err, "served %d of %s\n", script.Served(), render.Count(len(script.Steps), "model call"))
	return nil
}

// loggedScript is a Script that says on stderr what each request got.
type loggedScript struct {
	script *modelapi.Script
	mu     sync.Mutex
	w      io.Writer
}

// Respond answers as the script does, and says what it answered.
func (l *loggedScript) Respond(req *modelapi.Request) (modelapi.Reply, error) {
	rep, err := l.script.Respond(req)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil:
		fmt.Fprintf(l.w, "refused: %v\n", err)
	case req.Side:
		fmt.Fprintf(l.w, "answered a request outside the conversation (%s)\n", req.Model)
	default:
		var tools []string
		for _, c := range rep.ToolCalls {
			tools = append(tools, c.Name)
		}
		what := "its answer"
		if len(tools) > 0 {
			what = "tool calls " + strings.Join(tools, ", ")
		}
		fmt.Fprintf(l.w, "served model call %d of %d: %s\n", l.script.Served(), len(l.script.Steps), what)
	}
	return rep, err
}
