package cmdline

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/internal/loopback"
	"github.com/git-snap/git-snap/modelapi"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
)

func cmdReplay(e *env) *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "print a snapshot's recorded model outputs as JSONL, or serve them to the agent",
		ArgsUsage: "[REV]",
		Description: `Prints one JSON line per recorded model call: its content (text, thinking, tool
calls with their input), model and token usage. The same snapshot always gives the same
bytes: a script a mock model can serve to repeat the run offline.

--serve serves them instead, as the model API the session's agent speaks (Claude Code:
Anthropic Messages; Codex: OpenAI Responses; Gemini CLI: Gemini generateContent;
Copilot CLI and OpenCode: OpenAI Chat Completions), on
127.0.0.1 (--addr another address),
until interrupted. Point the agent at the address it prints and give it the same
prompts: it re-runs the session offline and makes the same tool calls. Each recorded
call is served, in order, only to a request that sends what the agent sent before it
(the same prompt, the results of the same tool calls); any other request gets an
error response naming the step, which the agent shows, and stderr says what the
recording has there. Requests outside the conversation (no tools offered: a title,
say) get a short answer. Only JSON requests naming the address (or localhost) and
sent by no web page of another site are answered.

Without REV, the newest snapshot of $GIT_SNAP_SESSION, else of session: in the
config, else of the most recently active session.

Examples:
   git snap replay snap/fix-login/green > model-script.jsonl
   git snap replay --serve fix-login`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "serve", Usage: "serve the outputs as the agent's model API"},
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "with --serve, listen on `ADDR` (port 0: a free one)"},
			rawFlag(),
		},
		Action: action(e, shape{max: 1}, parseReplay, runReplay),
	}
}

type replayOptions struct {
	Rev   string
	Serve bool
	Addr  string
}

func parseReplay(c *cli.Context) (replayOptions, error) {
	o := replayOptions{Rev: c.Args().First(), Serve: c.Bool("serve"), Addr: c.String("addr")}
	if c.IsSet("addr") && !o.Serve {
		return o, usagef("--addr goes with --serve")
	}
	return o, nil
}

// runReplay prints o.Rev's model outputs, one canonical JSON line each,
// or serves them.
func runReplay(ctx context.Context, d *deps, o replayOptions) error {
	rev, err := d.revOrSession(ctx, o.Rev, "")
	if err != nil {
		return err
	}
	doc, entry, err := d.repo.ReadRevision(ctx, rev)
	if err != nil {
		return err
	}
	if o.Serve {
		return serveReplay(ctx, d, doc, entry.Header, o.Addr)
	}
	for out := range agent.Replay(doc) {
		line, err := snapshot.Marshal(render.Value(out))
		if err != nil {
			return err
		}
		if _, err := d.out.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// serveReplay serves doc's model calls, recorded as h says, as the model
// API its agent speaks (package modelapi) on addr until ctx ends,
// printing the address and how to point the agent at it, on stderr what
// each request got, and at the end how many calls were served.
func serveReplay(ctx context.Context, d *deps, doc map[string]any, h snapshot.Header, addr string) error {
	api, script, err := modelapi.ReplayScript(doc, h.Source)
	if err != nil {
		return err
	}
	logged := &loggedScript{script: script, w: d.errOut}
	srv, err := modelapi.Start(ctx, api, modelapi.Options{Addr: addr}, logged)
	if err != nil {
		return fmt.Errorf("serve the replay: %w", err)
	}
	defer srv.Close()
	if loopback.Exposed(addr) {
		fmt.Fprintf(d.errOut, "warning: listening on %s: anyone who can reach this address can read the session's recorded model outputs\n", addr)
	}
	fmt.Fprintf(d.out, "serving %s of %s as %s at %s\n", render.Count(len(script.Steps), "model call"), h.Session, srv.API().Title(), srv.URL())
	if a, err := agent.Lookup(h.Source, d.agentEnv); err == nil {
		if m, ok := a.(agent.ModelAPIer); ok {
			fmt.Fprintf(d.out, "point %s at it:\n    %s\n", h.Source, strings.ReplaceAll(m.ModelEndpoint(srv.URL()), "\n", "\n    "))
		}
	}
	if f, ok := d.out.(interface{ Flush() error }); ok {
		_ = f.Flush() // the address is read before anything is served
	}
	<-ctx.Done()
	srv.Close()
	srv.Wait()
	fmt.Fprintf(d.errOut, "served %d of %s\n", script.Served(), render.Count(len(script.Steps), "model call"))
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
