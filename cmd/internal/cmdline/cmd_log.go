package cmdline

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/approxidate"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

type logOptions struct {
	Revs       []string
	All        bool
	Max        int
	Oneline    bool
	Pretty     render.Pretty // zero: medium, or oneline with Oneline
	Reverse    bool
	Stat       bool // each snapshot's changes from its parent, counted
	Patch      bool // each snapshot's changes from its parent, in full
	Since      time.Time
	Until      time.Time
	Label      string
	Checkpoint string
	Code       string
	JSON       bool
	Session    string
	Grep       string
	Paths      []string       // log -- PATH…: snapshots that changed captured files there
	Graph      bool           // draw the history's lines beside it
	Pickaxe    string         // -S: snapshots that changed how often the messages hold it
	PickaxeRE  *regexp.Regexp // -G: snapshots that added or removed a message line matching it
}

func cmdLog(e *env) *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "list snapshots, newest first",
		ArgsUsage: "[REV… | A..B | ^A B] [-- PATH…]",
		Description: `Lists the snapshots reachable from each REV (a session, session~N, a checkpoint
snap/<session>/<name>, or an id), like git log. A..B lists what B reaches and A does
not (what a session did since A); ^A excludes what A reaches; an end left out of A..B
is the newest snapshot of the other end's session (fix~3.. is fix~3..fix). With no
REV: --session, else $GIT_SNAP_SESSION, else session: in the config, else the most
recently active session (said on stderr); --all lists every session, and so do
--checkpoint and --code when no REV is given.

-- PATH… keeps the snapshots that changed a captured file at PATH or under it (a
folder), from their parent. -S STRING keeps those that changed how many times the
messages' text (text, thinking, tool calls and results) holds STRING, -G REGEX those
that added or removed a message line matching REGEX (RE2), as git log's pickaxe does
for files. --graph draws the history's lines beside the snapshots: a merge made by pull
opens a line, sessions listed together run side by side.

--format (or --pretty=format:) takes a string with placeholders:
   %H %h        snapshot id, short id      %(session) %(seq)   session and number
   %P %p        parent ids, short          %(label) %(turn)    label, turn
   %T %t        tree id, short             %(message) %s       message; subject (message, else label)
   %ad %ai %aI  date: git's, ISO, strict   %(code) %(code:short) code commit, short
   %at %as %ar  unix, day, relative        %(dirty) %(source)  "dirty" or ""; who saved it
   %d %D        (snap s#N, checkpoint: x)  %(messages) %(events) %(files) %(checkpoints)
   %n %%        newline, percent           %Cred %Cgreen %Cblue %Creset %C(yellow) colours
(%c… is the same as %a…: a snapshot's dates are one.) --pretty also takes oneline,
short, medium (the default) and full. --since and --until take 2026-01-31,
"2026-01-31 14:00", RFC 3339, yesterday, "2 hours ago", 90m, 30d, 2w.

Examples:
   git snap log fix-login -n 5
   git snap log fix-login~5..fix-login --stat
   git snap log -3 --format='%h %(session)#%(seq) %ar %s'
   git snap log --all --oneline --since yesterday
   git snap log --checkpoint before-refactor --reverse
   git snap log --code HEAD --json
   git snap log --oneline -- src/auth          # snapshots that changed files under src/auth
   git snap log -S 'connection refused' --oneline
   git snap log --all --graph --oneline`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every session"},
			&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show at most `N` snapshots (0, the default, for no limit); also -N"},
			&cli.BoolFlag{Name: "oneline", Usage: "one line per snapshot (--pretty=oneline)"},
			&cli.StringFlag{Name: "pretty", Usage: "write each snapshot as `FORM`: oneline, short, medium, full or format:STRING"},
			&cli.StringFlag{Name: "format", Usage: "write each snapshot as `STRING` with placeholders (see above)"},
			&cli.BoolFlag{Name: "reverse", Usage: "oldest first (after -n, as git does)"},
			&cli.BoolFlag{Name: "stat", Usage: "after each snapshot, what it changed from its parent, counted"},
			&cli.BoolFlag{Name: "patch", Aliases: []string{"p"}, Usage: "after each snapshot, what it changed from its parent"},
			&cli.StringFlag{Name: "since", Aliases: []string{"after"}, Usage: "only snapshots after `WHEN`"},
			&cli.StringFlag{Name: "until", Aliases: []string{"before"}, Usage: "only snapshots before `WHEN`"},
			&cli.StringFlag{Name: "label", Usage: "only snapshots whose label matches `PATTERN` (a glob)"},
			&cli.StringFlag{Name: "checkpoint", Usage: "only snapshots that carry or carried checkpoint `NAME`"},
			&cli.StringFlag{Name: "code", Usage: "only snapshots taken at code `COMMIT` (id, prefix, HEAD or a branch), or at a commit an amend or a rebase rewrote into it"},
			&cli.BoolFlag{Name: "json", Usage: "JSON for scripts (docs/json.md)"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "the session `NAME` when no REV is given"},
			&cli.StringFlag{Name: "grep", Usage: "only snapshots that first recorded a message line matching `PATTERN` (as git snap search finds them)"},
			&cli.BoolFlag{Name: "graph", Usage: "draw the history's lines beside the snapshots"},
			&cli.StringFlag{Name: "S", Usage: "only snapshots that changed how often the messages' text holds `STRING`"},
			&cli.StringFlag{Name: "G", Usage: "only snapshots that added or removed a message line matching `REGEX`"},
			rawFlag(),
		},
		Action: action(e, shape{max: -1, pager: true}, e.parseLog, runLog),
	}
}

