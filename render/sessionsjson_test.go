package render

import (
	"bytes"
	"slices"
	"testing"
)

// WriteSessionsJSON writes, a session at a time, what JSON writes of
// the whole list: none, one, and several sessions, with and without
// tokens, a cost and characters JSON escapes.
func TestWriteSessionsJSONIsJSONOfTheList(t *testing.T) {
	label, agent, at := `a "<b>" & c`, "claude-code", "2026-03-02T10:00:00.000Z"
	all := []SessionJSON{
		{Name: "one", Ref: "refs/snap/one", Snapshots: 3, First: &at, Last: &at, LastLabel: &label, Agent: &agent, Tip: "ab12",
			Tokens: &TokensJSON{Input: 1, CacheRead: 2, CacheWrite: 3, Output: 4, Total: 10},
			Cost:   &CostJSON{USD: 0.25, USDMicros: 250000, Estimate: true, PricesDate: "2026-01-01", UnknownModels: []string{"m"}}},
		{Name: "two", Ref: "refs/snap/two", Snapshots: 1, Tip: "cd34"},
		{Name: "three", Ref: "refs/snap/three", Snapshots: 2, Agent: &agent, Tip: "ef56"},
	}
	for n := range len(all) + 1 {
		var want, got bytes.Buffer
		if err := JSON(&want, NewSessionsJSON(all[:n])); err != nil {
			t.Fatal(err)
		}
		if err := WriteSessionsJSON(&got, slices.Values(all[:n])); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d sessions: WriteSessionsJSON wrote\n%s\nJSON writes\n%s", n, got.String(), want.String())
		}
	}
}
