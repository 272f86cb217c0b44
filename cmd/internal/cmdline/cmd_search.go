package cmdline

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/cmd/internal/proc"
)

type searchOptions struct {
	Query        search.Query
	SessionsOnly bool
	JSON         bool
	Quiet        bool // -q: the exit status alone
	Count        bool // -c: lines found per session
	LineNumbers  bool // -n: each line's number in its field
}

func cmdSearch(e *env) *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "find text in every session: messages, tool inputs and results, file paths",
		ArgsUsage: "PATTERN",
		Description: `Prints each line that matches PATTERN, as git grep does: the session and
snapshot number, the snapshot id (the first snapshot that held the message), the message
index and role, where in the message (text, thinking, tool_input, tool_result, or path for
a file the session captured or wrote), then the line. As git grep does, search exits 0
when it finds a line and 1 when it finds none (-q prints nothing, for scripts), 2 for a
pattern it cannot read; -c prints how many lines each session has, -n each line's number
in its field's text.

PATTERN is a basic regular expression like git grep's: ( ) { } | + ? are literal, \( \)
\{ \} \| \+ \? are operators. -E takes an extended (RE2) expression, -F a fixed string.
The index behind it lives in .git/snap/search; it is brought up to date as a search runs,
and rebuilt when missing or damaged.

Examples:
   git snap search 'connection refused'
   git snap search -i -E 'panic: .*nil' --tool Bash --since 2d
   git snap search -l TODO --file '*.go'
   git snap search --json -F 'a.b(c)' | jq -r '.hits[].session'
   git snap search -q 'rm -rf' && echo 'an agent ran rm -rf'
   git snap search -c TODO`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "extended-regexp", Aliases: []string{"E"}, Usage: "PATTERN is an extended regular expression (RE2 syntax)"},
			&cli.BoolFlag{Name: "fixed-strings", Aliases: []string{"F"}, Usage: "PATTERN is a fixed string"},
			&cli.BoolFlag{Name: "ignore-case", Aliases: []string{"i"}, Usage: "ignore case"},
			&cli.BoolFlag{Name: "sessions-with-matches", Aliases: []string{"l", "files-with-matches"}, Usage: "print only the names of sessions with a match"},
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "only sessions whose name matches `GLOB`"},
			&cli.StringFlag{Name: "agent", Usage: "only sessions of `AGENT` (claude-code, codex, or what took them: import, cli, …; a glob)"},
			&cli.StringFlag{Name: "tool", Usage: "only the inputs and results of tool `NAME` (a glob)"},
			&cli.StringFlag{Name: "file", Usage: "only sessions that captured or wrote a file matching `GLOB` (a path, or a base name)"},
			&cli.StringFlag{Name: "label", Usage: "only messages first recorded by a snapshot whose label matches `GLOB`"},
			&cli.StringFlag{Name: "since", Usage: "only messages after `WHEN` (2026-01-31, RFC 3339, or 2h / 3d ago)"},
			&cli.StringFlag{Name: "until", Usage: "only messages before `WHEN`"},
			&cli.IntFlag{Name: "max-count", Aliases: []string{"m"}, Usage: "print at most `N` lines"},
			&cli.BoolFlag{Name: "json", Usage: "the hits and the sessions they are in as JSON, for scripts (docs/json.md)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing: exit 0 when a line matches, 1 when none does"},
			&cli.BoolFlag{Name: "count", Aliases: []string{"c"}, Usage: "print each session with the number of lines that match"},
			&cli.BoolFlag{Name: "line-number", Aliases: []string{"n"}, Usage: "print each line's number in its field's text"},
			rawFlag(),
		},
		Action: action(e, shape{min: 1, max: 1, pager: true}, e.parseSearch, runSearch),
	}
}

