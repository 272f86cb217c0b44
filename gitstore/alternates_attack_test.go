package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestAlternatesHostile: objects/info/alternates as a FIFO with no
// writer, a link to /dev/zero, a huge file, or naming a loop (A lends B,
// B lends A), a file, a FIFO, /dev/zero, a missing directory, a quoted
// path with an octal escape, or a symbolic link to the repository's own
// objects: the store still reads its own snapshots and those it can
// reach, never blocking nor reading without end.
func TestAlternatesHostile(t *testing.T) {
	ctx := context.Background()
	lender, ls := newRepo(t)
	saveN(t, ls, "s", 1, 2)
	lent, err := ls.SessionTip("s")
	must(t, err)
	root := t.TempDir()
	fifo := filepath.Join(root, "fifo")
	mkfifo(t, fifo)
	must(t, os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o644))
	quoted := filepath.Join(root, "é")
	must(t, os.Symlink(filepath.Join(lender, ".git", "objects"), quoted))
	lenderObjects := filepath.Join(lender, ".git", "objects")
	for _, tc := range []struct {
		name    string
		setup   func(objects string) // writes objects/info/alternates
		lendsOK bool                 // the lender's snapshot is readable
	}{
		{"fifo file", func(o string) { mkfifo(t, filepath.Join(o, "info", "alternates")) }, false},
		{"dev zero file", func(o string) { must(t, os.Symlink("/dev/zero", filepath.Join(o, "info", "alternates"))) }, false},
		{"huge file", func(o string) {
			text := strings.Repeat("/nonexistent/objects\n", 200000) + lenderObjects + "\n"
			must(t, os.WriteFile(filepath.Join(o, "info", "alternates"), []byte(text), 0o644))
		}, false},
		{"long line", func(o string) {
			text := "/" + strings.Repeat("x", 100000) + "\n" + lenderObjects + "\n"
			must(t, os.WriteFile(filepath.Join(o, "info", "alternates"), []byte(text), 0o644))
		}, true},
		{"odd targets", func(o string) {
			text := strings.Join([]string{filepath.Join(root, "file"), fifo, "/dev/zero", filepath.Join(root, "missing"), o, "", "# c", lenderObjects}, "\n")
			must(t, os.WriteFile(filepath.Join(o, "info", "alternates"), []byte(text), 0o644))
		}, true},
		{"loop", func(o string) {
			must(t, os.WriteFile(filepath.Join(o, "info", "alternates"), []byte(lenderObjects+"\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(lenderObjects, "info", "alternates"), []byte(o+"\n"), 0o644))
		}, true},
		{"quoted", func(o string) {
			must(t, os.WriteFile(filepath.Join(o, "info", "alternates"), []byte(`"`+filepath.Join(root, `\303\251`)+`"`+"\n"), 0o644))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(filepath.Join(lenderObjects, "info", "alternates"))
			repo, s := newRepo(t)
			saveN(t, s, "own", 1, 2)
			own, err := s.SessionTip("own")
			must(t, err)
			objects := filepath.Join(repo, ".git", "objects")
			must(t, os.MkdirAll(filepath.Join(objects, "info"), 0o755))
			// Before the alternates: git itself would wait on a FIFO.
			must(t, os.WriteFile(filepath.Join(objects, "info", "alternates"), []byte(lenderObjects+"\n"), 0o644))
			git(t, repo, "update-ref", "refs/snap/lent", lent.String())
			must(t, os.Remove(filepath.Join(objects, "info", "alternates")))
			tc.setup(objects)
			done := make(chan [2]error, 1)
			go func() {
				b := openStore(t, repo)
				_, _, errOwn := b.Read(ctx, own)
				_, _, errLent := b.Read(ctx, lent)
				done <- [2]error{errOwn, errLent}
			}()
			var errs [2]error
			select {
			case errs = <-done:
			case <-time.After(60 * time.Second): // a hang guard, not a timing
				if f, err := os.OpenFile(filepath.Join(objects, "info", "alternates"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatal("reading through alternates did not return")
			}
			if errs[0] != nil {
				t.Errorf("own snapshot: %v", errs[0])
			}
			if tc.lendsOK != (errs[1] == nil) {
				t.Errorf("lent snapshot: %v, want readable %v", errs[1], tc.lendsOK)
			}
			if !tc.lendsOK && errs[1] != nil && !strings.Contains(errs[1].Error(), plumbing.ErrObjectNotFound.Error()) {
				t.Logf("lent snapshot error: %v", errs[1])
			}
		})
	}
}
