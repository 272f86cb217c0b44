package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
)

// gcOptions tune the pack of git-snap's objects.
type gcOptions struct {
	Window, Depth int
}

func cmdGC(e *env) *cli.Command {
	return &cli.Command{
		Name:  "gc",
		Usage: "pack git-snap's objects well, then let git collect (git gc --auto)",
		Description: `Packs every object of the sessions and checkpoints into one pack with git
pack-objects, deltas computed anew with a wide window among the objects of the same
session and kind (snapshots of a session share most of their content), removes the loose copies (git prune-packed) and any pack the
new one wholly holds, then runs git gc --auto. Nothing is deleted that is not in the
new pack, so what git's reflogs and index hold stays; a later plain git gc reuses
the new pack's deltas.

Examples:
   git snap gc
   git snap gc --window 50 --depth 20`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "window", Usage: fmt.Sprintf("delta window of git pack-objects (default %d)", gitstore.DefaultPackWindow)},
			&cli.IntFlag{Name: "depth", Usage: fmt.Sprintf("delta depth of git pack-objects (default %d)", gitstore.DefaultPackDepth)},
		},
		Action: action(e, shape{}, parseGC, runGC),
	}
}

func parseGC(c *cli.Context) (gcOptions, error) {
	o := gcOptions{Window: c.Int("window"), Depth: c.Int("depth")}
	if o.Window < 0 || o.Depth < 0 || o.Window > 10000 || o.Depth > 4095 {
		return o, usagef("--window takes 0 to 10000 and --depth 0 to 4095 (git's own limit)")
	}
	return o, nil
}

func runGC(ctx context.Context, d *deps, o gcOptions) error {
	return d.repo.GC(ctx, gitstore.GCOptions{Window: o.Window, Depth: o.Depth})
}
