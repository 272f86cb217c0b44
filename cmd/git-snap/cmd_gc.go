package main

import (
	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdGC(e *env) *cli.Command {
	return &cli.Command{
		Name:  "gc",
		Usage: "let git pack and collect the repository (git gc --auto)",
		Description: `Runs git gc --auto, which packs loose objects when there are many. git-snap never
repacks or prunes objects itself: that is git's job.

Example:
   git snap gc`,
		Action: e.storeAction(0, 0, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			return s.GC(c.Context)
		}),
	}
}
