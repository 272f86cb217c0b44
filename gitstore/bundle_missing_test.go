package gitstore

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

// TestWriteBundleMissingObject: a session whose history lost a loose
// blob or tree (removed by hand, a disk error) is not bundled: the error
// names the missing object, where the pack encoder said only "object
// not found" of a blob, and the writer is given no pack.
func TestWriteBundleMissingObject(t *testing.T) {
	for _, what := range []string{"blob", "tree"} {
		t.Run(what, func(t *testing.T) {
			ctx := context.Background()
			dir, s := newRepo(t)
			doc := conversation(2)
			doc["files"] = map[string]any{"src/x.go": map[string]any{"content": "package x\n"}}
			if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "s"}); err != nil {
				t.Fatal(err)
			}
			saveN(t, s, "s", 3, 4)
			path := map[string]string{"blob": "refs/snap/s~1:snapshot.json", "tree": "refs/snap/s~1:messages"}[what]
			id := git(t, dir, "rev-parse", path)
			must(t, os.Remove(filepath.Join(dir, ".git", "objects", id[:2], id[2:])))
			s2, err := Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View})
			must(t, err)
			defer s2.Close()
			var out bytes.Buffer
			_, err = s2.WriteBundle(ctx, &out, []string{s2.SessionRef("s")})
			if err == nil || !strings.Contains(err.Error(), id) {
				t.Fatalf("bundle without %s %s: %v", what, id, err)
			}
			if bytes.Contains(out.Bytes(), []byte("PACK")) {
				t.Errorf("a pack was written (%d bytes) before the error", out.Len())
			}
		})
	}
}

// TestReachableSkipsSubmodules: a tree with a submodule entry (mode
// 160000, made by git mktree) names a commit of another repository,
// which git rev-list --objects does not list; reachable lists what git
// lists and the bundle verifies.
func TestReachableSkipsSubmodules(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "s", 1, 1)
	entries := git(t, dir, "ls-tree", "refs/snap/s") + "\n160000 commit 1111111111111111111111111111111111111111\tsub\n"
	cmd := exec.Command("git", "mktree")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(entries)
	out, err := cmd.Output()
	must(t, err)
	tree := strings.TrimSpace(string(out))
	msg := git(t, dir, "log", "-1", "--format=%B", "refs/snap/s")
	c := git(t, dir, "commit-tree", tree, "-p", "refs/snap/s", "-m", msg)
	git(t, dir, "update-ref", "refs/snap/s", c)
	got, err := s.reachable(ctx, []storage.ID{storage.NewID(c)})
	must(t, err)
	want := strings.Split(git(t, dir, "rev-list", "--objects", c), "\n")
	if len(got) != len(want) {
		t.Errorf("reachable listed %d objects, git rev-list --objects %d", len(got), len(want))
	}
	for _, h := range got {
		if h.String() == "1111111111111111111111111111111111111111" {
			t.Error("the submodule's commit was listed")
		}
	}
	bundle := filepath.Join(t.TempDir(), "s.bundle")
	f, err := os.Create(bundle)
	must(t, err)
	_, err = s.WriteBundle(ctx, f, []string{s.SessionRef("s")})
	must(t, err)
	must(t, f.Close())
	git(t, dir, "bundle", "verify", "-q", bundle)
}

// TestEntryDateBefore1970: a snapshot's commit rewritten with a
// committer time before 1970 (which git fsck calls an overflow) is not
// read as a snapshot; the error said "no Snap-Session trailer" of a
// commit that has one, and now names the date as a possible cause.
func TestEntryDateBefore1970(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	saveN(t, s, "s", 1, 1)
	raw := git(t, dir, "cat-file", "commit", "refs/snap/s")
	head, msg, _ := strings.Cut(raw, "\n\n")
	var lines []string
	for _, l := range strings.Split(head, "\n") {
		if strings.HasPrefix(l, "committer ") {
			l = "committer t <t@e> -86400 +0000"
		}
		lines = append(lines, l)
	}
	cmd := exec.Command("git", "hash-object", "-w", "--literally", "-t", "commit", "--stdin")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(strings.Join(lines, "\n")+"\n\n"+msg+"\n")
	out, err := cmd.Output()
	must(t, err)
	_, err = s.Entry(ctx, storage.NewID(strings.TrimSpace(string(out))))
	if err == nil || !strings.Contains(err.Error(), "date") {
		t.Fatalf("entry of a commit dated 1969: %v", err)
	}
}
