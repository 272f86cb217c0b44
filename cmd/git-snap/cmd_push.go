package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdPush(e *env) *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "send sessions and their checkpoints to a remote",
		ArgsUsage: "[REMOTE] [SESSION…]",
		Description: `Pushes refs/snap/<session> and refs/tags/snap/<session>/* (all sessions, or those
named) to REMOTE (origin by default): nothing else of the repository, and the remote's
configuration is not changed. A session that moved on there is refused: pull first.

Examples:
   git snap push
   git snap push origin fix-login`,
		Flags: remoteFlags(),
		Action: e.storeAction(0, -1, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			o, err := e.remoteOptions(c)
			if err != nil {
				return err
			}
			if err := s.Push(c.Context, o); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "pushed to %s\n", or(o.Remote, "origin"))
			return nil
		}),
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
