package cmdline

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
)

type showOptions struct {
	Rev      string
	Session  string
	JSON     bool
	YAML     bool
	Full     bool // nothing shortened
	Tools    bool // tool inputs and results whole
	Width    int  // wrap text at this many columns; -1: the terminal's width
	NameOnly bool // the header and the files it changed from its parent
}

func cmdShow(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a snapshot: header, stats and the conversation",
		ArgsUsage: "[REV | REV:PATH]",
		Description: `Shows a snapshot's header and statistics, then its conversation for a person:
roles, text, tool calls and results (shortened). A subagent's records are marked
(subagent NAME); preambles the harness wrote (system and developer text, context
injected as the user's) are folded to one line, and records that are not
conversation (progress lines) are counted at the end. --full shows everything whole,
--tools the tool calls' inputs and results whole. On a terminal, text is wrapped at its
width as Markdown is (code, tables and headings kept, list items and quotes indented);
--width N sets the columns, 0 turns wrapping off. --json and --yaml give everything:
header, stats and the whole document.

REV:PATH prints what PATH names in the snapshot, as git show REV:PATH does: a captured
file's bytes (the path show --name-only prints), else a member of the document as JSON,
PATH read as a JSON Pointer (messages/3, transcript, config/model). An empty REV is the
default session (:src/app.go).

Examples:
   git snap show fix-login
   git snap show fix-login~2 --json | jq .stats
   git snap show snap/fix-login/green --yaml
   git snap show fix-login --tools
   git snap show fix-login --name-only      # the files this snapshot changed
   git snap show fix-login~2:src/app.go     # a captured file as it was then
   git snap show fix-login:messages/0       # the first message, as stored`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "header, stats and document as JSON"},
			&cli.BoolFlag{Name: "yaml", Usage: "header, stats and document as YAML"},
			&cli.BoolFlag{Name: "full", Usage: "shorten nothing: text, thinking, tool inputs and results whole"},
			&cli.BoolFlag{Name: "tools", Usage: "tool inputs and results whole"},
			&cli.IntFlag{Name: "width", Value: -1, Usage: "wrap text at `N` columns (default: the terminal's width; 0: no wrapping)"},
			&cli.BoolFlag{Name: "name-only", Usage: "the header and the names of the files the snapshot changed from its parent"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: sessionFlagUsage},
			rawFlag(),
		},
		Action: action(e, shape{max: 1, pager: true}, parseShow, runShow),
	}
}

func parseShow(c *cli.Context) (showOptions, error) {
	o := showOptions{Rev: c.Args().First(), Session: c.String("session"), JSON: c.Bool("json"), YAML: c.Bool("yaml"),
		Full: c.Bool("full"), Tools: c.Bool("tools"), Width: c.Int("width"), NameOnly: c.Bool("name-only")}
	if o.Width < -1 {
		return o, usagef("--width %d: give a number of columns, or 0 for no wrapping", o.Width)
	}
	if btoi(o.JSON)+btoi(o.YAML)+btoi(o.NameOnly) > 1 {
		return o, usagef("choose one of --json, --yaml and --name-only")
	}
	return o, nil
}

// withCost puts a cost estimate on the statistics.
func withCost(d *deps, s *agent.Numbers) error {
	p, err := d.prices()
	if err != nil {
		return err
	}
	c := p.Estimate(s.ByModel)
	s.Cost = &c
	return nil
}

// showPath prints what path names in rev's snapshot (REV:PATH).
func showPath(ctx context.Context, d *deps, rev, path, session string) error {
	rev, err := d.revOrSession(ctx, rev, session)
	if err != nil {
		return err
	}
	data, _, err := d.repo.ReadPath(ctx, rev, path)
	if err != nil {
		return err
	}
	_, err = d.out.Write(data)
	return err
}

// runShow shows o.Rev, or the newest snapshot of the session. For a
// person it reads the records one at a time, twice (the numbers come
// first, the conversation after), so that a long session is never held
// whole; --json and --yaml print the whole document.
func runShow(ctx context.Context, d *deps, o showOptions) error {
	proc.LimitMemory(readMemoryLimit)
	if rev, path, ok := gitstore.SplitRevPath(o.Rev); ok {
		return showPath(ctx, d, rev, path, o.Session)
	}
	rev, err := d.revOrSession(ctx, o.Rev, o.Session)
	if err != nil {
		return err
	}
	switch {
	case o.JSON || o.YAML:
		return showDocument(ctx, d, rev, o)
	case o.NameOnly:
		return showNames(ctx, d, rev)
	}
	snap, err := d.repo.Show(ctx, rev)
	if err != nil {
		return err
	}
	w, p := d.out, d.color
	render.Entry(w, p, snap.Entry, snap.Checkpoints)
	st, err := snap.Numbers(ctx)
	if err != nil {
		return err
	}
	render.Stats(w, st)
	if err := showConversation(ctx, d, snap, o); err != nil {
		return err
	}
	if files, ok := snap.Others[snapshot.MemberFiles].(map[string]any); ok && len(files) > 0 {
		fmt.Fprintln(w, p.Bold("\nfiles"))
		for _, path := range slices.SortedFunc(maps.Keys(files), snapshot.CompareKeys) {
			fmt.Fprintf(w, "    %s\n", path)
		}
	}
	return nil
}

// showConversation writes the snapshot's live records for a person, a
// record at a time.
func showConversation(ctx context.Context, d *deps, snap *session.Snapshot, o showOptions) error {
	recs := snap.Records
	if recs.Len() == 0 {
		return nil
	}
	fmt.Fprintln(d.out)
	width := o.Width
	if width < 0 {
		width = d.width
	}
	c := render.NewConversation(d.out, d.color, render.ConversationOptions{Full: o.Full, Tools: o.Tools, Width: width, Reader: snap.Reader})
	for k := range recs.Len() {
		raw, err := recs.At(ctx, k)
		if err != nil {
			return err
		}
		c.Record(k, raw)
	}
	c.End()
	return nil
}

// showNames prints rev's header and the files it changed from its
// parent (--name-only), reading none of its records.
func showNames(ctx context.Context, d *deps, rev string) error {
	id, err := d.repo.Resolve(ctx, rev)
	if err != nil {
		return err
	}
	entry, err := d.repo.Entry(ctx, id)
	if err != nil {
		return err
	}
	names, err := gitsnap.CheckpointsOn(ctx, d.repo.Storage(), entry)
	if err != nil {
		return err
	}
	render.Entry(d.out, d.color, entry, names)
	diff, err := diffPair(ctx, d.repo, entry.Parent, entry.ID)
	if err != nil {
		return err
	}
	for _, f := range diff.Files {
		fmt.Fprintln(d.out, f.Path)
	}
	return nil
}

// showDocument prints rev's header, numbers and whole document as JSON
// or YAML.
func showDocument(ctx context.Context, d *deps, rev string, o showOptions) error {
	doc, entry, err := d.repo.ReadRevision(ctx, rev)
	if err != nil {
		return err
	}
	st := agent.NumbersOf(doc, entry.Header.Source)
	names, err := gitsnap.CheckpointsOn(ctx, d.repo.Storage(), entry)
	if err != nil {
		return err
	}
	if err := withCost(d, &st); err != nil {
		return err
	}
	full := render.NewShowJSON(render.EntryToJSON(entry, names), render.NumbersToJSON(st, st.First, st.Last), doc)
	if o.JSON {
		return d.writeJSON(full)
	}
	return render.YAML(d.out, map[string]any{"schema_version": full.SchemaVersion, "snapshot": render.Value(full.Snapshot), "stats": render.Value(full.Stats), "document": doc})
}
