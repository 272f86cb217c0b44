package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/storage"
)

func cmdScan(e *env) *cli.Command {
	return &cli.Command{
		Name:      "scan",
		Usage:     "look for secrets in snapshots already saved",
		ArgsUsage: "[REV…]",
		Description: `Reads every snapshot reachable from each REV (by default all sessions), each
stored object once, and reports what the redaction rules find there: snapshots saved
before a rule existed, or with redaction off. Exits 1 when it finds anything.

Examples:
   git snap scan
   git snap scan fix-login --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "JSON for scripts (docs/json.md)"},
		},
		Action: action(e, shape{max: -1}, parseScan, runScan),
	}
}

type scanOptions struct {
	Revs []string
	JSON bool
}

func parseScan(c *cli.Context) (scanOptions, error) {
	return scanOptions{Revs: c.Args().Slice(), JSON: c.Bool("json")}, nil
}

// runScan reports what the redaction rules find in the snapshots
// reachable from o.Revs, or from every session.
func runScan(ctx context.Context, d *deps, o scanOptions) error {
	s, w, asJSON := d.repo, d.out, o.JSON
	rules := d.cfg.Redact
	rules.Disabled = false // an audit looks even where saving does not redact
	r, err := redact.New(rules)
	if err != nil {
		return &config.Error{File: "redact", Err: err}
	}
	var starts []storage.ID
	for _, rev := range o.Revs {
		id, err := s.Resolve(ctx, rev)
		if err != nil {
			return err
		}
		starts = append(starts, id)
	}
	if len(o.Revs) == 0 {
		sessions, err := s.Sessions(ctx)
		if err != nil {
			return err
		}
		for _, sess := range sessions {
			starts = append(starts, sess.Tip.ID)
		}
	}
	out := []render.FindingJSON{}
	err = s.Scan(ctx, starts, r, func(f gitstore.ScanFinding) error {
		j := render.FindingToJSON(f.Snapshot, f.Finding)
		out = append(out, j)
		if !asJSON {
			fmt.Fprintf(w, "%s %s#%d %s %s %s\n", j.Snapshot[:12], j.Session, j.Seq, j.Rule, j.Path, j.Preview)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if asJSON {
		if err := d.writeJSON(render.NewScanJSON(out)); err != nil {
			return err
		}
	}
	if len(out) > 0 {
		return fmt.Errorf("%s found in saved snapshots; they stay in git history until those snapshots are pruned", render.Count(len(out), "secret"))
	}
	if !asJSON {
		fmt.Fprintln(w, "no secrets found")
	}
	return nil
}
