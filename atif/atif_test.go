package atif

import (
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

const nested = `{"schema_version": "ATIF-v1.7", "session_id": "s", "agent": {"name": "x", "version": "1"},
 "steps": [
  {"step_id": 1, "source": "user", "message": "go"},
  {"step_id": 2, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "t", "function_name": "task", "arguments": {}}],
   "observation": {"results": [{"source_call_id": "t", "subagent_trajectory_ref": [{"trajectory_id": "a"}]}]}}],
 "subagent_trajectories": [
  {"schema_version": "ATIF-v1.7", "trajectory_id": "a", "agent": {"name": "x", "version": "1"}, "extra": {"k": 1},
   "steps": [{"step_id": 1, "source": "agent", "message": "sub", "metrics": {"prompt_tokens": 5, "completion_tokens": 2}}],
   "subagent_trajectories": [{"trajectory_id": "b", "agent": {"name": "y", "version": "2"}, "steps": [{"step_id": 1, "source": "system", "message": "deep"}]}]}]}`

// A trajectory another tool wrote, subagents nested two deep, is
// exported again as it was imported.
func TestForeignTrajectoryComesBack(t *testing.T) {
	doc, session, err := Import([]byte(nested), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if session != "s" || doc["agent"] != Agent {
		t.Fatalf("session %q, agent %v", session, doc["agent"])
	}
	msgs := doc[snapshot.MemberMessages].([]any)
	if len(msgs) != 5 { // 4 steps and 1 result
		t.Fatalf("%d records: %v", len(msgs), msgs)
	}
	if sub := msgs[4].(map[string]any)["subagent"]; sub != "a/b" {
		t.Errorf("the deepest step's record names subagent %v", sub)
	}
	out, err := Export(doc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := snapshot.Parse([]byte(nested), snapshot.Limits{})
	if !snapshot.Equal(out, want) {
		a, _ := snapshot.MarshalIndent(out)
		t.Errorf("exported:\n%s", a)
	}
}

// An extension that lost or repeated a record is refused, not guessed at.
func TestExtensionDamageRefused(t *testing.T) {
	doc, _, err := Import([]byte(nested), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	doc["events"] = []any{"e"} // no longer as imported: exported with the extension
	data, err := Marshal(doc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"git_snap"`) {
		t.Fatal("no extension")
	}
	back, _, err := Import(data, snapshot.Limits{})
	if err != nil || !snapshot.Equal(back, doc) {
		t.Fatalf("round trip: %v", err)
	}
	v, _ := snapshot.Parse(data, snapshot.Limits{})
	root := v.(map[string]any)
	steps := root["steps"].([]any)
	for _, c := range []struct {
		name   string
		damage func(map[string]any)
		says   string
	}{
		{"a step removed", func(r map[string]any) { r["steps"] = steps[1:] }, "missing"},
		{"a step twice", func(r map[string]any) { r["steps"] = append([]any{steps[0]}, steps...) }, "twice"},
		{"an unknown format", func(r map[string]any) {
			r["extra"].(map[string]any)[Extension].(map[string]any)["format"] = 9
		}, "format"},
	} {
		r := map[string]any{}
		for k, v := range root {
			r[k] = v
		}
		ext := map[string]any{}
		for k, v := range root["extra"].(map[string]any)[Extension].(map[string]any) {
			ext[k] = v
		}
		r["extra"] = map[string]any{Extension: ext}
		c.damage(r)
		bad, _ := snapshot.Marshal(r)
		if _, _, err := Import(bad, snapshot.Limits{}); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
