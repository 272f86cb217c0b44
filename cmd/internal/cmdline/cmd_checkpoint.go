package cmdline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/storage"
)

type checkpointOptions struct {
	Name    string
	Rev     string
	Message string
	Force   bool
	List    bool
	Delete  bool
	Session string
	JSON    bool
}

func cmdCheckpoint(e *env) *cli.Command {
	return &cli.Command{
		Name:      "checkpoint",
		Usage:     "name a snapshot (an annotated tag snap/<session>/<name>)",
		ArgsUsage: "NAME [REV] | --list [SESSION] | --delete NAME",
		Description: `Names a snapshot, by default the newest of the session, with an annotated tag
refs/snap-tags/<session>/<name>, named snap/<session>/<name> in revisions. It is kept
outside refs/tags/, so git tag -l, git push --tags and git clone leave it alone; git snap
push sends it (refs.checkpoints_in_tags: true in the config keeps checkpoints under
refs/tags/snap/, as versions before did; git snap migrate moves older ones). A name
already in use moves only with --force; the snapshot it named before is still found by
log --checkpoint NAME.

Examples:
   git snap checkpoint green fix-login -m "all tests pass"
   git snap checkpoint --list
   git snap checkpoint --delete fix-login/green`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "the tag's message"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "move a name that is in use"},
			&cli.BoolFlag{Name: "list", Usage: "list checkpoints"},
			&cli.BoolFlag{Name: "delete", Aliases: []string{"d"}, Usage: "delete a checkpoint ([SESSION/]NAME)"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "the session `NAME` when REV is not given"},
			&cli.BoolFlag{Name: "json", Usage: "JSON for scripts: the checkpoints listed, set or deleted (docs/json.md)"},
			rawFlag(),
		},
		Action: action(e, shape{max: 2}, parseCheckpoint, runCheckpoint),
	}
}

func parseCheckpoint(c *cli.Context) (checkpointOptions, error) {
	return checkpointOptions{
		Name: c.Args().Get(0), Rev: c.Args().Get(1), Message: c.String("message"), Force: c.Bool("force"),
		List: c.Bool("list"), Delete: c.Bool("delete"), Session: c.String("session"), JSON: c.Bool("json"),
	}, nil
}

// runCheckpoint names a snapshot, or lists or deletes checkpoints.
func runCheckpoint(ctx context.Context, d *deps, o checkpointOptions) error {
	s := d.repo
	o.Session = or(o.Session, d.session)
	switch {
	case o.List && o.Delete:
		return usagef("choose one of --list and --delete")
	case o.List:
		if o.Rev != "" {
			return usagef("checkpoint --list takes at most a session")
		}
		return listCheckpoints(ctx, d, o.Name, o.JSON)
	case o.Delete:
		return deleteCheckpoint(ctx, d, o)
	case o.Name == "":
		return usagef("checkpoint needs NAME")
	}
	rev := o.Rev
	if rev == "" {
		var err error
		if rev, err = d.defaultSession(ctx, o.Session); err != nil {
			return err
		}
	}
	id, err := s.Resolve(ctx, rev)
	if err != nil {
		return err
	}
	cp, err := s.SetCheckpoint(ctx, o.Name, id, o.Message, o.Force)
	if err != nil {
		return err
	}
	if o.JSON {
		return d.writeJSON(render.NewCheckpointSetJSON("set", cp))
	}
	fmt.Fprintf(d.out, "snap/%s/%s %s\n", cp.Session, cp.Name, cp.Target)
	return nil
}

// listCheckpoints lists the checkpoints of session, or of all. A
// session that does not exist is an error (exit 2), as git log NAME is,
// not an empty list: unlike git tag --list, the argument is a name and
// not a pattern, so a slip in it should not pass for "no checkpoints".
func listCheckpoints(ctx context.Context, d *deps, session string, asJSON bool) (retErr error) {
	s, w := d.repo, d.out
	if session != "" {
		var err error
		if session, err = s.FindSession(ctx, session); err != nil {
			return err
		}
	}
	cps, damaged, err := readableCheckpoints(ctx, s, session, false)
	if err != nil {
		return err
	}
	if damaged != nil {
		// Listed after those that read, as sessions lists them.
		defer func() { retErr = errors.Join(retErr, damaged) }()
	}
	if session != "" && len(cps) == 0 && damaged == nil {
		tip, err := s.SessionTip(session)
		if err != nil {
			return err
		}
		if tip.IsZero() {
			return storage.NoSession(session)
		}
	}
	if asJSON {
		return d.writeJSON(render.NewCheckpointsJSON(cps))
	}
	for _, cp := range cps {
		fmt.Fprintf(w, "snap/%s/%s\t%s\t%s\t%s\n", cp.Session, cp.Name, cp.Target.String()[:12], cp.Time.Format("2006-01-02 15:04"), cp.Message)
	}
	return nil
}

// deleteCheckpoint takes NAME, SESSION/NAME or snap/SESSION/NAME; a bare
// NAME must belong to one session only (or to --session).
func deleteCheckpoint(ctx context.Context, d *deps, o checkpointOptions) error {
	s := d.repo
	if o.Name == "" || o.Rev != "" {
		return usagef("checkpoint --delete takes one [SESSION/]NAME")
	}
	name := strings.TrimPrefix(o.Name, "snap/")
	session, cpName, found := strings.Cut(name, "/")
	if !found {
		session, cpName = o.Session, name
	}
	if session == "" {
		cps, damaged, err := readableCheckpoints(ctx, s, "", false)
		if err != nil {
			return err
		}
		if damaged != nil {
			cps = append(cps, damaged.Checkpoints...) // a damaged one can be deleted
		}
		var owners []string
		for _, cp := range cps {
			if cp.Name == cpName {
				owners = append(owners, cp.Session)
			}
		}
		switch len(owners) {
		case 0:
			return &storage.NotFoundError{Name: cpName, Msg: "names no checkpoint (see git snap checkpoint --list)"}
		case 1:
			session = owners[0]
		default:
			return usagef("checkpoint %s exists in sessions %s; say which: --delete SESSION/%s", cpName, strings.Join(owners, ", "), cpName)
		}
	}
	if found || o.Session != "" {
		var err error
		if session, err = s.FindSession(ctx, session); err != nil {
			return err
		}
	}
	cps, damaged, err := readableCheckpoints(ctx, s, session, false)
	if err != nil {
		return err
	}
	if damaged != nil {
		cps = append(cps, damaged.Checkpoints...) // its tag unread: no target or time
	}
	if err := s.DeleteCheckpoint(ctx, session, cpName); err != nil {
		return err
	}
	if o.JSON {
		for _, cp := range cps {
			if cp.Name == cpName {
				return d.writeJSON(render.NewCheckpointSetJSON("deleted", cp))
			}
		}
	}
	fmt.Fprintf(d.out, "deleted checkpoint snap/%s/%s\n", session, cpName)
	return nil
}
