package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

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
   git snap sessions --json | jq -r '.[].name'`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "a JSON array, for scripts"},
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

type sessionJSON struct {
	Name      string `json:"name"`
	Ref       string `json:"ref"`
	Snapshots int    `json:"snapshots"`
	First     string `json:"first"`
	Last      string `json:"last"`
	LastLabel string `json:"last_label"`
	Agent     string `json:"agent"`
	Tip       string `json:"tip"`
}

// runSessions lists the sessions, most recently active first.
func runSessions(ctx context.Context, d *deps, o sessionsOptions) error {
	w := d.out
	sessions, err := d.store.Sessions(ctx)
	if err != nil {
		return err
	}
	out := []sessionJSON{}
	for _, sess := range sessions {
		h := sess.Tip.Header
		out = append(out, sessionJSON{
			Name: sess.Name, Ref: sess.Ref, Snapshots: h.Seq, First: h.Started.Format(time.RFC3339),
			Last: h.Time.Format(time.RFC3339), LastLabel: h.Label, Agent: h.Source, Tip: sess.Tip.ID.String(),
		})
	}
	if o.JSON {
		return render.JSON(w, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(w, "no sessions yet; save one with git snap save --session NAME FILE")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSNAPSHOTS\tFIRST\tLAST\tLAST LABEL\tAGENT")
	for i, o := range out {
		h := sessions[i].Tip.Header
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", o.Name, o.Snapshots, h.Started.Local().Format("2006-01-02 15:04"),
			h.Time.Local().Format("2006-01-02 15:04"), render.Shorten(o.LastLabel, 40), o.Agent)
	}
	return tw.Flush()
}
