package cmdline

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

func cmdPush(e *env) *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "send sessions and their checkpoints to a remote",
		ArgsUsage: "[REMOTE] [SESSION…]",
		Description: `Pushes refs/snap/<session> and its checkpoints, refs/snap-tags/<session>/* (and
refs/tags/snap/<session>/* not yet migrated), for all sessions or those named, to REMOTE (origin by default): nothing else of the repository, and the remote's
configuration is not changed. A session that moved on there is refused: pull first.
After a prune, push --force-with-lease replaces the remote's history of a session
and moves its checkpoints, each only while the remote still has what this clone
last fetched from it; another clone's pull then takes the pruned history.

Examples:
   git snap push
   git snap push origin fix-login
   git snap prune fix-login --keep-last 20 && git snap push --force-with-lease`,
		Flags: append(remoteFlags(), &cli.BoolFlag{Name: "force-with-lease",
			Usage: "replace the remote's sessions and checkpoints (after a prune) while they are as last fetched"},
			&cli.BoolFlag{Name: "delete", Usage: "remove the sessions named from the remote, while they are as last fetched (checkpoints stay)"}),
		Action: action(e, shape{max: -1}, e.parseRemote, runPush),
	}
}

// runPush pushes the sessions o names, or all, with their checkpoints.
func runPush(ctx context.Context, d *deps, o gitstore.RemoteOptions) error {
	var err error
	if o.Delete {
		// The sessions are the remote's, perhaps gone here.
		return deleteRemote(ctx, d, o)
	}
	if o.Sessions, err = d.sessionArgs(ctx, o.Sessions); err != nil {
		return err
	}
	if err := d.repo.Push(ctx, o); err != nil {
		return err
	}
	remote := or(o.Remote, "origin")
	fmt.Fprintf(d.out, "pushed to %s\n", remote)
	if old, err := d.repo.KeepsRefPerSession(remote); err == nil && old {
		fmt.Fprintf(d.errOut, "git-snap: note: %s keeps a ref per session, which every git push of code to it lists; git snap migrate --remote %s moves them into a few (docs/sharing.md)\n", remote, remote)
	}
	return nil
}

// or is s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// deleteRemote removes the sessions o names from the remote.
func deleteRemote(ctx context.Context, d *deps, o gitstore.RemoteOptions) error {
	if err := d.repo.Push(ctx, o); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "removed %s from %s\n", strings.Join(o.Sessions, ", "), or(o.Remote, "origin"))
	return nil
}
