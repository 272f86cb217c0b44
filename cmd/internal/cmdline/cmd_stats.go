package cmdline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/storage"
)

func cmdStats(e *env) *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "summarise a session, or all sessions",
		ArgsUsage: "[SESSION] | --lines [BASE..HEAD]",
		Description: `Counts snapshots and checkpoints, first and last time and the span between, and
from the newest snapshot: messages, turns, tool calls and failures, model calls,
compactions, tokens (input, cache read, cache write and output separately) and an
estimate of their cost at list prices (config prices: add or override them).
First and last are the times of the records when they carry times, else of
the snapshots. Without SESSION: the default session, or all sessions added up.

--lines counts instead who wrote the lines a range of code commits added that its
last commit still holds, as git snap blame tells each line: agents (by session and
by model), people, and unknown. BASE..HEAD is read as git snap pr reads it (BASE
alone is BASE..HEAD; none: the current branch's upstream to HEAD).

Examples:
   git snap stats fix-login
   git snap stats --json
   git snap stats --lines main..HEAD`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "JSON, for scripts"},
			&cli.BoolFlag{Name: "lines", Usage: "count who wrote the lines a range of code commits added: agents, by model, or people"},
		},
		Action: action(e, shape{max: 1}, parseStats, runStats),
	}
}

type statsOptions struct {
	Session string
	JSON    bool
	Lines   bool   // count a code range's lines
	Range   string // with Lines: BASE..HEAD, "" for the upstream to HEAD
}

func parseStats(c *cli.Context) (statsOptions, error) {
	o := statsOptions{Session: c.Args().First(), JSON: c.Bool("json"), Lines: c.Bool("lines")}
	if o.Lines {
		o.Range, o.Session = o.Session, ""
	}
	return o, nil
}

// sessionStats are the sessions summed; render.StatsJSON is their JSON.
type sessionStats struct {
	Sessions    int
	Snapshots   int
	Checkpoints map[string]int
	First       time.Time
	Last        time.Time
	Duration    string
	agent.Numbers
}

// runStats sums up o.Session, else the default session, else every
// session.
func runStats(ctx context.Context, d *deps, o statsOptions) error {
	proc.LimitMemory(readMemoryLimit)
	if o.Lines {
		return lineStats(ctx, d, o)
	}
	s, session := d.repo, or(o.Session, d.session)
	all, damaged, err := readableSessions(ctx, s)
	if err != nil {
		return err
	}
	if session != "" {
		if session, err = s.FindSession(ctx, session); err != nil {
			return err
		}
		all = slices.DeleteFunc(all, func(x storage.Session) bool { return x.Name != session })
		var dmg *storage.DamagedSessions
		if errors.As(damaged, &dmg) {
			damaged = dmg.Of(session)
		}
		if len(all) == 0 && damaged != nil {
			return damaged
		}
		if len(all) == 0 {
			return storage.NoSession(session)
		}
	}
	return errors.Join(showStats(ctx, d, o, all), damaged)
}

// showStats sums up the sessions given and prints them.
func showStats(ctx context.Context, d *deps, o statsOptions, all []storage.Session) error {
	s, w := d.repo, d.out
	st := sessionStats{Checkpoints: map[string]int{}}
	tips := make([]storage.Entry, len(all))
	for i, sess := range all {
		tips[i] = sess.Tip
	}
	totals, counted, err := s.TotalsProgress(ctx, tips, upgradeProgress(d)) // from the commits; documents only for old snapshots
	if err != nil {
		return err
	}
	names, err := s.CheckpointsBySession()
	if err != nil {
		return err
	}
	for i, sess := range all {
		h := sess.Tip.Header
		st.Sessions++
		st.Snapshots += h.Seq
		h.Counted, h.Totals = counted[i], totals[i]
		one, _ := agent.NumbersOfHeader(h)
		first, last := h.Started, render.LastTime(h)
		if !one.First.IsZero() {
			first, last = one.First, one.Last
		}
		if st.First.IsZero() || first.Before(st.First) {
			st.First = first
		}
		if last.After(st.Last) {
			st.Last = last
		}
		st.Add(one)
		for _, name := range names[sess.Name] {
			st.Checkpoints[name]++
		}
	}
	st.Duration = st.Last.Sub(st.First).Round(time.Second).String()
	if err := withCost(d, &st.Numbers); err != nil {
		return err
	}
	if o.JSON {
		return d.writeJSON(render.NewStatsJSON(st.Sessions, st.Snapshots, st.Checkpoints, render.NumbersToJSON(st.Numbers, st.First, st.Last)))
	}
	fmt.Fprintf(w, "sessions:     %d\nsnapshots:    %d\n", st.Sessions, st.Snapshots)
	fmt.Fprintf(w, "checkpoints:  %d", len(st.Checkpoints))
	for _, name := range slices.Sorted(maps.Keys(st.Checkpoints)) {
		fmt.Fprintf(w, " %s×%d", name, st.Checkpoints[name])
	}
	est := ""
	if st.Estimated {
		est = " (some estimated)"
	}
	first, last, duration := "-", "-", "-" // no session, or none with a time
	if !st.First.IsZero() {
		first, last, duration = st.First.Format(render.DateLayout), st.Last.Format(render.DateLayout), st.Duration
	}
	fmt.Fprintf(w, "\nfirst:        %s\nlast:         %s\nduration:     %s\n", first, last, duration)
	fmt.Fprintf(w, "messages:     %d\nturns:        %d\ntool calls:   %d (%d failed)\nmodel calls:  %d\ncompactions:  %d\n",
		st.Messages, st.Turns, st.ToolCalls, st.ToolFailures, st.ModelCalls, st.Compactions)
	fmt.Fprintf(w, "input tokens: %d%s\ncache read:   %d\ncache write:  %d\noutput tokens: %d%s\n",
		st.InputTokens, est, st.CacheReadTokens, st.CacheWriteTokens, st.OutputTokens, est)
	fmt.Fprintf(w, "cost:         %s\n", render.CostText(st.Cost))
	return nil
}
