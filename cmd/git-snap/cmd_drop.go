package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdDrop(e *env) *cli.Command {
	return &cli.Command{
		Name:      "drop",
		Usage:     "remove sessions",
		ArgsUsage: "SESSION…",
		Description: `Removes each session's ref and checkpoints. The objects stay until git gc
collects them (git keeps what its reflogs name for a while).

Example:
   git snap drop scratch-1 scratch-2`,
		Action: e.storeAction(1, -1, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			for _, sess := range c.Args().Slice() {
				if err := s.Drop(c.Context, sess); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "dropped %s\n", sess)
			}
			return nil
		}),
	}
}
