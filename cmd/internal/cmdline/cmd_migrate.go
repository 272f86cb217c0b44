package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

type migrateOptions struct{ DryRun bool }

func cmdMigrate(e *env) *cli.Command {
	return &cli.Command{
		Name:  "migrate",
		Usage: "move checkpoints out of refs/tags/ (where git push --tags and git clone carry them)",
		Description: `Moves every checkpoint to where checkpoints are kept now: annotated tags under
refs/snap-tags/<session>/<name>, which git tag -l, git push --tags and git clone leave
alone. Versions before kept them under refs/tags/snap/; until they are moved, every
command says so in one line (and still reads them there). The tag objects stay the
same; each move is in the ref's reflog. With refs.checkpoints_in_tags: true in the
config, checkpoints are kept under refs/tags/snap/ and migrate moves them there. A
remote pushed to before keeps its copies under refs/tags/snap/ until they are deleted
there.

Examples:
   git snap migrate --dry-run
   git snap migrate`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would move, move nothing"},
		},
		Action: action(e, shape{}, func(c *cli.Context) (migrateOptions, error) {
			return migrateOptions{DryRun: c.Bool("dry-run")}, nil
		}, runMigrate),
	}
}

// runMigrate moves the checkpoints and says each move.
func runMigrate(ctx context.Context, d *deps, o migrateOptions) error {
	moved, err := d.repo.MigrateCheckpoints(ctx, o.DryRun)
	if err != nil {
		return err
	}
	if len(moved) == 0 {
		fmt.Fprintln(d.out, "nothing to move: every checkpoint is where checkpoints are kept")
		return nil
	}
	verb := "moved"
	if o.DryRun {
		verb = "would move"
	}
	for _, m := range moved {
		fmt.Fprintf(d.out, "%s %s -> %s\n", verb, m.From, m.To)
		if m.Kept {
			fmt.Fprintf(d.out, "  (the name is taken there by another tag, which stays; this one is kept as a former place of the name)\n")
		}
	}
	return nil
}

// noticeCheckpoints says, in one line, that checkpoints are still where
// they are no longer kept, and how to move them.
func noticeCheckpoints(ctx context.Context, d *deps) {
	refs, prefix, err := d.repo.CheckpointsElsewhere(ctx)
	if err != nil || len(refs) == 0 {
		return
	}
	where := "git push --tags and git clone carry them; git snap migrate moves them to " + gitstore.CheckpointPrefix
	if prefix != gitstore.TagPrefix {
		where = "the config keeps checkpoints under " + gitstore.TagPrefix + "; git snap migrate moves them there"
	}
	fmt.Fprintf(d.errOut, "git-snap: %d checkpoint(s) under %s: %s\n", len(refs), prefix, where)
}
