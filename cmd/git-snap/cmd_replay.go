package main

import (
	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

func cmdReplay(e *env) *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "print a snapshot's recorded model outputs, in order, as JSONL",
		ArgsUsage: "REV",
		Description: `Prints one JSON line per recorded model call: its content (text, thinking, tool
calls with their input), model and token usage. The same snapshot always gives the same
bytes: a script a mock model can serve to repeat the run offline.

Example:
   git snap replay snap/fix-login/green > model-script.jsonl`,
		Action: e.storeAction(1, 1, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			doc, _, err := s.ReadRevision(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			for out := range agent.Replay(doc) {
				line, err := snapshot.Marshal(jsonToValue(out))
				if err != nil {
					return err
				}
				if _, err := e.stdout.Write(append(line, '\n')); err != nil {
					return err
				}
			}
			return nil
		}),
	}
}
