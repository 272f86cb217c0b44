package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// TestPackListNamesObjectsBySession checks the list GC gives git
// pack-objects: every object the tips reach, once; the objects of one
// session and one kind (its message blobs, its snapshot.json versions)
// under one name, another than another session's or another kind's; a
// captured file under its path, in whichever session.
func TestPackListNamesObjectsBySession(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	for _, sess := range []string{"a", "b"} {
		for n := 1; n <= 4; n++ {
			msgs := make([]any, n)
			for i := range msgs {
				msgs[i] = map[string]any{"role": "user", "content": fmt.Sprintf("session %s, message %d", sess, i)}
			}
			doc := map[string]any{"messages": msgs, "step": fmt.Sprint(sess, n), "files": map[string]any{"src/x.go": map[string]any{"content": "package x\n"}}}
			if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: sess}); err != nil {
				t.Fatal(err)
			}
		}
	}
	tip, _ := s.SessionTip("a")
	if _, err := s.SetCheckpoint(ctx, "green", tip, "tests pass", false); err != nil {
		t.Fatal(err)
	}
	tips := git(t, dir, "for-each-ref", "--format=%(objectname)", "refs/snap/", "refs/snap-tags/") + "\n"
	gitPath, err := exec.LookPath("git")
	must(t, err)
	gitDir := filepath.Join(dir, ".git")
	lines, err := historyLines(ctx, gitPath, gitDir, []byte(tips))
	must(t, err)
	var list bytes.Buffer
	must(t, writePackList(ctx, gitPath, gitDir, []byte(tips), lines, &list))

	names := map[string]string{} // object → name
	for _, l := range strings.Split(strings.TrimSuffix(list.String(), "\n"), "\n") {
		id, name, _ := strings.Cut(l, " ")
		if _, twice := names[id]; twice {
			t.Fatalf("%s listed twice", id)
		}
		names[id] = name
	}
	var want []string
	for _, l := range strings.Split(git(t, dir, "rev-list", "--objects", "refs/snap/a", "refs/snap/b", "refs/snap-tags/a/green"), "\n") {
		want = append(want, l[:40])
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for id := range names {
			if !yield(id) {
				return
			}
		}
	})
	if slices.Sort(want); !slices.Equal(got, slices.Compact(want)) {
		t.Fatalf("listed %d objects, the tips reach %d", len(got), len(slices.Compact(want)))
	}

	kinds := map[string]map[string]bool{} // session and path kind → names
	for _, sess := range []string{"a", "b"} {
		for _, c := range strings.Split(git(t, dir, "rev-list", "refs/snap/"+sess), "\n") {
			for _, l := range strings.Split(git(t, dir, "ls-tree", "-r", c), "\n") {
				f := strings.Fields(l)
				path := f[3]
				if strings.HasPrefix(path, "files/") {
					if names[f[2]] != path {
						t.Errorf("captured %s is named %q", path, names[f[2]])
					}
					continue
				}
				if path == ".git-snap" { // one blob, the same in every snapshot
					continue
				}
				kind := sess + " " + strings.Map(func(r rune) rune {
					if '0' <= r && r <= '9' {
						return -1
					}
					return r
				}, path)
				if kinds[kind] == nil {
					kinds[kind] = map[string]bool{}
				}
				kinds[kind][names[f[2]]] = true
			}
		}
	}
	seen := map[string]string{}
	for kind, ns := range kinds {
		if len(ns) != 1 {
			t.Errorf("%s: %d names %v, want one", kind, len(ns), ns)
		}
		for n := range ns {
			if other, ok := seen[n]; ok {
				t.Errorf("%s and %s share the name %q", kind, other, n)
			}
			seen[n] = kind
		}
	}
	if len(kinds) != 4 {
		t.Errorf("kinds %v, want the message blobs and snapshot.json of each session", kinds)
	}
}
