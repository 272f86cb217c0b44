package cmdline

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

type migrateOptions struct {
	DryRun bool
	Remote string // a remote to move into shards, instead of checkpoints
}

func cmdMigrate(e *env) *cli.Command {
	return &cli.Command{
		Name:  "migrate",
		Usage: "move checkpoints out of refs/tags/, or a remote's sessions into the few refs that carry them",
		Description: `Moves every checkpoint to where checkpoints are kept now: annotated tags under
refs/snap-tags/<session>/<name>, which git tag -l, git push --tags and git clone leave
alone. Versions before kept them under refs/tags/snap/; until they are moved, every
command says so in one line (and still reads them there). The tag objects stay the
same; each move is in the ref's reflog. With refs.checkpoints_in_tags: true in the
config, checkpoints are kept under refs/tags/snap/ and migrate moves them there. A
remote pushed to before keeps its copies under refs/tags/snap/ until they are deleted
there.

With --remote, moves a remote that keeps one ref per session (as versions before pushed
them) into the 64 refs under refs/snap-shards/ that carry sessions now, so that git
push, fetch and clone of code to that remote no longer list every session. Each
session's ref is deleted there only while it is where the migration fetched it; run it
again to move what an older version pushed meanwhile. Clones with an older version no
longer see the sessions: upgrade them first.

Examples:
   git snap migrate --dry-run
   git snap migrate
   git snap migrate --remote origin`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would move, move nothing"},
			&cli.StringFlag{Name: "remote", Usage: "move this remote's sessions into shards instead"},
		},
		Action: action(e, shape{}, func(c *cli.Context) (migrateOptions, error) {
			return migrateOptions{DryRun: c.Bool("dry-run"), Remote: c.String("remote")}, nil
		}, runMigrate),
	}
}

// runMigrate moves the checkpoints and says each move.
func runMigrate(ctx context.Context, d *deps, o migrateOptions) error {
	if o.Remote != "" {
		return runMigrateRemote(ctx, d, o)
	}
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

// runMigrateRemote moves a remote's sessions into shards and says how
// many.
func runMigrateRemote(ctx context.Context, d *deps, o migrateOptions) error {
	res, err := d.repo.MigrateRemote(ctx, gitstore.RemoteOptions{Remote: o.Remote, Progress: d.progress}, o.DryRun)
	if err != nil {
		return err
	}
	verb := "moved"
	if o.DryRun {
		verb = "would move"
	}
	fmt.Fprintf(d.out, "%s %d sessions of %s into %s\n", verb, res.Moved, o.Remote, gitstore.ShardPrefix)
	if len(res.Diverged) > 0 {
		fmt.Fprintf(d.out, "%d sessions moved on both in their own refs and in the shards: %s; merged here: git snap pull %s, git snap push %s, then git snap migrate --remote %s again\n",
			len(res.Diverged), strings.Join(res.Diverged, ", "), o.Remote, o.Remote, o.Remote)
	}
	return nil
}