func (e *env) parseLog(c *cli.Context) (logOptions, error) {
	o := logOptions{
		Revs: c.Args().Slice(), All: c.Bool("all"), Max: c.Int("max-count"), Oneline: c.Bool("oneline"),
		Reverse: c.Bool("reverse"), Stat: c.Bool("stat"), Patch: c.Bool("patch"),
		Label: c.String("label"), Checkpoint: c.String("checkpoint"), Code: c.String("code"), JSON: c.Bool("json"),
		Session: c.String("session"), Grep: c.String("grep"), Graph: c.Bool("graph"), Pickaxe: c.String("S"),
	}
	if i := slices.Index(o.Revs, "--"); i >= 0 {
		o.Revs, o.Paths = o.Revs[:i], o.Revs[i+1:]
		for _, p := range o.Paths {
			if p == "" || path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..") {
				return o, usagef("-- %q: give a path inside the snapshot's captured files, relative to the work tree, as show --name-only prints them", p)
			}
		}
	}
	if g := c.String("G"); g != "" {
		re, err := regexp.Compile(g)
		if err != nil {
			return o, usagef("-G %q: %v", g, err)
		}
		o.PickaxeRE = re
	}
	if o.Graph && (o.JSON || o.Reverse) {
		return o, usagef("--graph draws the log as it is printed: leave out --json and --reverse")
	}
	if o.Max < 0 {
		return o, usagef("-n takes a number of snapshots, 0 or more (0 for no limit), not %d", o.Max)
	}
	var err error
	if o.Pretty, err = parsePretty(c); err != nil {
		return o, err
	}
	if o.JSON && (o.Stat || o.Patch || c.IsSet("format") || c.IsSet("pretty") || o.Oneline) {
		return o, usagef("--json lists headers only: leave out --stat, --patch, --format, --pretty and --oneline")
	}
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

// parsePretty reads --pretty, --format and --oneline, of which one may be
// given.
func parsePretty(c *cli.Context) (render.Pretty, error) {
	if btoi(c.IsSet("pretty"))+btoi(c.IsSet("format"))+btoi(c.Bool("oneline")) > 1 {
		return render.Pretty{}, usagef("choose one of --oneline, --pretty and --format")
	}
	switch {
	case c.IsSet("format"):
		return render.ParsePretty(c.String("format"), true)
	case c.IsSet("pretty"):
		return render.ParsePretty(c.String("pretty"), false)
	case c.Bool("oneline"):
		return render.ParsePretty("oneline", false)
	}
	return render.ParsePretty("medium", false)
}

