package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

//go:embed demo/session.json
var demoSession []byte

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
		Action: func(c *cli.Context) error {
			if err := args(c, 0, 0); err != nil {
				return err
			}
			return e.runDemo(c.Context, palette{e.color(c)}, c.Bool("keep"))
		},
	}
}

func (e *env) runDemo(ctx context.Context, p palette, keep bool) error {
	dir, err := os.MkdirTemp("", "git-snap-demo-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	paths, err := gitstore.InitRepo(filepath.Join(dir, ".git"), filepath.Clean(dir))
	if err != nil {
		return err
	}
	clock := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	s, err := gitstore.OpenPaths(ctx, paths, gitstore.Options{
		Identity: gitstore.DefaultIdentity(paths, e.gitEnv()),
		Now:      func() time.Time { clock = clock.Add(37 * time.Second); return clock },
		View:     agent.ViewMessage,
	})
	if err != nil {
		return err
	}
	defer s.Close()
	steps, err := demoSteps()
	if err != nil {
		return err
	}
	say := func(cmd string) { fmt.Fprintf(e.stdout, "\n%s\n", p.bold("$ git snap "+cmd)) }
	fmt.Fprintf(e.stdout, "A sample agent session, saved step by step into a new repository at %s\n", dir)
	for _, st := range steps {
		say(fmt.Sprintf("save --session demo --turn %d --label %q", st.turn, st.label))
		entry, err := s.Save(ctx, st.doc, gitstore.SaveOptions{Session: "demo", Turn: st.turn, Label: st.label, Source: "demo"})
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, entry.ID)
		if st.checkpoint != "" {
			say("checkpoint " + st.checkpoint + " demo")
			cp, err := s.SetCheckpoint(ctx, st.checkpoint, entry.ID, "the bug is fixed", false)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "snap/%s/%s %s\n", cp.Session, cp.Name, cp.Target)
		}
	}
	say("log --oneline")
	if err := runLog(ctx, s, e.stdout, p, logOptions{Session: "demo", Oneline: true}); err != nil {
		return err
	}
	say("show demo~1")
	if err := runShow(ctx, s, e.stdout, p, showOptions{Rev: "demo~1"}); err != nil {
		return err
	}
	say("diff demo~3")
	if err := runDiff(ctx, s, e.stdout, p, diffOptions{A: "demo~3"}); err != nil {
		return err
	}
	say("diff snap/demo/fixed demo")
	if err := runDiff(ctx, s, e.stdout, p, diffOptions{A: "snap/demo/fixed", B: "demo"}); err != nil {
		return err
	}
	say("restore demo~4")
	if err := e.runExport(ctx, s, exportOptions{Rev: "demo~4"}); err != nil {
		return err
	}
	say("stats demo")
	if err := runStats(ctx, s, e.stdout, "demo", false); err != nil {
		return err
	}
	if keep {
		fmt.Fprintf(e.stdout, "\nThe repository is kept at %s; try: git -C %s log snap/demo\n", dir, dir)
	}
	return nil
}

type builtStep struct {
	label, checkpoint string
	turn              int
	doc               map[string]any
}

// demoSteps builds each step's document from the embedded session: the
// first N messages, the captured files once edited, config changes.
func demoSteps() ([]builtStep, error) {
	v, err := snapshot.ParseDocument(demoSession, snapshot.Limits{})
	if err != nil {
		return nil, fmt.Errorf("demo data: %w", err)
	}
	msgs, _ := v["messages"].([]any)
	config, _ := v["config"].(map[string]any)
	var out []builtStep
	for _, raw := range v["steps"].([]any) {
		st := raw.(map[string]any)
		n, _ := st["messages"].(snapshot.Number).Int64()
		turn, _ := st["turn"].(snapshot.Number).Int64()
		if over, ok := st["config"].(map[string]any); ok {
			merged := map[string]any{}
			for k, x := range config {
				merged[k] = x
			}
			for k, x := range over {
				merged[k] = x
			}
			config = merged
		}
		doc := map[string]any{"config": config, "messages": msgs[:n]}
		if st["files"] == true {
			doc["files"] = v["files"]
		}
		cp, _ := st["checkpoint"].(string)
		out = append(out, builtStep{label: st["label"].(string), checkpoint: cp, turn: int(turn), doc: doc})
	}
	return out, nil
}
