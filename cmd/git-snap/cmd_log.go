package main

import (
	"context"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/render"
)

type logOptions struct {
	Revs       []string
	All        bool
	Max        int
	Oneline    bool
	Since      time.Time
	Until      time.Time
	Label      string
	Checkpoint string
	Code       string
	JSON       bool
	Session    string
	Grep       string
}

func cmdLog(e *env) *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "list snapshots, newest first",
		ArgsUsage: "[REV…]",
		Description: `Lists the snapshots reachable from each REV (a session, session~N, a checkpoint
snap/<session>/<name>, or an id), like git log. With no REV: the default session, or all
sessions when none is set.

Examples:
   git snap log fix-login -n 5
   git snap log --all --oneline --since 2h
   git snap log --checkpoint before-refactor
   git snap log --code HEAD --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every session"},
			&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show at most `N` snapshots"},
			&cli.BoolFlag{Name: "oneline", Usage: "one line per snapshot"},
			&cli.StringFlag{Name: "since", Usage: "only snapshots after `WHEN` (2026-01-31, RFC 3339, or 2h / 3d ago)"},
			&cli.StringFlag{Name: "until", Usage: "only snapshots before `WHEN`"},
			&cli.StringFlag{Name: "label", Usage: "only snapshots whose label matches `PATTERN` (a glob)"},
			&cli.StringFlag{Name: "checkpoint", Usage: "only snapshots that carry or carried checkpoint `NAME`"},
			&cli.StringFlag{Name: "code", Usage: "only snapshots taken at code `COMMIT` (id, prefix, HEAD or a branch)"},
			&cli.BoolFlag{Name: "json", Usage: "a JSON array, for scripts"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "the session `NAME` when no REV is given"},
			&cli.StringFlag{Name: "grep", Usage: "only snapshots that first recorded a message line matching `PATTERN` (as git snap search finds them)"},
		},
		Action: action(e, shape{max: -1, pager: true}, e.parseLog, runLog),
	}
}

func (e *env) parseLog(c *cli.Context) (logOptions, error) {
	o := logOptions{
		Revs: c.Args().Slice(), All: c.Bool("all"), Max: c.Int("max-count"), Oneline: c.Bool("oneline"),
		Label: c.String("label"), Checkpoint: c.String("checkpoint"), Code: c.String("code"), JSON: c.Bool("json"),
		Session: c.String("session"), Grep: c.String("grep"),
	}
	var err error
	if o.Since, err = parseWhen(c.String("since"), e.now()); err != nil {
		return o, err
	}
	if o.Until, err = parseWhen(c.String("until"), e.now()); err != nil {
		return o, err
	}
	if _, err := path.Match(o.Label, ""); err != nil {
		return o, usagef("--label %q is not a valid pattern", o.Label)
	}
	return o, nil
}

// runLog lists the snapshots o selects, newest first. With no REV it
// starts from o.Session, else the default session, else every session.
func runLog(ctx context.Context, d *deps, o logOptions) error {
	s, w := d.store, d.out
	o.Session = or(o.Session, d.session)
	cps, err := s.Checkpoints(ctx, "", true)
	if err != nil {
		return err
	}
	names := map[plumbing.Hash][]string{} // snapshot → its current checkpoints
	carried := map[plumbing.Hash]bool{}   // snapshots that carried --checkpoint
	for _, cp := range cps {
		if !cp.Moved {
			names[cp.Target] = append(names[cp.Target], cp.Name)
		}
		if cp.Name == o.Checkpoint {
			carried[cp.Target] = true
		}
	}
	starts, err := logStarts(ctx, s, o, carried)
	if err != nil {
		return err
	}
	code, err := s.CodePrefix(o.Code)
	if err != nil {
		return err
	}
	filter := gitstore.Filter{Since: o.Since, Until: o.Until, Label: o.Label, Code: code}
	if o.Checkpoint != "" {
		filter.Carried = carried
	}
	var grep map[plumbing.Hash]bool
	if o.Grep != "" {
		if grep, err = grepSnapshots(ctx, d, o.Grep); err != nil {
			return err
		}
	}
	var out []render.EntryJSON
	shown := 0
	err = s.Walk(ctx, starts, func(e gitstore.Entry) error {
		if !filter.Match(e) || (grep != nil && !grep[e.ID]) {
			return nil
		}
		if o.Max > 0 && shown >= o.Max {
			return gitstore.ErrStop
		}
		shown++
		switch {
		case o.JSON:
			out = append(out, render.EntryToJSON(e, names[e.ID]))
		case o.Oneline:
			render.Oneline(w, d.color, e, names[e.ID])
		default:
			render.Entry(w, d.color, e, names[e.ID])
		}
		return nil
	})
	if err != nil {
		return err
	}
	if o.JSON {
		if out == nil {
			out = []render.EntryJSON{}
		}
		return render.JSON(w, out)
	}
	return nil
}

func logStarts(ctx context.Context, s *gitstore.Store, o logOptions, carried map[plumbing.Hash]bool) ([]plumbing.Hash, error) {
	var starts []plumbing.Hash
	for _, rev := range o.Revs {
		id, err := s.Resolve(ctx, rev)
		if err != nil {
			return nil, err
		}
		starts = append(starts, id)
	}
	if len(o.Revs) > 0 && !o.All {
		return starts, nil
	}
	if o.Checkpoint != "" && len(o.Revs) == 0 && !o.All {
		for id := range carried {
			starts = append(starts, id)
		}
		return starts, nil
	}
	if o.Session != "" && !o.All {
		id, err := s.Resolve(ctx, o.Session)
		if err != nil {
			return nil, err
		}
		return append(starts, id), nil
	}
	sessions, err := s.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	for _, sess := range sessions {
		starts = append(starts, sess.Tip.ID)
	}
	return starts, nil
}

// parseWhen reads --since/--until: a date, a date and time, RFC 3339, or
// a duration back from now (90m, 2h, 3d, 1w, optionally with "ago").
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "ago"))
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if n, err := strconv.Atoi(strings.TrimSpace(s[:len(s)-1])); err == nil && n >= 0 {
		if u, ok := unit[s[len(s)-1]]; ok {
			return now.Add(-time.Duration(n) * u), nil
		}
	}
	return time.Time{}, usagef("cannot read the time %q: write 2026-01-31, 2026-01-31 14:00, RFC 3339, or a span back from now like 90m, 2h, 3d", s)
}
