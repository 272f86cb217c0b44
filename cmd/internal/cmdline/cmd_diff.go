package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

type diffOptions struct {
	Revs    []string // A [B], A..B or ^A B
	Session string   // whose newest snapshot, when Revs is empty
	Stat    bool
	JSON    bool
	Patch   bool
	// NameOnly and NameStatus list the captured files that changed, as
	// git diff's options do: their paths, or A, M or D and the path.
	NameOnly, NameStatus bool
	// All shows the records that are not conversation and git-snap's
	// bookkeeping members, which are left out and counted otherwise.
	All bool
}

func cmdDiff(e *env) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare two snapshots",
		ArgsUsage: "[A [B] | A..B | ^A B]",
		Description: `Shows what changed from snapshot A to snapshot B (also written A..B or ^A B, as
for git diff); with only A, what A changed from its parent; with nothing, what the
newest snapshot of --session, else of the default session, changed. An end left out of
A..B is that session. Messages and events are matched by id (by position where they have
none); other members are compared by JSON path; captured files as text diffs; and the
token delta from recorded usage (estimated where none is recorded, and said so).
Records that are not conversation (Claude Code's progress lines, file-history notes)
and the members git-snap keeps for itself (a hook's read positions under transcript,
turns, touched_files) are left out and counted on a line of their own; --all shows
them. --json gives everything.

Examples:
   git snap diff fix-login                 # what the newest snapshot added
   git snap diff fix-login~5 fix-login --stat
   git snap diff fix-login~5..fix-login     # the same
   git snap diff                           # what the default session's newest snapshot added
   git snap diff snap/fix-login/green fix-login --patch > change.json-patch
   git snap diff fix-login~3.. --name-status    # A, M or D and each captured file's path`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stat", Usage: "counts only"},
			&cli.BoolFlag{Name: "json", Usage: "the diff as JSON"},
			&cli.BoolFlag{Name: "patch", Usage: "an RFC 6902 JSON Patch that turns A into B"},
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "show everything: also records that are not conversation (progress lines) and git-snap's bookkeeping (read positions)"},
			&cli.BoolFlag{Name: "name-only", Usage: "only the paths of the captured files that changed"},
			&cli.BoolFlag{Name: "name-status", Usage: "the captured files that changed, each with A (added), M (changed) or D (removed)"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: sessionFlagUsage},
			rawFlag(),
		},
		Action: action(e, shape{max: 2, pager: true}, parseDiff, runDiff),
	}
}

func parseDiff(c *cli.Context) (diffOptions, error) {
	o := diffOptions{Revs: c.Args().Slice(), Session: c.String("session"), Stat: c.Bool("stat"), JSON: c.Bool("json"), Patch: c.Bool("patch"),
		NameOnly: c.Bool("name-only"), NameStatus: c.Bool("name-status"), All: c.Bool("all")}
	if n := btoi(o.Stat) + btoi(o.JSON) + btoi(o.Patch) + btoi(o.NameOnly) + btoi(o.NameStatus); n > 1 {
		return o, usagef("choose one of --stat, --json, --patch, --name-only and --name-status")
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
	s, w := d.repo, d.out
	revs := o.Revs
	if len(revs) == 0 {
		rev, err := d.revOrSession(ctx, "", o.Session)
		if err != nil {
			return err
		}
		revs = []string{rev}
	}
	a, b, err := s.ResolvePair(ctx, revs)
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
	diff, err := diffPair(ctx, s, a, b)
	if err != nil {
		return err
	}
	switch {
	case o.JSON:
		from := ""
		if !a.IsZero() {
			from = a.String()
		}
		return d.writeJSON(render.NewDiffJSON(from, b.String(), diff))
	case o.NameOnly, o.NameStatus:
		for _, f := range diff.Files {
			if o.NameStatus {
				fmt.Fprintf(w, "%s\t", nameStatus(f.Op))
			}
			fmt.Fprintln(w, f.Path)
		}
	case o.Stat:
		render.DiffStatWith(w, diff, render.DiffOptions{All: o.All})
	default:
		fmt.Fprintf(w, "%s\n", d.color.Dim(fmt.Sprintf("diff %s..%s", short(a), short(b))))
		render.DiffWith(w, d.color, diff, render.DiffOptions{All: o.All})
	}
	return nil
}

// nameStatus is git diff --name-status's letter for a change.
func nameStatus(op string) string {
	switch op {
	case snapshot.OpAdded:
		return "A"
	case snapshot.OpRemoved:
		return "D"
	}
	return "M"
}

// diffPair compares snapshot a with b; with a zero (b is a session's
// first snapshot) everything in b is new.
func diffPair(ctx context.Context, s *gitsnap.Repository, a, b storage.ID) (*snapshot.Diff, error) {
	if !a.IsZero() {
		return s.Diff(ctx, a, b)
	}
	docB, _, err := s.Read(ctx, b)
	if err != nil {
		return nil, err
	}
	return snapshot.Compare(map[string]any{}, docB, agent.ViewMessage)
}

func short(h storage.ID) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:12]
}
