package gitstore

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// Tips lists local sessions and those fetched from a remote, as git
// for-each-ref lists them, and nothing else under refs/remotes.
func TestTipsLocalAndFetched(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	e, err := s.Save(ctx, conversation(2), storage.SaveOptions{Session: "mine"})
	must(t, err)
	// What git snap fetch leaves, and a code branch's remote ref beside it.
	git(t, dir, "update-ref", "refs/remotes/origin/snap/theirs", e.ID.String())
	git(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD")
	tips, err := s.Tips(ctx)
	must(t, err)
	want := strings.Split(git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/snap/", "refs/remotes/*/snap/*"), "\n")
	var got []string
	for _, ref := range slices.Sorted(maps.Keys(tips)) {
		got = append(got, ref+" "+tips[ref].String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("Tips: %q\nwant (git for-each-ref): %q", got, want)
	}
	for ref, want := range map[string][2]string{
		"refs/snap/mine":                  {"mine", ""},
		"refs/remotes/origin/snap/theirs": {"theirs", "origin"},
	} {
		name, remote, ok := s.SessionOfRef(ref)
		if !ok || name != want[0] || remote != want[1] {
			t.Errorf("SessionOfRef(%s) = %q, %q, %v; want %q, %q", ref, name, remote, ok, want[0], want[1])
		}
	}
	for _, ref := range []string{"refs/remotes/origin/main", "refs/remotes/origin/snap/", "refs/heads/snap/x", "refs/snap/"} {
		if _, _, ok := s.SessionOfRef(ref); ok {
			t.Errorf("SessionOfRef(%s) names a session", ref)
		}
	}
}

// Files lists the captured files with the blob ids git ls-tree gives,
// and Blob reads each back byte for byte.
func TestFiles(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	doc := mustParse(t, `{"messages": [], "files": {"a/b.go": {"content": "package b\n"}, "run.sh": {"content": "#!/bin/sh\n", "mode": "100755"}}}`)
	e, err := s.Save(ctx, doc, storage.SaveOptions{Session: "f"})
	must(t, err)
	set, err := s.Files(ctx, e)
	must(t, err)
	if want := git(t, dir, "rev-parse", e.ID.String()+":files"); storage.ID(set.ID).String() != want {
		t.Errorf("files id %s, want the files tree %s", storage.ID(set.ID), want)
	}
	var got []string
	for _, f := range set.Files {
		got = append(got, f.Mode+" blob "+f.Blob.String()+"\tfiles/"+f.Path)
		data, err := s.Blob(ctx, f.Blob)
		must(t, err)
		if want := git(t, dir, "cat-file", "blob", f.Blob.String()); strings.TrimSpace(string(data)) != want {
			t.Errorf("Blob(%s) = %q, want %q", f.Path, data, want)
		}
	}
	slices.Sort(got)
	if want := strings.Split(git(t, dir, "ls-tree", "-r", e.ID.String(), "files/"), "\n"); !slices.Equal(got, want) {
		t.Errorf("Files: %q\nwant (git ls-tree): %q", got, want)
	}
	empty, err := s.Save(ctx, mustParse(t, `{"messages": []}`), storage.SaveOptions{Session: "nofiles"})
	must(t, err)
	if none, err := s.Files(ctx, empty); err != nil || none.ID != (storage.FileSetID{}) || len(none.Files) != 0 {
		t.Errorf("a snapshot without files: %v %v", none, err)
	}
}

// Tips reads no ref while none moved, and sees every move: by a save,
// by git update-ref, by git pack-refs, by a deletion. The directories'
// times are set an hour back first, so that the cache is used at all.
func TestTipsSeesEveryMove(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	first, err := s.Save(ctx, conversation(1), storage.SaveOptions{Session: "a"})
	must(t, err)
	age := func() {
		old := time.Now().Add(-time.Hour)
		for _, p := range []string{".git/refs/snap", ".git/packed-refs", ".git/refs/remotes"} {
			_ = os.Chtimes(filepath.Join(dir, p), old, old)
		}
	}
	check := func(step string) {
		t.Helper()
		age()
		for range 2 { // the first call fills the cache, the second uses it
			tips, err := s.Tips(ctx)
			must(t, err)
			want := map[string]storage.ID{}
			out := git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/snap/")
			for _, l := range strings.Split(out, "\n") {
				if ref, h, ok := strings.Cut(l, " "); ok {
					want[ref] = storage.NewID(h)
				}
			}
			if !maps.Equal(tips, want) {
				t.Errorf("%s: Tips %v, want %v", step, tips, want)
			}
		}
	}
	check("after a save")
	second, err := s.Save(ctx, conversation(2), storage.SaveOptions{Session: "a"})
	must(t, err)
	check("after another save")
	git(t, dir, "update-ref", "refs/snap/a", first.ID.String())
	check("after git update-ref")
	git(t, dir, "update-ref", "refs/snap/b", second.ID.String())
	git(t, dir, "pack-refs", "--all")
	check("after git pack-refs")
	git(t, dir, "update-ref", "-d", "refs/snap/b")
	check("after a deletion")
}
