package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"
)

type dropOptions struct {
	Sessions []string
}

func cmdDrop(e *env) *cli.Command {
	return &cli.Command{
		Name:      "drop",
		Usage:     "remove sessions",
		ArgsUsage: "SESSION…",
		Description: `Removes each session's ref and checkpoints. The objects stay until git gc
collects them (git keeps what its reflogs name for a while).

Example:
   git snap drop scratch-1 scratch-2`,
		Action: action(e, shape{min: 1, max: -1}, parseDrop, runDrop),
	}
}

func parseDrop(c *cli.Context) (dropOptions, error) {
	return dropOptions{Sessions: c.Args().Slice()}, nil
}

// runDrop removes the sessions one by one, saying each.
func runDrop(ctx context.Context, d *deps, o dropOptions) error {
	for _, sess := range o.Sessions {
		if err := d.store.Drop(ctx, sess); err != nil {
			return err
		}
		fmt.Fprintf(d.out, "dropped %s\n", sess)
	}
	return nil
}
