package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/worktree"
)

func cmdRewind(e *env) *cli.Command {
	return &cli.Command{
		Name:      "rewind",
		Usage:     "put the files the agent touched back as they were at a snapshot",
		ArgsUsage: "REV",
		Description: `Writes the files captured in REV back into the work tree. A file is overwritten
when it still holds what the session's newest snapshot captured (the agent's own later
work); one you changed since is kept unless --force. Stays inside the work tree, never
writes into .git or through a symlink, and lists every file restored or refused.

Examples:
   git snap rewind fix-login~3 --dry-run
   git snap rewind snap/fix-login/green`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "overwrite files changed since"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "only say what would be written"},
		},
		Action: e.storeAction(1, 1, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			id, err := s.Resolve(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			entry, err := s.Entry(c.Context, id)
			if err != nil {
				return err
			}
			tip, err := s.SessionTip(entry.Header.Session)
			if err != nil {
				return err
			}
			latest, _, err := s.Read(c.Context, tip)
			if err != nil {
				return err
			}
			parts, err := snapshot.Split(latest)
			if err != nil {
				return err
			}
			o := worktree.Options{Force: c.Bool("force"), DryRun: c.Bool("dry-run"), Expect: map[string][]byte{}}
			for _, f := range parts.Files {
				o.Expect[f.Path] = f.Content
			}
			if len(parts.Files) == 0 && !o.Force {
				fmt.Fprintln(e.stderr, "git-snap: note: the session's newest snapshot captured no files; only files equal to REV's are left as they are")
			}
			return restoreFiles(c.Context, e.newDeps(c, s, cfg), c.Args().First(), o)
		}),
	}
}
