package gitstore

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// redactingStore makes a repository and opens a store that redacts.
func redactingStore(t *testing.T) (string, *Store) {
	t.Helper()
	dir, _ := newRepo(t)
	r, err := redact.New(redact.Config{})
	must(t, err)
	s, err := Open(context.Background(), dir, Options{Counter: session.Counter{}, View: session.View, Redactor: r})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return dir, s
}

// The label and message go into the commit message and a checkpoint's
// message into its tag: none of them may carry a secret.
func TestHeaderTextIsRedactedAndCounted(t *testing.T) {
	ctx := context.Background()
	dir, s := redactingStore(t)
	const tok = "ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2"
	saved, err := s.Save(ctx, conversation(1), storage.SaveOptions{Session: "s", Label: "label " + tok, Message: "deploy with AKIAIOSFODNN7EXAMPLE"})
	must(t, err)
	if saved.Header.Redacted != 2 {
		t.Errorf("Redacted = %d, want 2", saved.Header.Redacted)
	}
	appended, _, err := s.Append(ctx, storage.SaveOptions{Session: "s", Label: "append " + tok}, func(map[string]any) (storage.Delta, error) {
		return storage.Delta{Messages: []any{map[string]any{"content": "plain"}}}, nil
	})
	must(t, err)
	if appended.Header.Redacted != 1 {
		t.Errorf("Append: Redacted = %d, want 1", appended.Header.Redacted)
	}
	_, err = s.SetCheckpoint(ctx, "cp", saved.ID, "release "+tok, false)
	must(t, err)
	all := git(t, dir, "log", "--format=%B", "refs/snap/s") + git(t, dir, "cat-file", "-p", "refs/snap-tags/s/cp")
	if strings.Contains(all, "ghp_") || strings.Contains(all, "AKIA") {
		t.Errorf("secret in commit or tag messages:\n%s", all)
	}
	if !strings.Contains(all, redact.Placeholder("github-token")) || !strings.Contains(all, "Snap-Redacted: 2") {
		t.Errorf("no placeholder or count:\n%s", all)
	}
}

// A captured file with one byte that is not UTF-8 is still text: its
// secrets go, its other bytes stay.
func TestAppendRedactsMostlyTextFiles(t *testing.T) {
	ctx := context.Background()
	dir, s := redactingStore(t)
	content := []byte("GH_TOKEN=gho_16C7e42F292c6912E7710c838347Ae178B4a\n\xff\x00\n")
	e, _, err := s.Append(ctx, storage.SaveOptions{Session: "s"}, func(map[string]any) (storage.Delta, error) {
		return storage.Delta{Messages: []any{"m"}, Files: []snapshot.File{{Path: ".env", Content: content, Mode: snapshot.ModeRegular}}}, nil
	})
	must(t, err)
	got := git(t, dir, "cat-file", "-p", e.ID.String()+":files/.env")
	if strings.Contains(got, "gho_") || e.Header.Redacted != 1 {
		t.Errorf("Redacted %d, file %q", e.Header.Redacted, got)
	}
}

// scan audits what was saved without redaction as saves would redact
// it: a text file with a NUL in it too.
func TestScanFindsSecretsInMostlyTextFiles(t *testing.T) {
	ctx := context.Background()
	dir, _ := newRepo(t)
	off, err := redact.New(redact.Config{Disabled: true})
	must(t, err)
	s, err := Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View, Redactor: off}) // stored as it is
	must(t, err)
	defer s.Close()
	content := []byte("GH_TOKEN=gho_16C7e42F292c6912E7710c838347Ae178B4a\n\x00\n")
	e, _, err := s.Append(ctx, storage.SaveOptions{Session: "s"}, func(map[string]any) (storage.Delta, error) {
		return storage.Delta{Messages: []any{"m"}, Files: []snapshot.File{{Path: ".env", Content: content, Mode: snapshot.ModeRegular}}}, nil
	})
	must(t, err)
	r, err := redact.New(redact.Config{})
	must(t, err)
	var found []ScanFinding
	must(t, s.Scan(ctx, []storage.ID{e.ID}, r, func(f ScanFinding) error { found = append(found, f); return nil }))
	if len(found) != 1 || found[0].Path != `$.files[".env"]` {
		t.Errorf("found %+v", found)
	}
}

// A full save of a session's document again, grown by one message,
// reuses what the tip holds unredacted and still redacts every message
// with a secret, old or new: the tree equals the one a save into a new
// session makes, and git finds no secret in it.
func TestFullSaveRedactsWhatTheTipDoesNotHold(t *testing.T) {
	ctx := context.Background()
	dir, s := redactingStore(t)
	const tok = "ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2"
	doc := conversation(20)
	msgs := doc[snapshot.MemberMessages].([]any)
	msgs[3] = map[string]any{"role": "user", "content": "token " + tok}
	_, err := s.Save(ctx, doc, storage.SaveOptions{Session: "s"})
	must(t, err)
	grown := map[string]any{snapshot.MemberMessages: append(slices.Clone(msgs), map[string]any{"role": "user", "content": "new " + tok})}
	again, err := s.Save(ctx, grown, storage.SaveOptions{Session: "s"})
	must(t, err)
	fresh, err := s.Save(ctx, grown, storage.SaveOptions{Session: "fresh"})
	must(t, err)
	if again.Tree != fresh.Tree {
		t.Errorf("the re-save's tree %s differs from a fresh save's %s", again.Tree, fresh.Tree)
	}
	if again.Header.Redacted != 2 || fresh.Header.Redacted != 2 {
		t.Errorf("Redacted = %d on the re-save and %d fresh, want 2 each", again.Header.Redacted, fresh.Header.Redacted)
	}
	if out, err := exec.Command("git", "-C", dir, "grep", "ghp_", again.ID.String()).CombinedOutput(); err == nil {
		t.Errorf("secret stored:\n%s", out)
	}
	got, _, err := s.Read(ctx, again.ID)
	must(t, err)
	stored := got[snapshot.MemberMessages].([]any)
	for _, i := range []int{3, 20} {
		if c := stored[i].(map[string]any)["content"].(string); !strings.Contains(c, redact.Placeholder("github-token")) {
			t.Errorf("message %d stored as %q", i, c)
		}
	}
	if !snapshot.Equal(stored[5], msgs[5]) {
		t.Errorf("an unchanged message changed: %v", stored[5])
	}
}

// TestZeroOptionsRedact: a store opened with no options stored secrets
// as they were, while the command line redacted them. Zero options are
// the built-in rules now.
func TestZeroOptionsRedact(t *testing.T) {
	dir, s := newRepo(t) // Options{Counter: session.Counter{}, View: session.View}
	doc := map[string]any{"messages": []any{"export GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a"}}
	e, err := s.Save(context.Background(), doc, storage.SaveOptions{Session: "s"})
	must(t, err)
	grep := exec.Command("git", "grep", "-q", "ghp_", e.ID.String())
	grep.Dir = dir
	if err := grep.Run(); err == nil {
		t.Error("the secret is stored in the snapshot's tree")
	}
	if e.Header.Redacted != 1 {
		t.Errorf("Redacted = %d, want 1", e.Header.Redacted)
	}
}
