package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/worktree"
)

// TestCaptureBoundsAndSymlinkedDirs: a 2 MB untracked log was read on
// every hook call (3-4 s each); link/secret.txt, link being a symlink to
// a directory outside the work tree, was captured. Now the log is listed
// as skipped with its size, unread, and the linked path is refused by
// the rule worktree.Write follows.
func TestCaptureBoundsAndSymlinkedDirs(t *testing.T) {
	wt, outside := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o600))
	must(t, os.Symlink(outside, filepath.Join(wt, "link")))
	must(t, os.WriteFile(filepath.Join(wt, "big.log"), make([]byte, 2<<20), 0o600))
	must(t, os.WriteFile(filepath.Join(wt, "small.txt"), []byte("small"), 0o600))
	in := Ingest{WorkTree: wt, MaxFileBytes: 1 << 20}
	files, skipped := in.capture([]string{"link/secret.txt", filepath.Join(wt, "link", "secret.txt"), "big.log", "small.txt"})
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if strings.Join(got, " ") != "small.txt" {
		t.Errorf("captured %v, want small.txt only", got)
	}
	if fmt.Sprint(skipped) != fmt.Sprint([]any{map[string]any{"path": "big.log", "size": int64(2 << 20)}}) {
		t.Errorf("skipped %v", skipped)
	}
	if _, why := worktree.Parents(wt, "link/secret.txt"); !strings.Contains(why, "symlink") {
		t.Errorf("Parents: %q", why)
	}
	res, err := worktree.Write(wt, []snapshot.File{{Path: "link/secret.txt", Mode: snapshot.ModeRegular, Content: []byte("x")}}, worktree.Options{})
	if err != nil || len(res) != 1 || res[0].Action != worktree.Refused {
		t.Errorf("Write through the link: %+v %v", res, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
