package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// TestPruneSelect pins which snapshots each rule keeps, alone and
// together, on one chain: six snapshots an hour apart, labelled
// a b a c b a, the second named by a checkpoint.
func TestPruneSelect(t *testing.T) {
	start := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var chain []storage.Entry
	for i, label := range []string{"a", "b", "a", "c", "b", "a"} {
		h := snapshot.Header{Session: "s", Seq: i + 1, Label: label, Time: start.Add(time.Duration(i) * time.Hour)}
		chain = append(chain, storage.Entry{ID: storage.ID{byte(i + 1)}, Header: h})
	}
	marked := map[storage.ID]bool{chain[1].ID: true}
	now := start.Add(6 * time.Hour) // the newest is an hour old, the first six
	for _, tc := range []struct {
		name string
		o    PruneOptions
		kept string
	}{
		{"nothing said: the newest alone", PruneOptions{}, "[5]"},
		{"keep-last", PruneOptions{KeepLast: 2}, "[4 5]"},
		{"keep-last past the chain", PruneOptions{KeepLast: 10}, "[0 1 2 3 4 5]"},
		{"keep-last keep-first", PruneOptions{KeepLast: 2, KeepFirst: true}, "[0 4 5]"},
		{"keep-last keep-checkpoints", PruneOptions{KeepLast: 2, KeepCheckpoints: true}, "[1 4 5]"},
		{"keep-latest-per-label", PruneOptions{KeepLatestPerLabel: true}, "[3 4 5]"},
		{"keep-latest-per-label keep-first", PruneOptions{KeepLatestPerLabel: true, KeepFirst: true}, "[0 3 4 5]"},
		{"older-than", PruneOptions{OlderThan: 210 * time.Minute}, "[3 4 5]"},
		{"older-than on the boundary", PruneOptions{OlderThan: 3 * time.Hour}, "[4 5]"},
		{"older-than keep-first keep-checkpoints", PruneOptions{OlderThan: 150 * time.Minute, KeepFirst: true, KeepCheckpoints: true}, "[0 1 4 5]"},
		{"keep-last older-than: either keeps", PruneOptions{KeepLast: 1, OlderThan: 150 * time.Minute}, "[4 5]"},
		{"every rule", PruneOptions{KeepLast: 1, KeepFirst: true, KeepCheckpoints: true, KeepLatestPerLabel: true, OlderThan: time.Minute}, "[0 1 3 4 5]"},
		{"dry run selects the same", PruneOptions{KeepLast: 2, DryRun: true}, "[4 5]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep := tc.o.Select(chain, marked, now)
			kept := []int{}
			for i, k := range keep {
				if k {
					kept = append(kept, i)
				}
			}
			if got := fmt.Sprint(kept); got != tc.kept {
				t.Errorf("kept %s, want %s", got, tc.kept)
			}
		})
	}
	if keep := (PruneOptions{KeepLast: 3, KeepFirst: true}).Select(nil, nil, now); len(keep) != 0 {
		t.Errorf("an empty chain keeps %v", keep)
	}
}

// TestRetentionPolicy: a session is pruned once it grows a tenth past
// the maximum, back to the maximum with its checkpoints and, when asked,
// its first snapshot.
func TestRetentionPolicy(t *testing.T) {
	for _, tc := range []struct {
		p   RetentionPolicy
		seq int
		due bool
	}{
		{RetentionPolicy{}, 1000, false},
		{RetentionPolicy{MaxPerSession: 10}, 10, false},
		{RetentionPolicy{MaxPerSession: 10}, 11, false},
		{RetentionPolicy{MaxPerSession: 10}, 12, true},
		{RetentionPolicy{MaxPerSession: 5}, 6, true}, // a tenth of 5 is none
		{RetentionPolicy{MaxPerSession: 100}, 110, false},
		{RetentionPolicy{MaxPerSession: 100}, 111, true},
	} {
		if got := tc.p.Due(tc.seq); got != tc.due {
			t.Errorf("%+v at %d: due %v, want %v", tc.p, tc.seq, got, tc.due)
		}
	}

	ctx := context.Background()
	_, s := newRepo(t)
	p := RetentionPolicy{MaxPerSession: 4, KeepFirst: true}
	saveN(t, s, "r", 1, 4)
	chain, _ := s.firstParentChain(ctx, mustTip(t, s, "r"))
	if _, err := s.SetCheckpoint(ctx, "second", chain[1].ID, "", false); err != nil {
		t.Fatal(err)
	}
	if res, err := s.ApplyRetention(ctx, "r", 4, p); err != nil || len(res.Removed) != 0 {
		t.Fatalf("not due: removed %d, %v", len(res.Removed), err)
	}
	saveN(t, s, "r", 5, 8)
	res, err := s.ApplyRetention(ctx, "r", 8, p)
	if err != nil {
		t.Fatal(err)
	}
	if kept := messageCounts(res.Kept); kept != "[1 2 5 6 7 8]" {
		t.Errorf("kept %v, want the first, the checkpoint's and the newest 4", kept)
	}
	if _, err := s.ApplyRetention(ctx, "nosuch", 8, p); err == nil {
		t.Error("a due retention of a missing session did not fail")
	}
}

