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

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// reflog is git's own reading of a ref's log: "id message" per entry,
// newest first.
func reflog(t *testing.T, dir, ref string) []string {
	t.Helper()
	out := git(t, dir, "reflog", "show", "--format=%H %gs", ref)
	return strings.Split(strings.TrimSpace(out), "\n")
}

// TestReflogAsGitReadsIt: every snapshot and checkpoint is in a reflog
// git reads, and git fsck finds nothing wrong with it.
func TestReflogAsGitReadsIt(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "x", 1, 3)
	tip, _ := s.SessionTip("x")
	cp, err := s.SetCheckpoint(ctx, "green", tip, "", false)
	if err != nil {
		t.Fatal(err)
	}
	got := reflog(t, dir, "refs/snap/x")
	var want []string
	for i := 3; i >= 1; i-- {
		id, err := s.Resolve(ctx, fmt.Sprintf("x~%d", 3-i))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%s snapshot #%d: step %d", id, i, i))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("git reflog show:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// git walks only commits in a reflog; the tag's entry is read by name
	if got := strings.TrimSpace(git(t, dir, "rev-parse", "refs/snap-tags/x/green@{0}")); got != cp.Tag.String() {
		t.Errorf("checkpoint's reflog names %s, want the tag %s", got, cp.Tag)
	}
	git(t, dir, "fsck", "--strict", "--no-progress")
}

// TestReflogUnderConcurrentSaves: processes saving to one session at
// once leave one entry per snapshot, each starting where the one before
// ended.
func TestReflogUnderConcurrentSaves(t *testing.T) {
	dir, _ := newRepo(t)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), dir, Options{Counter: session.Counter{}, View: session.View})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			for i := 0; i < 5; i++ {
				if _, err := s.Save(context.Background(), conversation(w*5+i+1), storage.SaveOptions{Session: "busy"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(filepath.Join(dir, ".git", "logs", "refs", "snap", "busy"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d reflog entries for 20 snapshots", len(lines))
	}
	prev := strings.Repeat("0", 40)
	for i, l := range lines {
		f := strings.Fields(l)
		if f[0] != prev {
			t.Fatalf("entry %d starts at %s, the one before ended at %s", i, f[0], prev)
		}
		prev = f[1]
	}
	if tip := strings.TrimSpace(git(t, dir, "rev-parse", "refs/snap/busy")); tip != prev {
		t.Errorf("the log ends at %s, the ref is at %s", prev, tip)
	}
}

// TestDropUndrop: a dry run removes nothing; a drop survives git gc and
// comes back with its checkpoints; a session of the same name made since
// is not overwritten, nor does an older drop's checkpoint come back with
// a newer session; an expired reflog says so.
func TestDropUndrop(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "x", 1, 2)
	tip, _ := s.SessionTip("x")
	if _, err := s.SetCheckpoint(ctx, "green", tip, "", false); err != nil {
		t.Fatal(err)
	}
	refsBefore := git(t, dir, "for-each-ref")
	d, err := s.Drop(ctx, "x", true)
	if err != nil || d.Tip != tip || len(d.Checkpoints) != 1 {
		t.Fatalf("dry run: %+v %v", d, err)
	}
	if git(t, dir, "for-each-ref") != refsBefore {
		t.Fatal("a dry run changed refs")
	}
	if d, err = s.Drop(ctx, "x", false); err != nil || d.Tip != tip {
		t.Fatalf("drop: %+v %v", d, err)
	}
	if strings.Contains(git(t, dir, "for-each-ref"), "snap") {
		t.Fatal("drop left refs")
	}
	git(t, dir, "gc", "-q", "--prune=now")
	back, err := s.Undrop(ctx, "x")
	if err != nil || back.Tip != tip || len(back.Checkpoints) != 1 || back.Checkpoints[0].Name != "green" {
		t.Fatalf("undrop: %+v %v", back, err)
	}
	if git(t, dir, "for-each-ref") != refsBefore {
		t.Errorf("undrop brought back\n%s\nwant\n%s", git(t, dir, "for-each-ref"), refsBefore)
	}
	git(t, dir, "fsck", "--strict", "--no-progress")

	var opt *storage.OptionsError
	if _, err := s.Undrop(ctx, "x"); !errors.As(err, &opt) {
		t.Errorf("undrop of a session that exists: %v", err)
	}
	// drop, start again under the name, drop again: only the new one comes back
	if _, err := s.Drop(ctx, "x", false); err != nil {
		t.Fatal(err)
	}
	saveN(t, s, "x", 7, 7)
	newTip, _ := s.SessionTip("x")
	if _, err := s.Drop(ctx, "x", false); err != nil {
		t.Fatal(err)
	}
	if back, err = s.Undrop(ctx, "x"); err != nil || back.Tip != newTip || len(back.Checkpoints) != 0 {
		t.Fatalf("undrop of the newer session: %+v %v", back, err)
	}
	if strings.Contains(git(t, dir, "for-each-ref"), "green") {
		t.Error("the older session's checkpoint came back with the newer one")
	}

	// expired: git reflog expire forgets the drop, and gc the objects
	if _, err := s.Drop(ctx, "x", false); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
	git(t, dir, "gc", "-q", "--prune=now")
	var nf *storage.NotFoundError
	if _, err := s.Undrop(ctx, "x"); !errors.As(err, &nf) {
		t.Errorf("undrop after expiry: %v", err)
	}
}

// TestUndropHostileInput: names outside the refs, a never dropped
// session, a log that is garbage or not a file, all refused.
func TestUndropHostileInput(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	for _, name := range []string{"../x", "a/b", "", "-x", ".hidden"} {
		if _, err := s.Undrop(ctx, name); err == nil {
			t.Errorf("undrop %q: no error", name)
		}
	}
	if _, err := s.Undrop(ctx, "never"); err == nil {
		t.Error("undrop of a session never dropped: no error")
	}
	logs := filepath.Join(dir, ".git", "logs", "refs", "snap")
	must(t, os.MkdirAll(logs, 0o755))
	must(t, os.WriteFile(filepath.Join(logs, "junk"), []byte("not a reflog\n\x00\xff"), 0o644))
	if _, err := s.Undrop(ctx, "junk"); err == nil {
		t.Error("undrop from a garbage log: no error")
	}
	must(t, os.MkdirAll(filepath.Join(logs, "dir"), 0o755))
	if _, err := s.Undrop(ctx, "dir"); err == nil {
		t.Error("undrop from a directory: no error")
	}
	if strings.Contains(git(t, dir, "for-each-ref"), "snap") {
		t.Error("a refused undrop wrote a ref")
	}
}
