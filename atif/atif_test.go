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
		{"a step removed", func(r map[string]any) { r["steps"] = steps[1:] }, "steps were removed"},
		{"a step twice", func(r map[string]any) { r["steps"] = append([]any{steps[0]}, steps...) }, "twice"},
		{"an unknown format", func(r map[string]any) {
			r["extra"].(map[string]any)[Extension].(map[string]any)["format"] = 9
		}, "format"},
		// A count of records is bounded by the pairs the file holds:
		// -5 panicked in make, 1e12 ran out of memory.
		{"a negative count", func(r map[string]any) {
			r["extra"].(map[string]any)[Extension].(map[string]any)["messages"] = snapshot.Number("-5")
		}, "messages: -5 is not a count of records"},
		{"a huge count", func(r map[string]any) {
			r["extra"].(map[string]any)[Extension].(map[string]any)["messages"] = snapshot.Number("1000000000000")
		}, "holds 5 of its 1000000000000 records"},
		{"a count past int", func(r map[string]any) {
			r["extra"].(map[string]any)[Extension].(map[string]any)["messages"] = snapshot.Number("1e300")
		}, "is not a count of records"},
		{"a count that is text", func(r map[string]any) {
			r["extra"].(map[string]any)[Extension].(map[string]any)["messages"] = "5"
		}, "is not a count of records"},
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

// A step's token counts are whole numbers from 0 to a billion: a
// negative or overflowing one was counted into trailers no reader
// takes, and the session vanished from every command.
func TestStepTokensBounded(t *testing.T) {
	for _, v := range []string{"-5", "9300000000000000000", "1e30", "12.5", `"12"`, "1000000001"} {
		data := strings.Replace(nested, `"prompt_tokens": 5`, `"prompt_tokens": `+v, 1)
		_, _, err := Import([]byte(data), snapshot.Limits{})
		if err == nil || !strings.Contains(err.Error(), "metrics.prompt_tokens: ") || !strings.Contains(err.Error(), "is not a count of tokens") {
			t.Errorf("prompt_tokens %s: %v", v, err)
		}
	}
	for _, v := range []string{"0", "1000000000", "null"} {
		if _, _, err := Import([]byte(strings.Replace(nested, `"prompt_tokens": 5`, `"prompt_tokens": `+v, 1)), snapshot.Limits{}); err != nil {
			t.Errorf("prompt_tokens %s: %v", v, err)
		}
	}
}
