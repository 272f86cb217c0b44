package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
)

func cmdReplay(e *env) *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "print a snapshot's recorded model outputs, in order, as JSONL",
		ArgsUsage: "[REV]",
		Description: `Prints one JSON line per recorded model call: its content (text, thinking, tool
calls with their input), model and token usage. The same snapshot always gives the same
bytes: a script a mock model can serve to repeat the run offline.

Without REV, the newest snapshot of $GIT_SNAP_SESSION, else of session: in the
config, else of the most recently active session.

Example:
   git snap replay snap/fix-login/green > model-script.jsonl`,
		Action: action(e, shape{max: 1}, parseReplay, runReplay),
	}
}

type replayOptions struct{ Rev string }

func parseReplay(c *cli.Context) (replayOptions, error) {
	return replayOptions{Rev: c.Args().First()}, nil
}

// runReplay prints o.Rev's model outputs, one canonical JSON line each.
func runReplay(ctx context.Context, d *deps, o replayOptions) error {
	rev, err := d.revOrSession(ctx, o.Rev, "")
	if err != nil {
		return err
	}
	doc, _, err := d.store.ReadRevision(ctx, rev)
	if err != nil {
		return err
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