// messageCounts names snapshots saved by saveN by their number of
// messages, which is the step that saved them.
func messageCounts(entries []storage.Entry) string {
	var n []int
	for _, e := range entries {
		n = append(n, e.Header.Messages)
	}
	return fmt.Sprint(n)
}

// checkCheckpointsSurviveGC runs git gc --prune=now and checks that the
// repository is valid and that each named checkpoint still resolves to
// a snapshot of the session that reads back.
func checkCheckpointsSurviveGC(t *testing.T, dir, session string, names []string) {
	t.Helper()
	git(t, dir, "gc", "-q", "--prune=now")
	git(t, dir, "fsck", "--strict", "--no-progress")
	s := openStore(t, dir)
	for _, name := range names {
		if _, _, err := s.ReadRevision(context.Background(), "snap/"+session+"/"+name); err != nil {
			t.Errorf("checkpoint %s after git gc: %v", name, err)
		}
	}
}

// TestPruneKilledBeforeTagsMove: a prune killed after the session's ref
// moved and before the checkpoints moved leaves them on the old
// snapshots; the next prune must move them, not drop them, and git gc
// must then keep every checkpoint's snapshot.
func TestPruneKilledBeforeTagsMove(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "k", 1, 12)
	chain, _ := s.firstParentChain(ctx, mustTip(t, s, "k"))
	names := []string{"a", "b", "c"}
	for i, n := range names {
		if _, err := s.SetCheckpoint(ctx, n, chain[2+3*i].ID, "", false); err != nil {
			t.Fatal(err)
		}
	}
	o := PruneOptions{KeepLast: 4, KeepCheckpoints: true}
	s.killAt = "ref moved"
	if _, err := s.Prune(ctx, "k", o); !errors.Is(err, errKilled) {
		t.Fatalf("the prune was not stopped: %v", err)
	}
	s.killAt = ""
	saveN(t, s, "k", 13, 20)
	res, err := s.Prune(ctx, "k", o)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageCounts(res.Kept); got != "[3 6 9 17 18 19 20]" {
		t.Errorf("kept %s, want the checkpoints' and the newest 4", got)
	}
	checkCheckpointsSurviveGC(t, dir, "k", names)
}

// TestConcurrentRetentionKeepsCheckpoints: six writers saving into one
// session, each applying retention after its save as the hook does,
// with checkpoints set along the way; no checkpoint may be lost.
func TestConcurrentRetentionKeepsCheckpoints(t *testing.T) {
	ctx := context.Background()
	dir, s0 := newRepo(t)
	saveN(t, s0, "c", 1, 1)
	p := RetentionPolicy{MaxPerSession: 10}
	var mu sync.Mutex
	var names []string
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := openStore(t, dir)
			for i := range 25 {
				e, err := s.Save(ctx, conversation(w*100+i), storage.SaveOptions{Session: "c"})
				if err != nil {
					errs <- err
					return
				}
				if i%8 == 3 {
					name := fmt.Sprintf("w%d-%d", w, i)
					if _, err := s.SetCheckpoint(ctx, name, e.ID, "", false); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					names = append(names, name)
					mu.Unlock()
				}
				if _, err := s.ApplyRetention(ctx, "c", e.Header.Seq, p); err != nil && !strings.Contains(err.Error(), "changed during the prune") {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkCheckpointsSurviveGC(t, dir, "c", names)
}

// TestGCRemovesStaleTempFiles: saves and imports killed mid-write leave
// tmp_obj_* and tmp_pack_* files; git snap gc removes those older than
// an hour, as git gc does, and leaves younger ones to their writers.
func TestGCRemovesStaleTempFiles(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "g", 1, 1)
	objects := filepath.Join(dir, ".git", "objects")
	old := time.Now().Add(-2 * time.Hour)
	var stale, fresh []string
	for _, p := range []string{"tmp_obj_1", "ab/tmp_obj_2", "pack/tmp_pack_3", "pack/tmp_idx_4"} {
		path := filepath.Join(objects, filepath.FromSlash(p))
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte("x"), 0o644))
		must(t, os.Chtimes(path, old, old))
		stale = append(stale, path)
		young := path + "-young"
		must(t, os.WriteFile(young, []byte("x"), 0o644))
		fresh = append(fresh, young)
	}
	must(t, s.GC(ctx, GCOptions{}))
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left", p)
		}
	}
	for _, p := range fresh {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
		must(t, os.Remove(p))
	}
	git(t, dir, "fsck", "--strict", "--no-progress")
}
