package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// git snap gc packs every snapshot and checkpoint into one pack and
// removes loose copies and packs it makes redundant, but never an object
// only git's reflog, index or other refs hold; git fsck stays clean, and
// a plain git gc afterwards makes the store no larger.
func TestGCPacksSnapshotsAndLosesNothing(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	// What only git holds: a staged blob, a commit only the reflog has.
	must(t, os.WriteFile(filepath.Join(dir, "staged.txt"), []byte("staged, never committed\n"), 0o644))
	git(t, dir, "add", "staged.txt")
	staged := git(t, dir, "rev-parse", ":staged.txt")
	git(t, dir, "commit", "-q", "-m", "soon only in the reflog")
	reflogOnly := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "reset", "-q", "--soft", "HEAD~1")

	saveN(t, s, "a", 1, 20)
	tip, _ := s.SessionTip("a")
	if _, err := s.SetCheckpoint(ctx, "green", tip, "tests pass", false); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "gc", "-q") // an older pack that holds snapshots and code
	saveN(t, s, "a", 21, 40)
	saveN(t, s, "b", 1, 5)
	var ids []storage.ID
	for _, sess := range []string{"a", "b"} {
		tip, _ := s.SessionTip(sess)
		must(t, s.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error { ids = append(ids, e.ID); return nil }))
	}

	must(t, s.GC(ctx, GCOptions{}))

	git(t, dir, "fsck", "--strict", "--no-progress", "--no-dangling")
	for _, obj := range []string{staged, reflogOnly, "HEAD", "refs/snap-tags/a/green"} {
		git(t, dir, "cat-file", "-e", obj)
	}
	for _, id := range ids {
		if _, _, err := s.Read(ctx, id); err != nil {
			t.Fatalf("snapshot %s after gc: %v", id, err)
		}
	}
	if n := len(ids); n != 45 {
		t.Fatalf("%d snapshots", n)
	}
	// No loose object is left (the staged blob was packed by git gc).
	if out := git(t, dir, "count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
		t.Errorf("loose objects after gc:\n%s", out)
	}
	before := packBytes(t, dir)
	git(t, dir, "gc", "-q")
	git(t, dir, "fsck", "--strict", "--no-progress", "--no-dangling")
	if after := packBytes(t, dir); after > before {
		t.Errorf("git gc after git snap gc grew the packs from %d to %d bytes", before, after)
	}
	// And a second run keeps one pack of snapshots, not two.
	must(t, s.GC(ctx, GCOptions{Window: 10, Depth: 10}))
	git(t, dir, "fsck", "--strict", "--no-progress", "--no-dangling")
	for _, id := range ids {
		if _, _, err := openStore(t, dir).Read(ctx, id); err != nil {
			t.Fatalf("snapshot %s after a second gc: %v", id, err)
		}
	}
}

func packBytes(t *testing.T, dir string) int {
	t.Helper()
	for _, line := range strings.Split(git(t, dir, "count-objects", "-v"), "\n") {
		if v, ok := strings.CutPrefix(line, "size-pack: "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no size-pack")
	return 0
}

// In a store that holds snapshots only, each gc leaves one pack: the
// one before is wholly in the new one, so it goes.
func TestGCReplacesItsOwnPack(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s.git")
	paths, err := InitBare(dir)
	must(t, err)
	s, err := OpenPaths(ctx, paths, Options{Counter: session.Counter{}, View: session.View})
	must(t, err)
	defer s.Close()
	for round := 1; round <= 3; round++ {
		saveN(t, s, "a", 10*round-9, 10*round)
		must(t, s.GC(ctx, GCOptions{}))
		packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
		if len(packs) != 1 {
			t.Fatalf("round %d: packs %v", round, packs)
		}
		git(t, dir, "fsck", "--strict", "--no-progress", "--no-dangling")
	}
	tip, _ := s.SessionTip("a")
	n := 0
	must(t, s.Walk(ctx, []storage.ID{tip}, func(e storage.Entry) error {
		_, _, err := s.Read(ctx, e.ID)
		n++
		return err
	}))
	if n != 30 {
		t.Errorf("%d snapshots", n)
	}
}

// git gc and git gc --aggressive leave the pack git snap gc made as it
// is, so that the snapshots stay packed with its wide window; the next
// git snap gc lets that pack go once its own holds all of it; a keep
// someone else made is never removed.
func TestGitGCKeepsTheSnapshotsPack(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	git(t, dir, "gc", "-q")
	code, _ := filepath.Glob(filepath.Join(packDir, "pack-*.pack"))
	if len(code) != 1 {
		t.Fatalf("code packs %v", code)
	}
	foreign := strings.TrimSuffix(code[0], ".pack") + ".keep"
	must(t, os.WriteFile(foreign, []byte("kept by hand\n"), 0o644))
	ours := func() []string {
		t.Helper()
		var out []string
		keeps, _ := filepath.Glob(filepath.Join(packDir, "pack-*.keep"))
		for _, k := range keeps {
			if b, _ := os.ReadFile(k); string(b) == keepMark {
				out = append(out, strings.TrimSuffix(k, ".keep")+".pack")
			}
		}
		return out
	}
	saveN(t, s, "a", 1, 10)
	must(t, s.GC(ctx, GCOptions{}))
	first := ours()
	if len(first) != 1 {
		t.Fatalf("kept packs %v", first)
	}
	before, err := os.ReadFile(first[0])
	must(t, err)
	for _, args := range [][]string{{"gc", "-q"}, {"gc", "-q", "--aggressive"}, {"repack", "-a", "-d", "-f", "-q"}} {
		git(t, dir, args...)
		after, err := os.ReadFile(first[0])
		if err != nil || string(after) != string(before) {
			t.Fatalf("git %v changed the snapshots' pack: %v", args, err)
		}
	}
	saveN(t, s, "a", 11, 20)
	must(t, s.GC(ctx, GCOptions{}))
	second := ours()
	if len(second) != 1 || second[0] == first[0] {
		t.Fatalf("kept packs %v after %v", second, first)
	}
	if _, err := os.Stat(first[0]); err == nil {
		t.Errorf("the pack before, wholly in the new one, was left")
	}
	if b, err := os.ReadFile(foreign); err != nil || string(b) != "kept by hand\n" {
		t.Errorf("a keep made by hand was touched: %v", err)
	}
	git(t, dir, "fsck", "--strict", "--no-progress", "--no-dangling")
	tip, _ := s.SessionTip("a")
	if _, _, err := openStore(t, dir).Read(ctx, tip); err != nil {
		t.Fatal(err)
	}
}
