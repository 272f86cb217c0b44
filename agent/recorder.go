package agent

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

var eventTypes = []string{"start", "pre_model", "post_model", "pre_tool", "post_tool", "sensor", "pre_compact", "post_compact", "heartbeat", "end"}

// EventTypes lists the lifecycle events a harness records, in the order
// of a turn; a fresh copy each call.
func EventTypes() []string { return slices.Clone(eventTypes) }

// boundary events end a turn: the session is snapshotted after them.
var boundary = map[string]bool{"post_model": true, "pre_compact": true, "end": true}

// Recorder records a harness's lifecycle events into a session and
// snapshots it at turn boundaries: after each model call, before a
// compaction, at the end, and when closed.
type Recorder struct {
	Store   *gitstore.Store
	Session string
	Source  string // the snapshots' source; "jsonl" when empty
	pending []any
	last    string
}

// CheckEvent accepts an event with a known type and a ts_ms time.
func CheckEvent(ev map[string]any) error {
	t, _ := ev["type"].(string)
	known := false
	for _, k := range eventTypes {
		known = known || k == t
	}
	if !known {
		return fmt.Errorf("event type %q is not one of %v", t, eventTypes)
	}
	if _, ok := num(ev["ts_ms"]); !ok {
		return fmt.Errorf("event %s has no ts_ms (milliseconds since 1970, an integer)", t)
	}
	return nil
}

// Event adds one event; it returns the snapshot taken when the event
// ends a turn.
func (r *Recorder) Event(ctx context.Context, ev map[string]any) (gitstore.Entry, bool, error) {
	if err := CheckEvent(ev); err != nil {
		return gitstore.Entry{}, false, err
	}
	r.pending = append(r.pending, ev)
	r.last = ev["type"].(string)
	if !boundary[r.last] {
		return gitstore.Entry{}, false, nil
	}
	return r.Flush(ctx)
}

// Flush snapshots the events not yet recorded.
func (r *Recorder) Flush(ctx context.Context) (gitstore.Entry, bool, error) {
	if len(r.pending) == 0 {
		return gitstore.Entry{}, false, nil
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
		if ms, _ := num(ev.(map[string]any)["ts_ms"]); ms > newest {
			newest = ms
		}
	}
	e, added, err := r.Store.Append(ctx, gitstore.SaveOptions{Session: r.Session, Label: r.last, Source: source, Time: time.UnixMilli(newest).UTC()},
		func(tip map[string]any) (gitstore.Delta, error) {
			turns, _ := num(tip["turns"])
			for _, ev := range events {
				if ev.(map[string]any)["type"] == "start" {
					turns++
				}
			}
			return gitstore.Delta{Events: events, Rest: map[string]any{"agent": source, "session_id": r.Session, "turns": snapshot.Number(fmt.Sprint(turns))}, Turn: int(turns)}, nil
		})
	if err == nil {
		r.pending = nil
	}
	return e, added, err
}

// EventUsage reads the tokens of a post_model event: a usage object
// ({input_tokens, cache_read_input_tokens, cache_creation_input_tokens,
// output_tokens}, as Anthropic's API writes it) or the same fields on the
// event itself; the object wins where both are given.
func EventUsage(ev map[string]any) snapshot.Usage {
	read := func(o map[string]any) snapshot.Usage {
		return snapshot.Usage{
			Input:      snapshot.Int(o["input_tokens"]),
			CacheRead:  snapshot.Int(o["cache_read_input_tokens"]),
			CacheWrite: snapshot.Int(o["cache_creation_input_tokens"]),
			Output:     snapshot.Int(o["output_tokens"]),
		}
	}
	if u, ok := ev["usage"].(map[string]any); ok {
		return read(u)
	}
	return read(ev)
}