func (e *env) parseSearch(c *cli.Context) (searchOptions, error) {
	q := search.Query{
		Pattern: c.Args().First(), IgnoreCase: c.Bool("ignore-case"), Session: c.String("session"), Agent: c.String("agent"),
		Tool: c.String("tool"), File: c.String("file"), Label: c.String("label"), Limit: c.Int("max-count"),
	}
	o := searchOptions{SessionsOnly: c.Bool("sessions-with-matches"), JSON: c.Bool("json"), Quiet: c.Bool("quiet"),
		Count: c.Bool("count"), LineNumbers: c.Bool("line-number")}
	if btoi(o.SessionsOnly)+btoi(o.Count)+btoi(o.Quiet) > 1 {
		return o, usagef("choose one of -l, -c and -q")
	}
	if q.Limit < 0 {
		return o, usagef("--max-count must be 0 or more")
	}
	var err error
	if q.Pattern, q.Regexp, err = pattern(q.Pattern, c.Bool("extended-regexp"), c.Bool("fixed-strings")); err != nil {
		return o, err
	}
	if q.Since, err = parseWhen(c.String("since"), e.now()); err != nil {
		return o, err
	}
	if q.Until, err = parseWhen(c.String("until"), e.now()); err != nil {
		return o, err
	}
	q.SessionsOnly = o.SessionsOnly
	o.Query = q
	return o, nil
}

// pattern reads PATTERN in the syntax the flags name: basic (git grep's
// default), extended or fixed.
func pattern(p string, extended, fixed bool) (string, bool, error) {
	switch {
	case extended && fixed:
		return "", false, usagef("-E and -F exclude each other: give one")
	case fixed:
		return p, false, nil
	case extended:
		return p, true, nil
	}
	re, err := search.Basic(p)
	return re, true, err
}

// runSearch prints the hits of o's query; none is exit status 1, as
// git grep has it.
func runSearch(ctx context.Context, d *deps, o searchOptions) error {
	if o.Quiet {
		o.Query.Limit = 1 // one line answers the question
	}
	hits, err := searchStore(ctx, d, o.Query)
	damaged, err := damagedApart(err)
	if err != nil {
		return err
	}
	if err := showHits(d, o, hits); err != nil {
		return err
	}
	if damaged != nil {
		return damaged
	}
	if len(hits) == 0 {
		return &exitStatus{1}
	}
	return nil
}

// showHits prints hits as o asks.
func showHits(d *deps, o searchOptions, hits []search.Hit) error {
	switch {
	case o.Quiet:
	case o.JSON:
		if err := d.writeJSON(render.NewSearchJSON(hits, o.SessionsOnly)); err != nil {
			return err
		}
	case o.SessionsOnly:
		render.HitSessions(d.out, hits)
	case o.Count:
		for _, c := range render.HitCounts(hits) {
			fmt.Fprintf(d.out, "%s:%d\n", c.Session, c.Hits)
		}
	default:
		render.HitsWith(d.out, d.color, hits, o.LineNumbers)
	}
	return nil
}

// searchStore runs a query on the repository's index, which it first
// brings up to date: the first search of a repository builds it, holding
// a segment of text and postings in memory at a time, which the
// collector is told to keep under searchMemoryLimit (docs/design.md §8).
func searchStore(ctx context.Context, d *deps, q search.Query) ([]search.Hit, error) {
	proc.LimitMemory(searchMemoryLimit)
	x, err := search.Open(ctx, d.repo.Storage(), search.DefaultDir(d.repo.Paths().CommonDir))
	if err != nil {
		return nil, err
	}
	defer x.Close()
	return x.Search(ctx, q)
}

// grepSnapshots is log --grep: the snapshots that first recorded a
// message matching pattern (a basic regular expression, as git log's).
func grepSnapshots(ctx context.Context, d *deps, pattern string) (map[storage.ID]bool, error) {
	re, err := search.Basic(pattern)
	if err != nil {
		return nil, err
	}
	// A session left out for damage is not walked either: log names
	// it where it reads it.
	hits, err := searchStore(ctx, d, search.Query{Pattern: re, Regexp: true})
	if _, err := damagedApart(err); err != nil {
		return nil, err
	}
	out := map[storage.ID]bool{}
	for _, h := range hits {
		out[storage.NewID(h.Snapshot)] = true
	}
	return out, nil
}
