package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/render"
	"github.com/git-snap/git-snap/snapshot"
)

func cmdStats(e *env) *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "summarise a session, or all sessions",
		ArgsUsage: "[SESSION]",
		Description: `Counts snapshots and checkpoints, first and last time and the span between, and
from the newest snapshot: messages, tool calls, model calls, input and output tokens.
Without SESSION: the default session, or all sessions added up.

Examples:
   git snap stats fix-login
   git snap stats --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "JSON, for scripts"},
		},
		Action: action(e, shape{max: 1}, parseStats, runStats),
	}
}

type statsOptions struct {
	Session string
	JSON    bool
}

func parseStats(c *cli.Context) (statsOptions, error) {
	return statsOptions{Session: c.Args().First(), JSON: c.Bool("json")}, nil
}

type sessionStats struct {
	Sessions    int            `json:"sessions"`
	Snapshots   int            `json:"snapshots"`
	Checkpoints map[string]int `json:"checkpoints"`
	First       time.Time      `json:"first"`
	Last        time.Time      `json:"last"`
	Duration    string         `json:"duration"`
	statsJSON
}

// runStats sums up o.Session, else the default session, else every
// session.
func runStats(ctx context.Context, d *deps, o statsOptions) error {
	s, w, session := d.store, d.out, or(o.Session, d.session)
	all, err := s.Sessions(ctx)
	if err != nil {
		return err
	}
	if session != "" {
		all = slices.DeleteFunc(all, func(x gitstore.Session) bool { return x.Name != session })
		if len(all) == 0 {
			return &gitstore.NotFoundError{Name: session, Msg: "names no session (see git snap sessions)"}
		}
	}
	st := sessionStats{Checkpoints: map[string]int{}}
	for _, sess := range all {
		h := sess.Tip.Header
		st.Sessions++
		st.Snapshots += h.Seq
		if st.First.IsZero() || h.Started.Before(st.First) {
			st.First = h.Started
		}
		if h.Time.After(st.Last) {
			st.Last = h.Time
		}
		doc, _, err := s.Read(ctx, sess.Tip.ID)
		if err != nil {
			return err
		}
		add(&st.statsJSON, statsOf(snapshot.ComputeStats(doc, agent.ViewMessage)))
		cps, err := s.Checkpoints(ctx, sess.Name, false)
		if err != nil {
			return err
		}
		for _, cp := range cps {
			st.Checkpoints[cp.Name]++
		}
	}
	st.Duration = st.Last.Sub(st.First).Round(time.Second).String()
	if o.JSON {
		return render.JSON(w, st)
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
	fmt.Fprintf(w, "\nfirst:        %s\nlast:         %s\nduration:     %s\n", st.First.Format(render.DateLayout), st.Last.Format(render.DateLayout), st.Duration)
	fmt.Fprintf(w, "messages:     %d\ntool calls:   %d\nmodel calls:  %d\n", st.Messages, st.ToolCalls, st.ModelCalls)
	fmt.Fprintf(w, "input tokens: %d%s\noutput tokens: %d%s\n", st.InputTokens, est, st.OutputTokens, est)
	return nil
}

func add(sum *statsJSON, s statsJSON) {
	sum.Messages += s.Messages
	sum.Events += s.Events
	sum.Files += s.Files
	sum.ToolCalls += s.ToolCalls
	sum.ModelCalls += s.ModelCalls
	sum.InputTokens += s.InputTokens
	sum.OutputTokens += s.OutputTokens
	sum.Estimated = sum.Estimated || s.Estimated
}
