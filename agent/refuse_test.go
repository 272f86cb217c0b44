package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// ownerOf names the agent whose transcript a file of testdata is, by its
// folder; "" for a file that is no transcript (notes, licenses, plugins,
// a subagent's file of Claude Code's layout, which comes with its
// parent).
func ownerOf(path string) string {
	rel, _ := filepath.Rel("../testdata", path)
	parts := strings.Split(filepath.ToSlash(rel), "/")
	base := filepath.Base(path)
	if !strings.HasSuffix(base, ".jsonl") && !strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".settings.json") {
		return ""
	}
	if parts[0] == "live" {
		parts = parts[1:]
	}
	switch parts[0] {
	case "codex-real":
		return "codex"
	case "copilot-1.0.34": // the release before usage records
		return "copilot"
	case "hostile", "script", "codex-config":
		return ""
	}
	return parts[0]
}

// TestOnlyTheRightAgentImportsEachTranscript imports every real
// transcript in testdata with every --from: only the agent that wrote it
// accepts it, and every other refuses it saying what it found.
func TestOnlyTheRightAgentImportsEachTranscript(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && ownerOf(path) != "" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("%d transcripts in testdata; the walk is broken", len(files))
	}
	owners := map[string]bool{}
	for _, path := range files {
		owner := ownerOf(path)
		owners[owner] = true
		for _, a := range Adapters(Env{Home: t.TempDir()}) {
			_, err := CheckTranscript(a, path, snapshot.Limits{})
			switch {
			case a.Name() == owner && err != nil:
				t.Errorf("--from %s refuses its own %s: %v", owner, path, err)
			case a.Name() != owner && err == nil:
				t.Errorf("--from %s accepts %s, which is %s's", a.Name(), path, owner)
			case a.Name() != owner && !strings.Contains(err.Error(), "not a "+a.Name()+" transcript"):
				t.Errorf("--from %s refuses %s without saying so: %v", a.Name(), path, err)
			}
		}
	}
	for _, name := range Names() {
		if !owners[name] {
			t.Errorf("testdata holds no transcript of %s", name)
		}
	}
}

// TestRefusalNamesTheAgentFound: a transcript given with the wrong --from
// is refused naming the agent whose it is.
func TestRefusalNamesTheAgentFound(t *testing.T) {
	qwen := "../testdata/live/qwen/3bdb31e7-9243-4b50-82d6-426c73cc46ca.jsonl"
	a, _ := Lookup("claude-code", Env{})
	_, err := CheckTranscript(a, qwen, snapshot.Limits{})
	if err == nil || !strings.Contains(err.Error(), "Qwen Code") || !strings.Contains(err.Error(), "--from qwen") {
		t.Errorf("a Qwen Code chat given as Claude Code's: %v", err)
	}
}
