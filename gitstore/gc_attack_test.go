package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGCKeepsAForeignKeepOfTheSamePack: when the pack git snap gc makes
// is one someone already kept (the same objects give the same pack), its
// keep is left as written, not overwritten with GC's mark and then
// released by the next GC. Keeps that are a FIFO, a link to /dev/zero, or
// start with GC's mark and say more are neither read without end nor
// removed.
func TestGCKeepsAForeignKeepOfTheSamePack(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	saveN(t, s, "a", 1, 5)
	must(t, s.GC(ctx, GCOptions{}))
	keeps, _ := filepath.Glob(filepath.Join(packDir, "pack-*.keep"))
	if len(keeps) != 1 {
		t.Fatalf("keeps %v", keeps)
	}
	// The user keeps that pack for a reason of their own.
	const reason = "kept by hand: the release snapshots\n"
	must(t, os.WriteFile(keeps[0], []byte(reason), 0o644))
	odd := map[string]string{
		filepath.Join(packDir, "pack-1111111111111111111111111111111111111111.keep"): "fifo",
		filepath.Join(packDir, "pack-2222222222222222222222222222222222222222.keep"): "zero",
		filepath.Join(packDir, "pack-3333333333333333333333333333333333333333.keep"): keepMark + "and the user's reason\n",
	}
	for k, what := range odd {
		switch what {
		case "fifo":
			mkfifo(t, k)
		case "zero":
			must(t, os.Symlink("/dev/zero", k))
		default:
			must(t, os.WriteFile(k, []byte(what), 0o644))
		}
	}
	done := make(chan error, 1)
	go func() {
		err := s.GC(ctx, GCOptions{}) // the same objects: the same pack
		if err == nil {
			saveN(t, s, "a", 6, 8)
			err = s.GC(ctx, GCOptions{}) // releases GC's own keeps
		}
		done <- err
	}()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(120 * time.Second): // a hang guard, not a timing
		for k, what := range odd {
			if what == "fifo" {
				if f, err := os.OpenFile(k, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}
		}
		t.Fatal("git snap gc did not return")
	}
	if b, err := os.ReadFile(keeps[0]); err != nil || string(b) != reason {
		t.Errorf("the user's keep of the pack GC made again: %q, %v", b, err)
	}
	for k, what := range odd {
		if _, err := os.Lstat(k); err != nil {
			t.Errorf("the keep %s (%.20q) was removed: %v", filepath.Base(k), what, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(packDir, "pack-3333333333333333333333333333333333333333.keep")); !strings.HasPrefix(string(b), keepMark) {
		t.Errorf("a keep read %q", b)
	}
}
