package capture

import (
	"context"
	"fmt"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Recorder records a harness's lifecycle events into a session and
// snapshots it at turn boundaries: after each model call, before a
// compaction, at the end, and when closed.
type Recorder struct {
	Store   storage.Writer
	Session string
	Source  string // the snapshots' source; "jsonl" when empty
	pending []any
	last    string
}

// Event adds one event; it returns the snapshot taken when the event
// ends a turn.
func (r *Recorder) Event(ctx context.Context, ev map[string]any) (storage.Entry, bool, error) {
	if err := agent.CheckEvent(ev); err != nil {
		return storage.Entry{}, false, err
	}
	r.pending = append(r.pending, ev)
	r.last = ev["type"].(string)
	if !agent.EndsTurn(r.last) {
		return storage.Entry{}, false, nil
	}
	return r.Flush(ctx)
}

// Flush snapshots the events not yet recorded.
func (r *Recorder) Flush(ctx context.Context) (storage.Entry, bool, error) {
	if len(r.pending) == 0 {
		return storage.Entry{}, false, nil
	}
	source := r.Source
	if source == "" {
		source = "jsonl"
	}
	events := r.pending
	// The snapshot's time is its newest event's: events may be recorded
	// long after they happened (a harness's log fed to record later).
	var newest int64
	for _, ev := range events {
		newest = max(newest, agent.EventTime(ev.(map[string]any)))
	}
	e, added, err := r.Store.Append(ctx, storage.SaveOptions{Session: r.Session, Label: r.last, Source: source, Time: time.UnixMilli(newest).UTC()}, func(tip map[string]any) (storage.Delta, error) {
		turns := snapshot.Int(tip["turns"])
		for _, ev := range events {
			if ev.(map[string]any)["type"] == "start" {
				turns++
			}
		}
		return storage.Delta{Events: events, Others: map[string]any{"agent": source, "session_id": r.Session, "turns": snapshot.Number(fmt.Sprint(turns))}, Turn: int(turns)}, nil
	})
	if err == nil {
		r.pending = nil
	}
	return e, added, err
}
