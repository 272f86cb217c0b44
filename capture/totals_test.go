package capture

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// checkHistoryTotals checks every snapshot of a session: its commit
// carries totals, and they are what counting its document gives.
func checkHistoryTotals(t *testing.T, s *gitstore.Store, session string) int {
	t.Helper()
	ctx := context.Background()
	tip, err := s.SessionTip(session)
	if err != nil || tip.IsZero() {
		t.Fatalf("no session %s: %v", session, err)
	}
	n := 0
	err = s.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error {
		n++
		if !e.Header.Counted {
			t.Errorf("snapshot #%d (%s) carries no totals", e.Header.Seq, e.Header.Source)
			return nil
		}
		doc, _, err := s.Read(ctx, e.ID)
		if err != nil {
			return err
		}
		if got, want := utcTotals(e.Header.Totals), utcTotals(agent.CountTotals(doc, e.Header.Source)); !reflect.DeepEqual(got, want) {
			t.Errorf("snapshot #%d: the commit says\n%+v\nits document counts\n%+v", e.Header.Seq, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// utcTotals are totals with their times in UTC, as a commit keeps them.
func utcTotals(tt snapshot.Totals) snapshot.Totals {
	tt.First, tt.Last = tt.First.UTC(), tt.Last.UTC()
	return tt
}

// Every snapshot a hook writes carries its totals, and they are those of
// its document: every real JSONL transcript (Claude Code with its
// subagents, Codex, Gemini CLI's chat, Copilot CLI), grown as the agent
// writes it, lines cut in the middle too, with a hook call after each
// growth, at two cadences.
func TestEveryHookSnapshotCarriesItsTotals(t *testing.T) {
	ctx := context.Background()
	for _, rs := range realSessions {
		if filepath.Ext(rs.file) == ".json" {
			continue // a document, rewritten whole, not grown: TestOpenCodeNumbersAfterRewrites
		}
		for _, seed := range []uint64{1, 2} {
			t.Run(filepath.Base(rs.file), func(t *testing.T) {
				_, s := newStore(t)
				proj := t.TempDir()
				a, err := agent.Lookup(rs.agent, agent.Env{Home: proj})
				if err != nil {
					t.Fatal(err)
				}
				stem := strings.TrimSuffix(filepath.Base(rs.file), ".jsonl")
				target := filepath.Join(proj, filepath.Base(rs.file))
				var growers []*grower
				for i, f := range append([]string{rs.file}, rs.also...) {
					data, err := os.ReadFile(filepath.Join("..", "testdata", f))
					if err != nil {
						t.Fatal(err)
					}
					to := target
					if i > 0 {
						to = filepath.Join(proj, stem, "subagents", filepath.Base(f))
						if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
							t.Fatal(err)
						}
					}
					growers = append(growers, &grower{path: to, data: data})
				}
				in := Ingest{Store: s, Adapter: a}
				r := rand.New(rand.NewPCG(seed, uint64(len(rs.file))))
				p := agent.Payload{Agent: rs.agent, Event: "PostToolUse", Tool: "Edit", SessionID: "s", TranscriptPath: target}
				for step := 0; ; step++ {
					more := false
					for _, g := range growers {
						if r.IntN(3) > 0 || step > 40 {
							g.grow(t, r)
						}
						more = more || g.done < len(g.data)
					}
					if _, _, err := in.Run(ctx, p, storage.SaveOptions{}); err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
					if !more {
						break
					}
				}
				if n := checkHistoryTotals(t, s, "s"); n < 3 {
					t.Errorf("%d snapshots: the transcript did not grow in steps", n)
				}
			})
		}
	}
}
