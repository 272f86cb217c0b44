package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// batchDelta is the i-th step of session n: a few messages.
func batchDelta(n, i int) storage.Delta {
	d := storage.Delta{Others: map[string]any{"agent": "test", "step": snapshot.Number(fmt.Sprint(i))}}
	for j := range 3 {
		d.Messages = append(d.Messages, map[string]any{"role": "user", "content": fmt.Sprintf("session %d step %d message %d", n, i, j)})
	}
	return d
}

// fixedNow makes snapshots' times, and so their ids, the same in two
// repositories.
func fixedNow() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// TestBatchWritesWhatAppendsWrite appends to sessions from several
// goroutines through a batch, and checks that nothing is visible before
// Commit (no ref, no loose object), and after it the very commits the
// same appends make one by one, in one pack that git finds whole.
func TestBatchWritesWhatAppendsWrite(t *testing.T) {
	ctx := context.Background()
	const sessions, steps = 6, 3
	oneByOne, _ := newRepo(t)
	plain, err := Open(ctx, oneByOne, Options{Counter: session.Counter{}, View: session.View, Now: fixedNow})
	must(t, err)
	defer plain.Close()
	want := map[string]storage.ID{}
	for n := range sessions {
		for i := range steps {
			e, _, err := plain.Append(ctx, storage.SaveOptions{Session: fmt.Sprintf("s%d", n)}, func(map[string]any) (storage.Delta, error) { return batchDelta(n, i), nil })
			must(t, err)
			want[plain.SessionRef(fmt.Sprintf("s%d", n))] = e.ID
		}
	}

	dir, _ := newRepo(t)
	s, err := Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View, Now: fixedNow})
	must(t, err)
	defer s.Close()
	loose := git(t, dir, "count-objects")
	b, err := s.NewBatch(ctx, BatchOptions{})
	must(t, err)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			bs, err := b.Open(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer bs.Close()
			for n := g; n < sessions; n += 2 {
				for i := range steps {
					if _, _, err := bs.Append(ctx, storage.SaveOptions{Session: fmt.Sprintf("s%d", n)}, func(map[string]any) (storage.Delta, error) { return batchDelta(n, i), nil }); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if refs := git(t, dir, "for-each-ref", "refs/snap/"); refs != "" {
		t.Fatalf("refs moved before the commit:\n%s", refs)
	}
	if now := git(t, dir, "count-objects"); now != loose {
		t.Errorf("loose objects written: %s, before %s", now, loose)
	}
	moved, lost, err := b.Commit(ctx)
	must(t, err)
	if len(moved) != sessions || len(lost) != 0 {
		t.Errorf("moved %v, lost %v", moved, lost)
	}
	for ref, id := range want {
		if got := git(t, dir, "rev-parse", ref); got != id.String() {
			t.Errorf("%s is %s, one by one %s", ref, got, id)
		}
	}
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack"))
	if len(packs) != 1 {
		t.Errorf("packs: %v, want one", packs)
	}
	if now := git(t, dir, "count-objects"); now != loose {
		t.Errorf("loose objects written: %s, before %s", now, loose)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
	if log := git(t, dir, "reflog", "show", "--format=%gs", "refs/snap/s0"); log != "snapshot #3: cli" {
		t.Errorf("reflog of a batch's ref: %q", log)
	}
	if _, _, err := b.Commit(ctx); err != nil {
		t.Errorf("an empty commit: %v", err)
	}
}

// TestBatchLeavesWhatOthersMoved checks that a session another writer
// moved while a batch held it keeps that writer's snapshot, and that a
// session forgotten moves nothing.
func TestBatchLeavesWhatOthersMoved(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	b, err := s.NewBatch(ctx, BatchOptions{})
	must(t, err)
	bs, err := b.Open(ctx)
	must(t, err)
	defer bs.Close()
	for n := range 3 {
		_, _, err := bs.Append(ctx, storage.SaveOptions{Session: fmt.Sprintf("s%d", n)}, func(map[string]any) (storage.Delta, error) { return batchDelta(n, 0), nil })
		must(t, err)
	}
	if tip, _ := bs.SessionTip("s1"); tip.IsZero() {
		t.Fatal("the batch's store does not see what it wrote")
	}
	if tip, _ := s.SessionTip("s1"); !tip.IsZero() {
		t.Fatal("the repository's store sees what a batch wrote before its commit")
	}
	other, err := s.Save(ctx, conversation(2), storage.SaveOptions{Session: "s1"})
	must(t, err)
	b.Forget("s2")
	moved, lost, err := b.Commit(ctx)
	must(t, err)
	if strings.Join(moved, " ") != "refs/snap/s0" || strings.Join(lost, " ") != "refs/snap/s1" {
		t.Errorf("moved %v, lost %v", moved, lost)
	}
	if tip, _ := s.SessionTip("s1"); tip != other.ID {
		t.Errorf("s1 is at %s, not the other writer's %s", tip, other.ID)
	}
	if tip, _ := s.SessionTip("s2"); !tip.IsZero() {
		t.Errorf("a forgotten session moved to %s", tip)
	}
	git(t, dir, "fsck", "--strict")
}

// TestBatchKilledLeavesNothing checks that a batch never committed (its
// process killed) leaves the refs as they were, and that its temporary
// pack is removed by the next batch once its process is gone.
func TestBatchKilledLeavesNothing(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	b, err := s.NewBatch(ctx, BatchOptions{})
	must(t, err)
	bs, err := b.Open(ctx)
	must(t, err)
	_, _, err = bs.Append(ctx, storage.SaveOptions{Session: "s"}, func(map[string]any) (storage.Delta, error) { return batchDelta(0, 0), nil })
	must(t, err)
	bs.Close()
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	temps, _ := filepath.Glob(filepath.Join(packDir, batchTempPrefix+"*"))
	if len(temps) != 1 {
		t.Fatalf("temporary packs: %v", temps)
	}
	// As if the process that wrote it were gone: the name of a pid that
	// runs no process.
	dead := strings.Replace(temps[0], fmt.Sprintf("_%d_", os.Getpid()), "_999999999_", 1)
	must(t, os.Rename(temps[0], dead))
	git(t, dir, "fsck", "--strict")
	if refs := git(t, dir, "for-each-ref", "refs/snap/"); refs != "" {
		t.Fatalf("refs of an uncommitted batch: %s", refs)
	}
	if _, err := s.NewBatch(ctx, BatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(packDir, batchTempPrefix+"*")); len(left) != 0 {
		t.Errorf("a dead batch's pack left: %v", left)
	}
}
