package main

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
)

type showOptions struct {
	Rev     string
	Session string
	JSON    bool
	YAML    bool
}

func cmdShow(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a snapshot: header, stats and the conversation",
		ArgsUsage: "REV",
		Description: `Shows a snapshot's header and statistics, then its conversation for a person:
roles, text, tool calls and results (shortened). --json and --yaml give everything:
header, stats and the whole document.

Examples:
   git snap show fix-login
   git snap show fix-login~2 --json | jq .stats
   git snap show snap/fix-login/green --yaml`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "header, stats and document as JSON"},
			&cli.BoolFlag{Name: "yaml", Usage: "header, stats and document as YAML"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "show this session's newest snapshot when no REV is given"},
		},
		Action: action(e, shape{max: 1, pager: true}, parseShow, runShow),
	}
}

func parseShow(c *cli.Context) (showOptions, error) {
	o := showOptions{Rev: c.Args().First(), Session: c.String("session"), JSON: c.Bool("json"), YAML: c.Bool("yaml")}
	if o.JSON && o.YAML {
		return o, usagef("choose one of --json and --yaml")
	}
	return o, nil
}

// withCost puts a cost estimate on the statistics.
func withCost(s *agent.Numbers, cfg config.Config) {
	c := agent.EstimateCost(s.ByModel, configPrices(cfg))
	s.Cost = &c
}

func configPrices(cfg config.Config) map[string]agent.Price {
	out := map[string]agent.Price{}
	for model, p := range cfg.Prices {
		out[model] = agent.Price{Input: p.Input, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, Output: p.Output}
	}
	return out
}

// runShow shows o.Rev, or the newest snapshot of the session.
func runShow(ctx context.Context, d *deps, o showOptions) error {
	s, w, p := d.store, d.out, d.color
	rev := or(o.Rev, or(o.Session, d.session))
	if rev == "" {
		return usagef("show needs REV (a session, session~N, snap/<session>/<name> or an id)")
	}
	doc, entry, err := s.ReadRevision(ctx, rev)
	if err != nil {
		return err
	}
	st := agent.NumbersOf(doc, entry.Header.Source)
	cps, err := s.Checkpoints(ctx, entry.Header.Session, false)
	if err != nil {
		return err
	}
	var names []string
	for _, cp := range cps {
		if cp.Target == entry.ID {
			names = append(names, cp.Name)
		}
	}
	if o.JSON || o.YAML {
		withCost(&st, d.cfg)
		full := render.NewShowJSON(render.EntryToJSON(entry, names), render.NumbersToJSON(st, st.First, st.Last), doc)
		if o.JSON {
			return render.JSON(w, full)
		}
		return render.YAML(w, map[string]any{"schema_version": full.SchemaVersion, "snapshot": render.Value(full.Snapshot), "stats": render.Value(full.Stats), "document": doc})
	}
	render.Entry(w, p, entry, names)
	render.Stats(w, st)
	if msgs, ok := doc[snapshot.MemberMessages].([]any); ok && len(msgs) > 0 {
		fmt.Fprintln(w)
		render.Conversation(w, p, msgs)
	}
	if files, ok := doc[snapshot.MemberFiles].(map[string]any); ok && len(files) > 0 {
		fmt.Fprintln(w, p.Bold("\nfiles"))
		for _, path := range slices.SortedFunc(maps.Keys(files), snapshot.CompareKeys) {
			fmt.Fprintf(w, "    %s\n", path)
		}
	}
	return nil
}
