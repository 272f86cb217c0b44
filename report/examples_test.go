package report

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/capture"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
)

var update = flag.Bool("update", false, "rewrite docs/examples from the sessions in testdata")

const (
	claudeExample = "4d5611e5-241a-462a-8d15-5122611a9569"
	codexExample  = "019e1625-789d-76c0-80ab-3724b5ddb799"
)

// recordClaudeExample records the long real Claude Code session as its
// hook would have: up to the compaction, where the "pre-compact"
// checkpoint is set, then the rest with the subagents' files. It works
// in a temporary directory and names the files relative to it, as the
// snapshot records them, so that the ids are the same on every run.
func recordClaudeExample(t *testing.T, s *gitstore.Store) {
	t.Helper()
	ctx := context.Background()
	src, err := filepath.Abs(filepath.Join("..", "testdata", "claude-code"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(src, claudeExample+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := 0
	for i, l := range lines {
		if strings.Contains(l, `"subtype":"compact_boundary"`) {
			cut = i
			break
		}
	}
	if cut == 0 {
		t.Fatal("the long session has no compaction")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	main := claudeExample + ".jsonl"
	if err := os.WriteFile(main, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	in := capture.Ingest{Store: s, Adapter: agent.ClaudeCode{}}
	e, _, err := in.Import(ctx, claudeExample, main)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetCheckpoint(ctx, agent.PreCompactCheckpoint, e.ID, "", false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(claudeExample, "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agent-a2898e3.jsonl", "agent-acompact-e1f845.jsonl"} {
		b, err := os.ReadFile(filepath.Join(src, claudeExample, "subagents", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := in.Import(ctx, claudeExample, main); err != nil {
		t.Fatal(err)
	}
}

// TestExamples checks that docs/examples holds the exports of the long
// real Claude Code session and a real Codex rollout as this code writes
// them; go test ./report -run Examples -update writes them again.
func TestExamples(t *testing.T) {
	s := newStore(t)
	examples, err := filepath.Abs(filepath.Join("..", "docs", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	importSession(t, s, "codex", "codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl", codexExample)
	recordClaudeExample(t, s)
	for file, session := range map[string]string{"claude-code-session": claudeExample, "codex-rollout": codexExample} {
		sess := loadSession(t, s, session, Options{})
		var md bytes.Buffer
		if err := WriteMarkdown(context.Background(), &md, sess); err != nil {
			t.Fatal(err)
		}
		for ext, want := range map[string][]byte{".md": md.Bytes(), ".html": renderHTML(t, sess, HTMLOptions{})} {
			path := filepath.Join(examples, file+ext)
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s is not what the code writes now (%v); run: go test ./report -run Examples -update", path, err)
			}
		}
	}
}
