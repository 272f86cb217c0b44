package cmdline

import (
	"bufio"
	"context"
	"fmt"

	"github.com/git-snap/git-snap/capture"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/config"
	"github.com/git-snap/git-snap/render"
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
		Action: action(e, shape{}, parseRecord, runRecord),
	}
}

type recordOptions struct{ Session string }

func parseRecord(c *cli.Context) (recordOptions, error) {
	return recordOptions{Session: c.String("session")}, nil
}

// runRecord reads events from stdin and snapshots the session at turn
// boundaries; a malformed line is skipped with a warning.
func runRecord(ctx context.Context, d *deps, o recordOptions) error {
	session := or(o.Session, d.session)
	if session == "" {
		return usagef("record needs a session: --session NAME")
	}
	if err := snapshot.CheckName("session", session); err != nil {
		return usagef("%v", err)
	}
	rec := &capture.Recorder{Store: d.repo, Session: session}
	sc := bufio.NewScanner(d.in)
	sc.Buffer(nil, d.cfg.Limits.MaxDocumentBytes)
	line, snaps, skipped := 0, 0, 0
	for sc.Scan() {
		line++
		ev, err := readEvent(sc.Bytes(), d.cfg)
		if err != nil {
			skipped++
			fmt.Fprintf(d.errOut, "git-snap: warning: line %d skipped: %v\n", line, err)
			continue
		}
		_, added, err := rec.Event(ctx, ev)
		if err != nil {
			return err
		}
		snaps += btoi(added)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	_, added, err := rec.Flush(ctx)
	if err != nil {
		return err
	}
	snaps += btoi(added)
	fmt.Fprintf(d.out, "%s, %d skipped, %s of %s\n", render.Count(line-skipped, "event"), skipped, render.Count(snaps, "snapshot"), session)
	return nil
}

// readEvent reads one line of record's input: a JSON object that is a
// lifecycle event, within the configured limits.
func readEvent(line []byte, cfg config.Config) (map[string]any, error) {
	v, err := snapshot.Parse(line, snapshot.Limits{MaxDepth: cfg.Limits.MaxDepth, MaxValueBytes: cfg.Limits.MaxValueBytes})
	if err != nil {
		return nil, err
	}
	ev, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("an event is a JSON object, not %s", snapshot.KindOf(v))
	}
	return ev, agent.CheckEvent(ev)
}
