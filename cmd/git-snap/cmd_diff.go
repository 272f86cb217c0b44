package main

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
)

type diffOptions struct {
	A, B  string
	Stat  bool
	JSON  bool
	Patch bool
}

func cmdDiff(e *env) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare two snapshots",
		ArgsUsage: "A [B]",
		Description: `Shows what changed from snapshot A to snapshot B; with only A, what A changed
from its parent. Messages and events are matched by id (by position where they have
none); other members are compared by JSON path; captured files as text diffs; and the
token delta from recorded usage (estimated where none is recorded, and said so).

Examples:
   git snap diff fix-login                 # what the newest snapshot added
   git snap diff fix-login~5 fix-login --stat
   git snap diff snap/fix-login/green fix-login --patch > change.json-patch`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stat", Usage: "counts only"},
			&cli.BoolFlag{Name: "json", Usage: "the diff as JSON"},
			&cli.BoolFlag{Name: "patch", Usage: "an RFC 6902 JSON Patch that turns A into B"},
		},
		Action: action(e, shape{min: 1, max: 2, pager: true}, parseDiff, runDiff),
	}
}

func parseDiff(c *cli.Context) (diffOptions, error) {
	o := diffOptions{A: c.Args().Get(0), B: c.Args().Get(1), Stat: c.Bool("stat"), JSON: c.Bool("json"), Patch: c.Bool("patch")}
	if n := btoi(o.Stat) + btoi(o.JSON) + btoi(o.Patch); n > 1 {
		return o, usagef("choose one of --stat, --json and --patch")
	}
	return o, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runDiff shows what changed from o.A to o.B, or what o.A changed.
func runDiff(ctx context.Context, d *deps, o diffOptions) error {
	s, w := d.store, d.out
	a, b, err := diffEnds(ctx, s, o.A, o.B)
	if err != nil {
		return err
	}
	if o.Patch {
		docA := map[string]any{}
		if !a.IsZero() {
			if docA, _, err = s.Read(ctx, a); err != nil {
				return err
			}
		}
		docB, _, err := s.Read(ctx, b)
		if err != nil {
			return err
		}
		ops := snapshot.MakePatch(docA, docB)
		if ops == nil {
			ops = []snapshot.PatchOp{}
		}
		return render.JSON(w, ops)
	}
	var diff *snapshot.Diff
	if a.IsZero() { // B is a session's first snapshot: everything is new
		docB, _, err := s.Read(ctx, b)
		if err != nil {
			return err
		}
		if diff, err = snapshot.Compare(map[string]any{}, docB, agent.ViewMessage); err != nil {
			return err
		}
	} else if diff, err = s.Diff(ctx, a, b); err != nil {
		return err
	}
	switch {
	case o.JSON:
		from := ""
		if !a.IsZero() {
			from = a.String()
		}
		return render.JSON(w, render.NewDiffJSON(from, b.String(), diff))
	case o.Stat:
		render.DiffStat(w, diff)
	default:
		fmt.Fprintf(w, "%s\n", d.color.Dim(fmt.Sprintf("diff %s..%s", short(a), short(b))))
		render.Diff(w, d.color, diff)
	}
	return nil
}

// diffEnds resolves A and B; with B empty, the pair is (A's parent, A).
func diffEnds(ctx context.Context, s *gitstore.Store, revA, revB string) (plumbing.Hash, plumbing.Hash, error) {
	a, err := s.Resolve(ctx, revA)
	if err != nil {
		return a, a, err
	}
	if revB != "" {
		b, err := s.Resolve(ctx, revB)
		return a, b, err
	}
	e, err := s.Entry(ctx, a)
	return e.Parent, a, err
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:12]
}