// runLog lists the snapshots o selects, newest first. With no REV it
// starts from o.Session, else the default session, else every session.
func runLog(ctx context.Context, d *deps, o logOptions) error {
	o.Session = or(o.Session, d.session)
	if o.Oneline {
		o.Pretty, _ = render.ParsePretty("oneline", false)
	}
	if len(o.Revs) == 0 && o.Session == "" && !o.All && o.Checkpoint == "" && o.Code == "" {
		var err error
		if o.Session, err = d.defaultSession(ctx, ""); err != nil {
			return err
		}
	}
	sel, err := selectLog(ctx, d, o)
	if err != nil {
		return err
	}
	lw := &render.LogWriter{W: d.out, Pretty: o.Pretty, Color: d.color, Now: time.Now()}
	if o.Graph {
		lw.Graph = &render.Graph{}
	}
	if d.now != nil {
		lw.Now = d.now() // $GIT_COMMITTER_DATE's, for relative dates that can be tested
	}
	var picked []storage.Entry // for --json and --reverse, which print at the end
	shown := 0
	sessions := map[string]bool{} // of the snapshots shown
	err = d.repo.WalkRange(ctx, sel.r, func(e storage.Entry) error {
		if !sel.filter.Match(e) || (sel.grep != nil && !sel.grep[e.ID]) {
			return nil
		}
		if ok, err := logKeeps(ctx, d.repo, o, e); err != nil || !ok {
			return err
		}
		if o.Max > 0 && shown >= o.Max {
			return storage.ErrStop
		}
		shown++
		sessions[e.Header.Session] = true
		if o.JSON || o.Reverse {
			picked = append(picked, e)
			return nil
		}
		return logOne(ctx, d, o, lw, e, sel.names[e.ID])
	})
	if err == nil {
		err = logPicked(ctx, d, o, lw, picked, sel.names)
	}
	return errors.Join(err, sel.unread(sessions))
}

// unread names what the log could not read, after it: the sessions left
// out of --all's walk and the damaged checkpoints of the sessions shown.
func (sel logSelection) unread(shown map[string]bool) error {
	var cps error
	if sel.damagedCps != nil {
		cps = sel.damagedCps.Of(slices.Collect(maps.Keys(shown))...)
	}
	return errors.Join(sel.damaged, cps)
}

// logSelection is what log walks and which of the snapshots it keeps.
type logSelection struct {
	r      gitstore.RevRange
	filter storage.Filter
	grep   map[storage.ID]bool     // --grep's snapshots; nil: all
	names  map[storage.ID][]string // checkpoint names by snapshot
	// damaged names the sessions whose newest snapshot could not be
	// read, left out of --all's walk (gitstore.DamagedSessions).
	damaged error
	// damagedCps are the checkpoints whose tags could not be read: named
	// after the log when it showed a snapshot of their session.
	damagedCps *storage.DamagedCheckpoints
}

// selectLog reads o's revisions, checkpoints and filters.
func selectLog(ctx context.Context, d *deps, o logOptions) (logSelection, error) {
	s := d.repo
	names, carried, damagedCps, err := checkpointNames(ctx, s, o.Checkpoint)
	if err != nil {
		return logSelection{}, err
	}
	r, damaged, err := logRange(ctx, s, o, carried)
	if err != nil {
		return logSelection{}, err
	}
	code, err := s.CodePrefix(o.Code)
	if err != nil {
		return logSelection{}, err
	}
	sel := logSelection{r: r, names: names, damaged: damaged, damagedCps: damagedCps, filter: storage.Filter{Since: o.Since, Until: o.Until, Label: o.Label, Code: code}}
	if code != "" {
		rewrites, err := s.ReadRewrites(ctx)
		if err != nil {
			return logSelection{}, err
		}
		sel.filter.Rewritten = rewrites.Before(code)
	}
	if o.Checkpoint != "" {
		sel.filter.Carried = carried
	}
	if o.Grep != "" {
		if sel.grep, err = grepSnapshots(ctx, d, o.Grep); err != nil {
			return logSelection{}, err
		}
	}
	return sel, nil
}

