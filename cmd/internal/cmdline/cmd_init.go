package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdInit(e *env) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "set up git-snap in this repository, or make a standalone store",
		ArgsUsage: "[--bare DIR]",
		Description: `Optional: git-snap works in any git repository without it. init writes a
commented .git-snap.yaml at the work tree root (kept as it is if there is one).
init --bare DIR makes a bare repository to keep agent state out of the code repository;
use it with --store DIR or $GIT_SNAP_DIR.

Examples:
   git snap init
   git snap init --bare ~/agent-state.git && export GIT_SNAP_DIR=~/agent-state.git`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "bare", Usage: "make a standalone snapshot store at DIR"},
		},
		Action: func(c *cli.Context) error {
			sh := shape{open: withRepo}
			if c.Bool("bare") { // the store is to be made: nothing to open
				sh = shape{max: -1, open: withNothing}
			}
			return action(e, sh, parseInit, runInit)(c)
		},
	}
}

type initOptions struct {
	Bare bool
	Dir  string // with Bare: where to make the store
}

func parseInit(c *cli.Context) (initOptions, error) {
	o := initOptions{Bare: c.Bool("bare"), Dir: c.Args().First()}
	if o.Bare && c.NArg() != 1 {
		return o, usagef("init --bare needs DIR")
	}
	return o, nil
}

// runInit makes a bare store, or writes a commented .git-snap.yaml at
// the work tree's root unless there is one.
func runInit(_ context.Context, d *deps, o initOptions) error {
	if o.Bare {
		dir := o.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(d.workDir, dir)
		}
		made := "made a snapshot store"
		if _, err := gitstore.InitBare(dir); errors.Is(err, gitstore.ErrRepositoryExists) {
			made = "kept the repository already" // as git init does, and as init without --bare does
		} else if err != nil {
			return err
		}
		fmt.Fprintf(d.out, "%s at %s; use it with --store %s or GIT_SNAP_DIR=%s\n", made, dir, dir, dir)
		return nil
	}
	if d.paths.WorkTree == "" {
		return usagef("this repository has no work tree for .git-snap.yaml; edit %s instead", filepath.Join(d.paths.CommonDir, "snap", "config.yaml"))
	}
	path := filepath.Join(d.paths.WorkTree, ".git-snap.yaml")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(d.out, "%s exists; left as it is\n", path)
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(config.Sample); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(d.out, "wrote %s; commit it to share the settings with your team\n", path)
	return nil
}
