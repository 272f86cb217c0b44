package gitsnap_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/storage"
)

// A program opens the repository it runs in as the command line does:
// the token in the message is stored redacted, and the header counts
// the conversation.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	_ = exec.Command("git", "init", "-q", dir).Run()

	repo, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer repo.Close()

	doc := map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "deploy with GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
		map[string]any{"role": "assistant", "content": "Deployed.", "usage": map[string]any{"input_tokens": 900, "output_tokens": 12}},
	}}
	entry, err := repo.Save(ctx, doc, storage.SaveOptions{Session: "fix-login", Turn: 1, Label: "Stop"})
	if err != nil {
		fmt.Println(err)
		return
	}
	back, _, _ := repo.Read(ctx, entry.ID)
	first := back["messages"].([]any)[0].(map[string]any)
	fmt.Println(first["content"])
	fmt.Println("redacted:", entry.Header.Redacted, "output tokens:", entry.Header.Totals.OutputTokens)
	// Output:
	// deploy with GITHUB_TOKEN=[REDACTED:github-token]
	// redacted: 1 output tokens: 12
}

// TestAPIDocExampleRedacts runs the Go example of docs/api.md as
// written: a store opened through it once wrote a ghp_ token into git as
// it was, while the command line redacted it.
func TestAPIDocExampleRedacts(t *testing.T) {
	apiDoc, err := os.ReadFile(filepath.Join("docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	const open = `repo, err := gitsnap.Open(ctx, ".", gitsnap.Options{})`
	const save = `entry, err := repo.Save(ctx, doc, storage.SaveOptions{Session: "fix-login", Turn: 1, Label: "Stop"})`
	for _, line := range []string{open, save} {
		if !strings.Contains(string(apiDoc), line) {
			t.Fatalf("docs/api.md's Go example no longer has\n\t%s\nkeep this test doing what it shows", line)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	t.Chdir(dir)
	ctx := context.Background()
	doc := map[string]any{"messages": []any{"export GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a"}}

	repo, err := gitsnap.Open(ctx, ".", gitsnap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	entry, err := repo.Save(ctx, doc, storage.SaveOptions{Session: "fix-login", Turn: 1, Label: "Stop"})
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "grep", "-q", "ghp_", entry.ID.String()).Run(); err == nil {
		t.Error("the token is stored in the snapshot's tree")
	}
	if !entry.Header.Counted {
		t.Error("the snapshot carries no totals")
	}
}

// TestOpenLayersTheTeamSettings: the committed .git-snap.yaml reaches a
// library user as it reaches the command line (here, a redaction rule
// of the team's own).
func TestOpenLayersTheTeamSettings(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(dir+"/.git-snap.yaml", []byte("redact:\n  rules:\n    house-key: 'HOUSE-[0-9]{6}'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	repo, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	e, err := repo.Save(ctx, map[string]any{"messages": []any{"key HOUSE-123456"}}, storage.SaveOptions{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := repo.Read(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := back["messages"].([]any)[0]; got != "key [REDACTED:house-key]" {
		t.Errorf("stored %q", got)
	}
}
