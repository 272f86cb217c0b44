// Package demo holds the sample agent session that git snap demo saves.
// It is a short conversation, embedded in the binary, that finds and
// fixes a bug, with its tool calls, a config change and the file it
// edits.
package demo

import (
	_ "embed"
	"fmt"

	"github.com/git-snap/git-snap/snapshot"
)

//go:embed session.json
var session []byte

// Step is one snapshot of the sample session.
type Step struct {
	Label, Checkpoint string
	Turn              int
	Doc               map[string]any
}

// Steps builds each step's document from the embedded session. A step
// holds the session's first N messages, the config with that step's
// changes applied, and the captured files once the step has edited them.
func Steps() ([]Step, error) {
	v, err := snapshot.ParseDocument(session, snapshot.Limits{})
	if err != nil {
		return nil, fmt.Errorf("demo data: %w", err)
	}
	msgs, _ := v["messages"].([]any)
	config, _ := v["config"].(map[string]any)
	var out []Step
	for _, raw := range v["steps"].([]any) {
		st := raw.(map[string]any)
		n, _ := st["messages"].(snapshot.Number).Int64()
		turn, _ := st["turn"].(snapshot.Number).Int64()
		if over, ok := st["config"].(map[string]any); ok {
			merged := map[string]any{}
			for k, x := range config {
				merged[k] = x
			}
			for k, x := range over {
				merged[k] = x
			}
			config = merged
		}
		doc := map[string]any{"config": config, "messages": msgs[:n]}
		if st["files"] == true {
			doc["files"] = v["files"]
		}
		cp, _ := st["checkpoint"].(string)
		out = append(out, Step{Label: st["label"].(string), Checkpoint: cp, Turn: int(turn), Doc: doc})
	}
	return out, nil
}
