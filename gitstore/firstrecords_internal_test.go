package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// firstTreeIDs, which inflates only the first bytes of a loose tree, is
// the first n entries of the tree read whole (git ls-tree's, the
// reference): for the loose messages tree a save leaves, the same tree
// packed by git gc, a loose tree whose names are longer than the bytes
// it inflates hold, and a loose tree that is not zlib at all.
func TestFirstTreeIDsAreTheTreesFirstEntries(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	e, err := s.Save(ctx, conversation(700), storage.SaveOptions{Session: "p"})
	must(t, err)
	msgs, _, err := s.snapshotTree(ctx, e.Tree)
	must(t, err)
	var listing strings.Builder // five blobs under names longer than the bytes inflated for one
	for i := range 5 {
		name := strings.Repeat(string(rune('a'+i)), 300)
		must(t, os.WriteFile(filepath.Join(dir, "blob"), []byte(name), 0o644))
		listing.WriteString("100644 blob " + git(t, dir, "hash-object", "-w", "blob") + "\t" + name + "\n")
	}
	mktree := exec.Command("git", "mktree")
	mktree.Dir, mktree.Stdin = dir, strings.NewReader(listing.String())
	out, err := mktree.Output()
	must(t, err)
	longNames := storage.NewID(strings.TrimSpace(string(out)))

	check := func(when string, tree storage.ID) {
		t.Helper()
		var want []storage.ID
		for _, line := range strings.Split(git(t, dir, "ls-tree", tree.String()), "\n") {
			want = append(want, storage.NewID(strings.Fields(line)[2]))
		}
		for _, n := range []int{1, 2, 3, len(want), len(want) + 1} {
			got, err := s.st.firstTreeIDs(tree, n)
			if err != nil {
				t.Fatalf("%s: first %d entries of %s: %v", when, n, tree, err)
			}
			if w := want[:min(n, len(want))]; !slices.Equal(got, w) {
				t.Fatalf("%s: first %d entries of %s: %v, want %v", when, n, tree, got, w)
			}
		}
	}
	if len(strings.Split(git(t, dir, "ls-tree", msgs.String()), "\n")) < 3 {
		t.Fatal("700 messages are stored in fewer than 3 blocks: the test lists too few")
	}
	check("loose", msgs)
	check("long names", longNames)
	git(t, dir, "update-ref", "refs/keep-long", git(t, dir, "commit-tree", longNames.String(), "-m", "keep"))
	git(t, dir, "gc", "-q", "--prune=now")
	if _, err := os.Stat(looseObject(dir, msgs)); !os.IsNotExist(err) {
		t.Fatalf("git gc left the messages tree loose: %v", err)
	}
	check("packed", msgs)
	check("packed, long names", longNames)

	// A loose object that is not zlib: refused, as a whole read refuses it.
	_, s2 := newRepo(t)
	e2, err := s2.Save(ctx, conversation(300), storage.SaveOptions{Session: "q"})
	must(t, err)
	msgs2, _, err := s2.snapshotTree(ctx, e2.Tree)
	must(t, err)
	path := looseObject(s2.paths.CommonDir, msgs2)
	must(t, os.Chmod(path, 0o644))
	must(t, os.WriteFile(path, []byte("not zlib at all, and long enough to be read as if it were"), 0o644))
	if _, err := s2.st.tree(msgs2); err == nil {
		t.Fatal("a loose tree that is not zlib reads whole")
	}
	if ids, err := s2.st.firstTreeIDs(msgs2, 1); err == nil {
		t.Fatalf("a loose tree that is not zlib: first entry %v, no error", ids)
	}
}

// looseObject is where object h is kept loose under dir, a git dir or a
// work tree's.
func looseObject(dir string, h storage.ID) string {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		dir = filepath.Join(dir, ".git")
	}
	return filepath.Join(dir, "objects", h.String()[:2], h.String()[2:])
}
