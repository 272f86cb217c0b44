package main

import (
	"context"

	"github.com/urfave/cli/v2"
)

// gcOptions is empty: gc takes no flags and no arguments.
type gcOptions struct{}

func cmdGC(e *env) *cli.Command {
	return &cli.Command{
		Name:  "gc",
		Usage: "let git pack and collect the repository (git gc --auto)",
		Description: `Runs git gc --auto, which packs loose objects when there are many. git-snap never
repacks or prunes objects itself: that is git's job.

Example:
   git snap gc`,
		Action: action(e, shape{}, parseGC, runGC),
	}
}

func parseGC(*cli.Context) (gcOptions, error) { return gcOptions{}, nil }

func runGC(ctx context.Context, d *deps, _ gcOptions) error {
	return d.store.GC(ctx)
}