// logPicked prints what log kept for the end: --json, --reverse.
func logPicked(ctx context.Context, d *deps, o logOptions, lw *render.LogWriter, picked []storage.Entry, names map[storage.ID][]string) error {
	if o.JSON {
		out := []render.EntryJSON{}
		for _, e := range picked {
			out = append(out, render.EntryToJSON(e, names[e.ID]))
		}
		if o.Reverse {
			slices.Reverse(out)
		}
		return d.writeJSON(render.NewLogJSON(out))
	}
	slices.Reverse(picked)
	for _, e := range picked {
		if err := logOne(ctx, d, o, lw, e, names[e.ID]); err != nil {
			return err
		}
	}
	lw.End()
	return nil
}

// logOne writes a snapshot and, with --stat or --patch, what it changed
// from its parent.
func logOne(ctx context.Context, d *deps, o logOptions, lw *render.LogWriter, e storage.Entry, names []string) error {
	lw.Write(e, names)
	if !o.Stat && !o.Patch {
		return nil
	}
	diff, err := diffPair(ctx, d.repo, e.Parent, e.ID)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if o.Stat {
		render.DiffStat(&b, diff)
	}
	if o.Patch {
		render.Diff(&b, d.color, diff)
	}
	b.WriteByte('\n')
	lw.More(b.Bytes())
	return nil
}

// logKeeps applies the filters that read more than the commit: -- PATH
// (the captured files e changed) and -S, -G (the messages' text it
// changed).
func logKeeps(ctx context.Context, s *gitsnap.Repository, o logOptions, e storage.Entry) (bool, error) {
	if len(o.Paths) > 0 {
		changed, err := s.ChangedFiles(ctx, e, o.Paths)
		if err != nil || len(changed) == 0 {
			return false, err
		}
	}
	if o.Pickaxe == "" && o.PickaxeRE == nil {
		return true, nil
	}
	var count func(string) int
	var match func(string) bool
	if o.Pickaxe != "" {
		count = func(text string) int { return strings.Count(text, o.Pickaxe) }
	}
	if o.PickaxeRE != nil {
		match = o.PickaxeRE.MatchString
	}
	return session.Pickaxe(ctx, s, e, count, match)
}

// checkpointNames maps each snapshot to its current checkpoints, and
// says which snapshots carry or carried the checkpoint named cp; the
// checkpoints whose tags cannot be read are set apart (damaged).
func checkpointNames(ctx context.Context, s *gitsnap.Repository, cp string) (map[storage.ID][]string, map[storage.ID]bool, *storage.DamagedCheckpoints, error) {
	cps, damaged, err := readableCheckpoints(ctx, s, "", true)
	if err != nil {
		return nil, nil, nil, err
	}
	names := map[storage.ID][]string{}
	carried := map[storage.ID]bool{}
	for _, c := range cps {
		if !c.Moved {
			names[c.Target] = append(names[c.Target], c.Name)
		}
		if c.Name == cp {
			carried[c.Target] = true
		}
	}
	return names, carried, damaged, nil
}

// logRange is where the walk starts and what it leaves out: the REVs
// and ranges given, else the snapshots that carried --checkpoint, else
// the session, else every session (--all, or --code with no REV) whose
// newest snapshot can be read, the others named by damaged.
func logRange(ctx context.Context, s *gitsnap.Repository, o logOptions, carried map[storage.ID]bool) (r gitstore.RevRange, damaged, err error) {
	if r, err = s.ResolveRange(ctx, o.Revs); err != nil {
		return r, nil, err
	}
	if len(r.Include) > 0 && !o.All {
		return r, nil, nil
	}
	if o.Checkpoint != "" && len(r.Include) == 0 && !o.All {
		for id := range carried {
			r.Include = append(r.Include, id)
		}
		return r, nil, nil
	}
	if o.Session != "" && !o.All {
		id, err := s.Resolve(ctx, o.Session)
		if err != nil {
			return r, nil, err
		}
		r.Include = append(r.Include, id)
		return r, nil, nil
	}
	sessions, damaged, err := readableSessions(ctx, s)
	if err != nil {
		return r, nil, err
	}
	for _, sess := range sessions {
		r.Read = append(r.Read, sess.Tip) // read once, by Sessions
	}
	return r, damaged, nil
}

// parseWhen reads --since and --until (see package approxidate).
func parseWhen(s string, now time.Time) (time.Time, error) {
	return approxidate.Parse(s, now)
}
