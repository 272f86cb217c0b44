package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// A repository whose objects another lends it (git clone --shared, and
// its clone in turn, objects/info/alternates naming the one before, by a
// relative path in the last) reads every snapshot of the lender as its
// own: loose, then packed by git gc; and one object in none of them is
// not found.
func TestReadsThroughAlternates(t *testing.T) {
	ctx := context.Background()
	lender, s := newRepo(t)
	saveN(t, s, "s", 1, 5)
	tip, err := s.SessionTip("s")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := s.Read(ctx, tip)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	mid, last := filepath.Join(root, "mid"), filepath.Join(root, "last")
	git(t, root, "clone", "-q", "--shared", lender, mid)
	git(t, root, "clone", "-q", "--shared", mid, last)
	// The last names the middle one relatively, as a hand-written file may.
	must(t, os.WriteFile(filepath.Join(last, ".git", "objects", "info", "alternates"), []byte("# lent by mid\n../../../mid/.git/objects\n"), 0o644))
	for _, phase := range []string{"loose", "packed"} {
		if phase == "packed" {
			git(t, lender, "gc", "-q")
		}
		git(t, last, "update-ref", "refs/snap/s", tip.String())
		b := openStore(t, last)
		got, _, err := b.Read(ctx, tip)
		if err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
		if !snapshot.Equal(got, want) {
			t.Fatalf("%s: read through alternates differs", phase)
		}
		if _, _, err := b.st.read(storage.NewID("1111111111111111111111111111111111111111")); err != plumbing.ErrObjectNotFound {
			t.Fatalf("%s: a missing object: %v", phase, err)
		}
	}
}
