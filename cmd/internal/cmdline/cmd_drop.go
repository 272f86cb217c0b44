package cmdline

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

type dropOptions struct {
	Sessions []string
	DryRun   bool
}

func cmdDrop(e *env) *cli.Command {
	return &cli.Command{
		Name:      "drop",
		Usage:     "remove sessions (git snap undrop brings them back)",
		ArgsUsage: "SESSION…",
		Description: `Removes each session's ref and checkpoints, and says what it removed with the
ids. The removal is logged in the session's reflog (git reflog show refs/snap/<session>),
which keeps the objects from git gc until the reflog expires (90 days by default):
until then git snap undrop SESSION brings the session and its checkpoints back.

Examples:
   git snap drop scratch-1 scratch-2
   git snap drop --dry-run scratch-1`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would be removed; remove nothing"},
		},
		Action: action(e, shape{min: 1, max: -1}, parseDrop, runDrop),
	}
}

func parseDrop(c *cli.Context) (dropOptions, error) {
	return dropOptions{Sessions: c.Args().Slice(), DryRun: c.Bool("dry-run")}, nil
}

// runDrop removes the sessions one by one, saying each. Every name is
// checked first, so that a typo drops nothing.
func runDrop(ctx context.Context, d *deps, o dropOptions) error {
	var err error
	if o.Sessions, err = d.sessionArgs(ctx, o.Sessions); err != nil {
		return err
	}
	for _, sess := range o.Sessions {
		if _, err := d.repo.Drop(ctx, sess, true); err != nil {
			return err
		}
	}
	for _, sess := range o.Sessions {
		dropped, err := d.repo.Drop(ctx, sess, o.DryRun)
		if err != nil {
			return err
		}
		verb := "dropped"
		if o.DryRun {
			verb = "would drop"
		}
		printDropped(d.out, verb, dropped)
		if !o.DryRun {
			fmt.Fprintf(d.out, "  to bring it back: git snap undrop %s\n", sess)
		}
	}
	return nil
}

// printDropped says what a drop or undrop moved, with the ids.
func printDropped(w io.Writer, verb string, dr gitstore.Dropped) {
	fmt.Fprintf(w, "%s session %s at %s\n", verb, dr.Session, dr.Tip)
	for _, cp := range dr.Checkpoints {
		what := "checkpoint"
		if cp.Moved {
			what = "former checkpoint"
		}
		fmt.Fprintf(w, "  %s %s at %s\n", what, cp.Name, cp.Target)
	}
}

func cmdUndrop(e *env) *cli.Command {
	return &cli.Command{
		Name:      "undrop",
		Usage:     "bring back sessions git snap drop removed",
		ArgsUsage: "SESSION…",
		Description: `Brings back each session as drop left it, with the checkpoints of its snapshots,
from the session's reflog. It works while git still has the objects: until the reflog
entry expires and git gc runs. A session that exists again is left as it is.

Example:
   git snap undrop scratch-1`,
		Action: action(e, shape{min: 1, max: -1}, parseUndrop, runUndrop),
	}
}

func parseUndrop(c *cli.Context) ([]string, error) { return c.Args().Slice(), nil }

func runUndrop(ctx context.Context, d *deps, sessions []string) error {
	for _, sess := range sessions {
		back, err := d.repo.Undrop(ctx, sess)
		if err != nil {
			return err
		}
		printDropped(d.out, "brought back", back)
	}
	return nil
}
