package main

import (
	"bufio"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

func cmdRecord(e *env) *cli.Command {
	return &cli.Command{
		Name:  "record",
		Usage: "record a harness's lifecycle events from stdin",
		Description: `Reads one JSON event per line on stdin — start, pre_model, post_model, pre_tool,
post_tool, sensor, pre_compact, post_compact, heartbeat or end, each with ts_ms — and
snapshots the session at turn boundaries: after each post_model, at pre_compact and end,
and at the end of input. A malformed line is skipped with a warning on stderr.

Example:
   my-harness --events-jsonl | git snap record --session run-42`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "session `NAME`"},
		},
		Action: e.storeAction(0, 0, func(c *cli.Context, s *gitstore.Store, cfg config.Config) error {
			session := e.session(c, cfg)
			if session == "" {
				return usagef("record needs a session: --session NAME")
			}
			if err := snapshot.CheckName("session", session); err != nil {
				return usagef("%v", err)
			}
			rec := &agent.Recorder{Store: s, Session: session}
			sc := bufio.NewScanner(e.stdin)
			sc.Buffer(nil, cfg.Limits.MaxDocumentBytes)
			line, snaps, skipped := 0, 0, 0
			for sc.Scan() {
				line++
				v, err := snapshot.Parse(sc.Bytes(), snapshot.Limits{MaxDepth: cfg.Limits.MaxDepth, MaxValueBytes: cfg.Limits.MaxValueBytes})
				ev, isObj := v.(map[string]any)
				if err == nil && !isObj {
					err = fmt.Errorf("an event is a JSON object, not %s", snapshot.KindOf(v))
				}
				if err == nil {
					err = agent.CheckEvent(ev)
				}
				if err != nil {
					skipped++
					fmt.Fprintf(e.stderr, "git-snap: warning: line %d skipped: %v\n", line, err)
					continue
				}
				_, added, err := rec.Event(c.Context, ev)
				if err != nil {
					return err
				}
				snaps += btoi(added)
			}
			if err := sc.Err(); err != nil {
				return fmt.Errorf("read events: %w", err)
			}
			_, added, err := rec.Flush(c.Context)
			if err != nil {
				return err
			}
			snaps += btoi(added)
			fmt.Fprintf(e.stdout, "%d events, %d skipped, %d snapshots of %s\n", line-skipped, skipped, snaps, session)
			return nil
		}),
	}
}
