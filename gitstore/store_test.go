package gitstore

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// git runs the real git binary in dir and returns its trimmed output.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a git repository with one commit and opens a store on it.
func newRepo(t testing.TB) (string, *Store) {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644))
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir, openStore(t, dir)
}

func openStore(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustParse(t testing.TB, js string) map[string]any {
	t.Helper()
	doc, err := snapshot.ParseDocument([]byte(js), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// conversation builds a document with n messages.
func conversation(n int) map[string]any {
	msgs := make([]any, n)
	for i := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs[i] = map[string]any{"id": fmt.Sprintf("m%d", i), "role": role, "content": fmt.Sprintf("message %d", i)}
	}
	return map[string]any{"messages": msgs, "config": map[string]any{"model": "m1"}}
}

func TestSaveReadRoundTripAndGitSeesIt(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	docs := []map[string]any{
		mustParse(t, `{"config":{"temperature":0.5},"messages":[]}`),
		mustParse(t, `{"config":{"temperature":0.5},"messages":[{"id":"a","role":"user","content":"hi"}],"n":123456789012345678901234567890}`),
		mustParse(t, `{"messages":[{"id":"a","role":"user","content":"hi"},{"id":"b","role":"assistant","content":"hello"}],"files":{"src/x.txt":{"content":"x\n"},"bin/run":{"content":"#!/bin/sh\n","mode":"100755"}},"events":[{"type":"start","ts_ms":1}]}`),
	}
	var ids []storage.ID
	for i, doc := range docs {
		e, err := s.Save(ctx, doc, storage.SaveOptions{Session: "s1", Label: fmt.Sprintf("step %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if e.Header.Seq != i+1 {
			t.Errorf("seq = %d, want %d", e.Header.Seq, i+1)
		}
		ids = append(ids, e.ID)
	}
	for i, id := range ids {
		got, _, err := s.Read(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !snapshot.Equal(got, docs[i]) {
			a, _ := snapshot.Marshal(got)
			b, _ := snapshot.Marshal(docs[i])
			t.Errorf("snapshot %d read back differs:\n got %s\nwant %s", i, a, b)
		}
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
	if got := git(t, dir, "rev-list", "--count", "snap/s1"); got != "3" {
		t.Errorf("git rev-list --count snap/s1 = %s, want 3", got)
	}
	if got := git(t, dir, "rev-parse", "snap/s1"); got != ids[2].String() {
		t.Errorf("git sees snap/s1 at %s, want %s", got, ids[2])
	}
	// Blobs hold the canonical bytes.
	msg := git(t, dir, "cat-file", "blob", "snap/s1:messages/0000/000001.json")
	want, _ := snapshot.MarshalIndent(docs[2]["messages"].([]any)[1])
	if msg+"\n" != string(want) {
		t.Errorf("blob = %q, want %q", msg, want)
	}
	if mode := git(t, dir, "ls-tree", "snap/s1", "files/bin/run"); !strings.HasPrefix(mode, "100755 ") {
		t.Errorf("executable file stored as %q", mode)
	}
	// The user's branch, index and work tree are untouched.
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree changed: %s", st)
	}
	if n := git(t, dir, "rev-list", "--count", "HEAD"); n != "1" {
		t.Errorf("HEAD moved: %s commits", n)
	}
}

func TestSaveAfterGitGCStillReadsAndWrites(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	for i := 1; i <= 5; i++ {
		if _, err := s.Save(ctx, conversation(i*60), storage.SaveOptions{Session: "gc"}); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "gc", "-q", "--prune=now")
	os.RemoveAll(filepath.Join(dir, ".git", "snap", "cache")) // force a rebuild from packs
	s2 := openStore(t, dir)
	e, err := s2.Save(ctx, conversation(301), storage.SaveOptions{Session: "gc"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Header.Seq != 6 {
		t.Errorf("seq after gc = %d, want 6", e.Header.Seq)
	}
	got, _, err := s2.Read(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !snapshot.Equal(got, conversation(301)) {
		t.Error("document read after gc differs")
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
	// Only the new message's chunk, the trees above it and the commit are
	// new loose objects: nothing already packed is written again.
	loose := git(t, dir, "count-objects")
	if !strings.HasPrefix(loose, "5 objects") {
		t.Errorf("after one appended message: %s, want 5 new objects (blob, chunk tree, messages tree, root tree, commit)", loose)
	}
}

func TestResolveRevisions(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	var ids []storage.ID
	for i := 1; i <= 4; i++ {
		e, err := s.Save(ctx, conversation(i), storage.SaveOptions{Session: "rev"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if _, err := s.SetCheckpoint(ctx, "two", ids[1], "", false); err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]storage.ID{
		"rev":                ids[3],
		"rev~1":              ids[2],
		"rev^":               ids[2],
		"rev~3":              ids[0],
		"rev^^":              ids[1],
		"snap/rev":           ids[3],
		"refs/snap/rev":      ids[3],
		"snap/rev/two":       ids[1],
		"snap/rev/two~1":     ids[0],
		ids[2].String():      ids[2],
		ids[0].String()[:10]: ids[0],
	} {
		got, err := s.Resolve(ctx, rev)
		if err != nil {
			t.Errorf("Resolve(%q): %v", rev, err)
			continue
		}
		if got != want {
			t.Errorf("Resolve(%q) = %s, want %s", rev, got, want)
		}
	}
	for _, bad := range []string{"nope", "rev~4", "-rf", "", "main", "rev:x", "snap/rev/none"} {
		_, err := s.Resolve(ctx, bad)
		var re *storage.RevisionError
		if !asRevisionError(err, &re) {
			t.Errorf("Resolve(%q) = %v, want a RevisionError", bad, err)
		}
	}
	// Junk after ~ or ^ resolved to some other snapshot.
	for _, bad := range []string{"rev~-1", "rev~1x", "rev^{}", "rev^{commit}", "rev~+1", "rev~1~x2"} {
		id, err := s.Resolve(ctx, bad)
		var re *storage.RevisionError
		if !asRevisionError(err, &re) || !strings.Contains(err.Error(), "is not understood") {
			t.Errorf("Resolve(%q) = %s, %v; want an error naming what is wrong", bad, id, err)
		}
	}
}

func asRevisionError(err error, re **storage.RevisionError) bool {
	if err == nil {
		return false
	}
	e, ok := err.(*storage.RevisionError)
	*re = e
	return ok
}

// must fails the test at once when setting it up fails.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSaveFreshensReusedObjects: a save that finds its objects already
// there (left unreachable by a dropped session) must freshen them as git
// does, or a git prune running beside, which spares only recent objects,
// deletes what the new snapshot needs.
func TestSaveFreshensReusedObjects(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	doc := conversation(30)
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "old"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Drop(ctx, "old", false)
	must(t, err)
	objects := filepath.Join(dir, ".git", "objects")
	past := time.Now().Add(-2 * time.Hour)
	must(t, filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chtimes(p, past, past)
		}
		return err
	}))
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "new"}); err != nil {
		t.Fatal(err)
	}
	// git prune judges reachability when it starts: one started before
	// the save moved the ref sees these objects unreachable, and spares
	// them only if they are recent.
	for _, id := range strings.Fields(git(t, dir, "rev-list", "--objects", "--no-object-names", "refs/snap/new")) {
		fi, err := os.Stat(filepath.Join(objects, id[:2], id[2:]))
		must(t, err)
		if fi.ModTime().Before(time.Now().Add(-time.Hour)) {
			t.Errorf("object %s reused but not freshened", id)
		}
	}
	git(t, dir, "fsck", "--strict", "--no-progress")
}

// TestSaveFreshensPacksOfKnownObjects: objects a save knows from the
// tip's tree and does not find loose are in a pack: the packs are
// freshened.
func TestSaveFreshensPacksOfKnownObjects(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	doc := conversation(30)
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "p"}); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "gc", "-q")
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) == 0 {
		t.Fatal("no pack")
	}
	past := time.Now().Add(-2 * time.Hour)
	for _, p := range packs {
		must(t, os.Chtimes(p, past, past))
	}
	doc["config"] = map[string]any{"model": "m2"}
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "p"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range packs {
		fi, err := os.Stat(p)
		must(t, err)
		if fi.ModTime().Before(time.Now().Add(-time.Hour)) {
			t.Errorf("%s not freshened", filepath.Base(p))
		}
	}
}
