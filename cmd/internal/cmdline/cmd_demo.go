package cmdline

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/demo"
	"github.com/git-snap/git-snap/storage"
)

func cmdDemo(e *env) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "show the whole tool on a sample session, in a temporary repository",
		Description: `Makes a temporary repository, saves a sample agent session step by step (from
data built into the binary), sets a checkpoint, and shows log, show, diff and restore.
Needs nothing installed; --keep leaves the repository for you to explore with git.

Example:
   git snap demo`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep", Usage: "keep the temporary repository and print where it is"},
		},
		Action: action(e, shape{open: withNothing}, parseDemo, runDemo),
	}
}

type demoOptions struct {
	Keep bool
}

func parseDemo(c *cli.Context) (demoOptions, error) {
	return demoOptions{Keep: c.Bool("keep")}, nil
}

// runDemo opens no repository of the user's: it makes its own, and runs
// the reading commands on it with d's output and colours. Its temporary
// repository goes however the demo ends: done, failed, interrupted or
// terminated (SIGINT, SIGTERM: the process's context), its terminal
// closed (SIGHUP) or its reader gone (SIGPIPE, as in git snap demo |
// head), which would otherwise end the process before it cleans up.
func runDemo(ctx context.Context, d *deps, o demoOptions) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP, syscall.SIGPIPE)
	defer stop()
	dir, err := os.MkdirTemp("", "git-snap-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if !o.Keep {
		defer os.RemoveAll(dir)
	}
	paths, err := gitstore.InitRepo(filepath.Join(dir, ".git"), filepath.Clean(dir))
	if err != nil {
		return err
	}
	clock := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	s, err := gitsnap.OpenPaths(ctx, paths, gitsnap.Options{GitEnv: d.gitEnv,
		Now: func() time.Time { clock = clock.Add(37 * time.Second); return clock },
	})
	if err != nil {
		return err
	}
	defer s.Close()
	demo := *d
	demo.repo, demo.paths, demo.session = s, paths, "demo"
	if err := demoSave(ctx, &demo, dir); err != nil {
		return err
	}
	if err := demoRead(ctx, &demo); err != nil {
		return err
	}
	if o.Keep {
		fmt.Fprintf(d.out, "\nThe repository is kept at %s; try: git -C %s log snap/demo\n", dir, dir)
	}
	return nil
}

// demoSay shows the command the demo runs next.
func demoSay(d *deps, cmd string) {
	fmt.Fprintf(d.out, "\n%s\n", d.color.Bold("$ git snap "+cmd))
}

// demoSave saves the sample session step by step, as save and
// checkpoint would.
func demoSave(ctx context.Context, d *deps, dir string) error {
	s := d.repo
	steps, err := demo.Steps()
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "A sample agent session, saved step by step into a new repository at %s\n", dir)
	for _, st := range steps {
		demoSay(d, fmt.Sprintf("save --session demo --turn %d --label %q", st.Turn, st.Label))
		entry, err := s.Save(ctx, st.Doc, storage.SaveOptions{Session: "demo", Turn: st.Turn, Label: st.Label, Source: "demo"})
		if err != nil {
			return err
		}
		fmt.Fprintln(d.out, entry.ID)
		if st.Checkpoint != "" {
			demoSay(d, "checkpoint "+st.Checkpoint+" demo")
			cp, err := s.SetCheckpoint(ctx, st.Checkpoint, entry.ID, "the bug is fixed", false)
			if err != nil {
				return err
			}
			fmt.Fprintf(d.out, "snap/%s/%s %s\n", cp.Session, cp.Name, cp.Target)
		}
	}
	return nil
}

// demoRead runs the reading commands on the saved session.
func demoRead(ctx context.Context, d *deps) error {
	for _, step := range []struct {
		cmd string
		run func() error
	}{
		{"log --oneline", func() error { return runLog(ctx, d, logOptions{Session: "demo", Oneline: true}) }},
		{"show demo~1", func() error { return runShow(ctx, d, showOptions{Rev: "demo~1"}) }},
		{"diff demo~3", func() error { return runDiff(ctx, d, diffOptions{Revs: []string{"demo~3"}}) }},
		{"diff snap/demo/fixed demo", func() error { return runDiff(ctx, d, diffOptions{Revs: []string{"snap/demo/fixed", "demo"}}) }},
		{"restore demo~4", func() error { return runRestore(ctx, d, restoreOptions{Rev: "demo~4"}) }},
		{"stats demo", func() error { return runStats(ctx, d, statsOptions{Session: "demo"}) }},
	} {
		if err := ctx.Err(); err != nil {
			return err
		}
		demoSay(d, step.cmd)
		if err := step.run(); err != nil {
			return err
		}
	}
	return nil
}
