package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/storage"
)

type rollbackOptions struct {
	Rev     string
	Last    bool
	Session string
	Message string
}

func cmdRollback(e *env) *cli.Command {
	return &cli.Command{
		Name:      "rollback",
		Usage:     "record a new snapshot equal to an earlier one",
		ArgsUsage: "REV | --last [SESSION]",
		Description: `Records, on REV's session, a new snapshot whose content is REV's. Nothing is
deleted: the snapshots after REV stay in the history, and the new one says which
snapshot it rolls back to. --last steps the session back one snapshot.

Examples:
   git snap rollback fix-login~3
   git snap rollback snap/fix-login/green
   git snap rollback --last fix-login`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "last", Usage: "roll the session back one snapshot"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "the session `NAME` for --last"},
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "a note for the new snapshot"},
		},
		Action: action(e, shape{max: 1}, parseRollback, runRollback),
	}
}

func parseRollback(c *cli.Context) (rollbackOptions, error) {
	return rollbackOptions{Rev: c.Args().First(), Last: c.Bool("last"), Session: c.String("session"), Message: c.String("message")}, nil
}

// runRollback records a new snapshot equal to o.Rev, or to the one
// before the session's newest with --last.
func runRollback(ctx context.Context, d *deps, o rollbackOptions) error {
	s, rev := d.repo, o.Rev
	o.Session = or(o.Session, d.session)
	switch {
	case o.Last && rev == "" && o.Session == "":
		return usagef("rollback --last needs a session: rollback --last SESSION")
	case o.Last && rev == "":
		rev = o.Session + "~1"
	case o.Last:
		rev += "~1"
	case rev == "":
		return usagef("rollback needs REV, or --last SESSION")
	}
	id, err := s.Resolve(ctx, rev)
	if err != nil {
		return err
	}
	so := storage.SaveOptions{Message: o.Message}
	if code, err := s.CodeState(ctx, d.dir, false); err == nil && !code.Commit.IsZero() {
		so.Code, so.Dirty = code.Commit.String(), code.Dirty
	}
	entry, err := s.Rollback(ctx, id, so)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	fmt.Fprintln(d.out, entry.ID)
	return nil
}
