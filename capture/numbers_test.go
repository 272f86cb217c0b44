package capture

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/storage"
)

// A subagent's transcript the agent rewrote (a new generation, read again
// from its start) is counted once: its newest generation is what the
// file holds, the one before is history.
func TestRewrittenSubagentCountsOnce(t *testing.T) {
	_, s := newStore(t)
	dir := t.TempDir()
	session := "4d5611e5-241a-462a-8d15-5122611a9569"
	real := filepath.Join("..", "testdata", "claude-code")
	mainData, _ := os.ReadFile(filepath.Join(real, session+".jsonl"))
	subData, _ := os.ReadFile(filepath.Join(real, session, "subagents", "agent-a2898e3.jsonl"))
	mainPath := filepath.Join(dir, session+".jsonl")
	subPath := filepath.Join(dir, session, "subagents", "agent-a2898e3.jsonl")
	write(t, mainPath, mainData)
	if err := os.MkdirAll(filepath.Dir(subPath), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, subPath, subData)
	in := Ingest{Store: s, Adapter: agent.ClaudeCode{}}
	ctx := context.Background()
	p := agent.Payload{Event: "SubagentStop", SessionID: session, TranscriptPath: mainPath, Subagent: subPath}
	if _, _, err := in.Run(ctx, p, storage.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	// Rewritten in place: the same records, the first one's text changed,
	// so that its bytes before the offset read are not those read before.
	first := bytes.IndexByte(subData, '\n')
	rewritten := append(bytes.Replace(subData[:first], []byte(`"type"`), []byte(`"type" `), 1), subData[first:]...)
	write(t, subPath, rewritten)
	e, added, err := in.Run(ctx, agent.Payload{Event: "Stop", SessionID: session, TranscriptPath: mainPath}, storage.SaveOptions{})
	if err != nil || !added {
		t.Fatalf("%v %v", added, err)
	}
	doc, _, _ := s.Read(ctx, e.ID)
	layout, _ := agent.LayoutFrom(doc)
	if len(layout.Files) != 3 {
		t.Fatalf("the rewrite was not read as a new generation: %+v", layout.Files)
	}
	records := append(readJSONL(t, mainPath), readJSONL(t, subPath)...)
	agreeEverywhere(t, s, e, countClaude(records))
}

// Trace shows a subagent's lines among its parent's, where their times put
// them, not after the parent's last line; each file's lines keep their
// order (a transcript's times are not always in order).
func TestTraceMergesSubagentLinesByTime(t *testing.T) {
	_, s := newStore(t)
	ctx := context.Background()
	e, _, err := Ingest{Store: s, Adapter: agent.ClaudeCode{}}.Import(ctx, "s", filepath.Join("..", "testdata", "claude-code", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := s.Read(ctx, e.ID)
	lines, _ := agent.Trace(doc, agent.ClaudeCode{})
	var prev time.Time
	for i, l := range lines {
		if l.At.IsZero() {
			continue
		}
		// The main transcript's own lines go back in time by seconds at
		// most; a subagent's put after its parent's would go back hours.
		if !prev.IsZero() && prev.Sub(l.At) > 10*time.Minute {
			t.Fatalf("line %d (%s %s) is at %s, after a line at %s", i, l.Kind, l.Detail, l.At, prev)
		}
		if l.At.After(prev) {
			prev = l.At
		}
	}
	// The subagent ran at 16:02–16:05; the session ended at 21:03.
	sub := -1
	for i, l := range lines {
		if l.Time >= "16:03" && l.Time <= "16:05:10.022" && l.Kind == "model" {
			sub = i
			break
		}
	}
	if sub < 0 || sub > len(lines)/2 {
		t.Errorf("the first model call while the subagent ran is line %d of %d", sub, len(lines))
	}
}

// A Codex rollout without token_count events names its model in
// turn_context: its calls are that model's, not "".
func TestCodexModelWithoutTokenCounts(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "codex-real", "plangate-sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(src)), "\n") {
		if !strings.Contains(line, `"type":"token_count"`) {
			kept = append(kept, line)
		}
	}
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	write(t, path, []byte(strings.Join(kept, "\n")+"\n"))
	_, s := newStore(t)
	ctx := context.Background()
	e, _, err := Ingest{Store: s, Adapter: agent.Codex{}}.Import(ctx, "s", path)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := s.Read(ctx, e.ID)
	n := agent.NumbersOf(doc, "codex")
	if _, ok := n.ByModel["gpt-5.3-codex"]; !ok || len(n.ByModel) != 1 || n.ModelCalls == 0 {
		t.Errorf("calls %d by model %v, want gpt-5.3-codex's", n.ModelCalls, n.ByModel)
	}
}
