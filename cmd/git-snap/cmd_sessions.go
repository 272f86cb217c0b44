package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/render"
)

func cmdSessions(e *env) *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list sessions",
		Description: `Lists every session, most recently active first: its snapshots, first and last
time, last label and the agent that recorded it.

Examples:
   git snap sessions
   git snap sessions --json | jq -r '.sessions[].name'`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "JSON for scripts (docs/json.md)"},
		},
		Action: action(e, shape{pager: true}, parseSessions, runSessions),
	}
}

type sessionsOptions struct {
	JSON bool
}

func parseSessions(c *cli.Context) (sessionsOptions, error) {
	return sessionsOptions{JSON: c.Bool("json")}, nil
}

// runSessions lists the sessions, most recently active first.
func runSessions(ctx context.Context, d *deps, o sessionsOptions) error {
	w := d.out
	sessions, err := d.store.Sessions(ctx)
	if err != nil {
		return err
	}
	if o.JSON {
		out := []render.SessionJSON{}
		for _, sess := range sessions {
			out = append(out, render.SessionToJSON(sess))
		}
		return d.writeJSON(render.NewSessionsJSON(out))
	}
	if len(sessions) == 0 {
		fmt.Fprintln(w, "no sessions yet; save one with git snap save --session NAME FILE")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSNAPSHOTS\tFIRST\tLAST\tLAST LABEL\tAGENT")
	for _, sess := range sessions {
		h := sess.Tip.Header
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", sess.Name, h.Seq, h.Started.Local().Format("2006-01-02 15:04"),
			h.Time.Local().Format("2006-01-02 15:04"), render.Shorten(h.Label, 40), h.Source)
	}
	return tw.Flush()
}
