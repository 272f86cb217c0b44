package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

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
		Action: action(e, shape{min: 1, max: 1}, parseRewind, runRewind),
	}
}

type rewindOptions struct {
	Rev           string
	Force, DryRun bool
}

func parseRewind(c *cli.Context) (rewindOptions, error) {
	return rewindOptions{Rev: c.Args().First(), Force: c.Bool("force"), DryRun: c.Bool("dry-run")}, nil
}

// runRewind writes o.Rev's captured files back, overwriting only files
// that still hold what the session's newest snapshot captured.
func runRewind(ctx context.Context, d *deps, o rewindOptions) error {
	s := d.repo
	id, err := s.Resolve(ctx, o.Rev)
	if err != nil {
		return err
	}
	entry, err := s.Entry(ctx, id)
	if err != nil {
		return err
	}
	tip, err := s.SessionTip(entry.Header.Session)
	if err != nil {
		return err
	}
	latest, _, err := s.Read(ctx, tip)
	if err != nil {
		return err
	}
	parts, err := snapshot.Split(latest)
	if err != nil {
		return err
	}
	wo := worktree.Options{Force: o.Force, DryRun: o.DryRun, Expect: map[string][]byte{}}
	for _, f := range parts.Files {
		wo.Expect[f.Path] = f.Content
	}
	if len(parts.Files) == 0 && !wo.Force {
		fmt.Fprintln(d.errOut, "git-snap: note: the session's newest snapshot captured no files; only files equal to REV's are left as they are")
	}
	return restoreFiles(ctx, d, o.Rev, wo)
}
