package cmdline

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/cmd/internal/programs"
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
error response naming the step, which the agent shows. Requests outside the
conversation (no tools offered: a title, say) get a short answer.

Without REV, the newest snapshot of $GIT_SNAP_SESSION, else of session: in the
config, else of the most recently active session.

Examples:
   git snap replay snap/fix-login/green > model-script.jsonl
   git snap replay --serve fix-login`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "serve", Usage: "serve the outputs as the agent's model API"},
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "with --serve, listen on `ADDR` (port 0: a free one)"},
		},
		Action: action(e, shape{max: 1}, parseReplay, runReplay),
	}
}

type replayOptions struct {
	Rev   string
	Serve bool
	Addr  string
}

// apart: the model APIs are served by git-snap-http.
func (o replayOptions) apart() (programs.Program, string) {
	if o.Serve {
		return programs.HTTP, "git snap replay --serve"
	}
	return "", ""
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
	doc, entry, err := d.store.ReadRevision(ctx, rev)
	if err != nil {
		return err
	}
	if o.Serve {
		return d.has.Replay(ctx, programs.ReplayRequest{Doc: doc, Header: entry.Header, Addr: o.Addr, AgentEnv: d.agentEnv, Out: d.out, Err: d.errOut})
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
