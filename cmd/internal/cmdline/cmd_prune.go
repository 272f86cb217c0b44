package cmdline

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/approxidate"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdPrune(e *env) *cli.Command {
	return &cli.Command{
		Name:      "prune",
		Usage:     "keep only some snapshots of sessions",
		ArgsUsage: "[SESSION…]",
		Description: `Rewrites each session's chain (all sessions when none is named) to hold only the
snapshots a rule keeps, with their content, headers and times; checkpoints move with
them, and an id copied before still resolves to its kept snapshot. Only git-snap's refs
change; the objects go at the next git gc.

Examples:
   git snap prune --keep-last 100 --dry-run
   git snap prune fix-login --keep-last 20 --keep-first --keep-latest-per-label
   git snap prune --older-than 30d
   git snap prune --older-than 2026-01-31 --keep-first`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "keep-last", Usage: "keep the newest `N`"},
			&cli.BoolFlag{Name: "keep-first", Usage: "keep each session's first snapshot"},
			&cli.BoolFlag{Name: "keep-checkpoints", Value: true, Usage: "keep snapshots checkpoints name or named (--keep-checkpoints=false to drop them)"},
			&cli.BoolFlag{Name: "keep-latest-per-label", Usage: "keep the newest snapshot of each label"},
			&cli.StringFlag{Name: "older-than", Usage: "prune only snapshots older than `WHEN`: 30d, 2w, 720h, \"3 months ago\", yesterday, 2026-01-31 or RFC 3339"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would go, change nothing"},
		},
		Action: action(e, shape{max: -1}, e.parsePrune, runPrune),
	}
}

// pruneOptions are the sessions to prune (all when none) and the rules.
type pruneOptions struct {
	Sessions []string
	gitstore.PruneOptions
}

// parsePrune reads the rules; --older-than is a time as --since takes
// it, turned into the age the library counts back from the same now.
func (e *env) parsePrune(c *cli.Context) (pruneOptions, error) {
	o := pruneOptions{Sessions: c.Args().Slice(), PruneOptions: gitstore.PruneOptions{
		KeepLast: c.Int("keep-last"), KeepFirst: c.Bool("keep-first"), KeepCheckpoints: c.Bool("keep-checkpoints"),
		KeepLatestPerLabel: c.Bool("keep-latest-per-label"), DryRun: c.Bool("dry-run"),
	}}
	if c.IsSet("older-than") {
		now := e.now()
		t, err := approxidate.Parse(c.String("older-than"), now)
		if err != nil {
			return o, err
		}
		if !t.Before(now) {
			return o, usagef("--older-than %q is not in the past: write a span back from now (30d) or an earlier date", c.String("older-than"))
		}
		o.OlderThan = now.Sub(t)
	}
	if o.KeepLast < 0 {
		return o, usagef("--keep-last must not be negative")
	}
	if o.KeepLast == 0 && o.OlderThan == 0 {
		return o, usagef("say what to keep: --keep-last N or --older-than WHEN")
	}
	return o, nil
}

// runPrune prunes each session and says what it kept and removed.
func runPrune(ctx context.Context, d *deps, o pruneOptions) error {
	sessions, err := d.sessionArgs(ctx, o.Sessions)
	if err != nil {
		return err
	}
	if len(sessions) == 0 {
		all, err := d.repo.Sessions(ctx)
		if err != nil {
			return err
		}
		for _, sess := range all {
			sessions = append(sessions, sess.Name)
		}
	}
	verb := "removed"
	if o.DryRun {
		verb = "would remove"
	}
	start := time.Now()
	for _, sess := range sessions {
		res, err := d.repo.Prune(ctx, sess, o.PruneOptions)
		if err != nil {
			return err
		}
		fmt.Fprintf(d.out, "%s: kept %d, %s %d\n", sess, len(res.Kept), verb, len(res.Removed))
	}
	if d.progress != nil {
		fmt.Fprintf(d.progress, "pruned in %s\n", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// retention is the retention policy the config sets, for the library.
func retention(cfg config.Config) gitstore.RetentionPolicy {
	return gitstore.RetentionPolicy{MaxPerSession: cfg.Retention.MaxPerSession, KeepFirst: cfg.Retention.KeepFirst}
}
