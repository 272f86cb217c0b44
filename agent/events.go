package agent

import (
	"fmt"
	"slices"

	"github.com/git-snap/git-snap/snapshot"
)

// Events are what a harness records of its own lifecycle (git snap
// record, Recorder): one JSON object per event, with a type and a time.

var eventTypes = []string{"start", "pre_model", "post_model", "pre_tool", "post_tool", "sensor", "pre_compact", "post_compact", "heartbeat", "end"}

// EventTypes lists the lifecycle events a harness records, in the order
// of a turn; a fresh copy each call.
func EventTypes() []string { return slices.Clone(eventTypes) }

// EndsTurn reports whether an event of type t ends a turn, so that the
// session is snapshotted after it.
func EndsTurn(t string) bool {
	return t == "post_model" || t == "pre_compact" || t == "end"
}

// CheckEvent accepts an event with a known type and a ts_ms time.
func CheckEvent(ev map[string]any) error {
	t, _ := ev["type"].(string)
	if !slices.Contains(eventTypes, t) {
		return fmt.Errorf("event type %q is not one of %v", t, eventTypes)
	}
	if _, ok := num(ev["ts_ms"]); !ok {
		return fmt.Errorf("event %s has no ts_ms (milliseconds since 1970, an integer)", t)
	}
	return nil
}

// EventTime is an event's ts_ms, 0 when it has none.
func EventTime(ev map[string]any) int64 {
	ms, _ := num(ev["ts_ms"])
	return ms
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
