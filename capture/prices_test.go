package capture

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/prices"
)

// TestEveryModelInTestdataHasAPrice imports every transcript of testdata,
// real and written by hand, each agent's, and checks that the built-in
// prices price every model its calls name, as the agent writes it
// (Copilot CLI's claude-sonnet-4.5 and its runs' gpt-4.1, dated names).
func TestEveryModelInTestdataHasAPrice(t *testing.T) {
	type transcript struct{ agent, file string }
	files := []transcript{
		{"copilot", "copilot/6f1d2c3b-9a7e-4c1d-8b2f-0e5a4d3c2b1a/events.jsonl"},
		{"cursor", "cursor/3c0f5a9e-7b21-4d8e-9f61-2a4b6c8d0e1f.jsonl"},
		{"opencode", "opencode/ses_5a1c0e7f3ffeQ2mB7kD9xVw4Lp.json"},
		{"codex", "codex/rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl"},
	}
	for _, rs := range realSessions {
		files = append(files, transcript{rs.agent, rs.file})
	}
	table := prices.Default()
	models := 0
	for _, f := range files {
		t.Run(filepath.Base(f.file), func(t *testing.T) {
			_, s := newStore(t)
			a, err := agent.Lookup(f.agent, agent.Env{})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			e, _, err := Ingest{Store: s, Adapter: a}.Import(ctx, "s", filepath.Join("..", "testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			doc, _, err := s.Read(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			n := agent.NumbersOf(doc, f.agent)
			for model, u := range n.ByModel {
				if model == "" || u.Total() == 0 {
					continue // a call that names no model (Cursor records none)
				}
				models++
				if m, ok := table.Lookup(model); !ok {
					t.Errorf("%s: no price for %s (candidates %q)", f.file, model, prices.Candidates(model))
				} else {
					t.Logf("%s: priced as %s (%s)", model, m.Key, m.From)
				}
			}
		})
	}
	if models == 0 {
		t.Fatal("no model named in testdata")
	}
}
