package gitstore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// reachable lists what git rev-list --objects lists from the same tips:
// every commit of two sessions, one with files in subfolders, their
// trees and blobs, each once; a missing commit is an error.
func TestReachableAsRevList(t *testing.T) {
	dir, s := newRepo(t)
	ctx := context.Background()
	saveN(t, s, "a", 1, 4)
	saveN(t, s, "b", 1, 2)
	doc := conversation(3)
	doc["files"] = map[string]any{"src/x.go": map[string]any{"content": "package x\n"}}
	if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "b"}); err != nil {
		t.Fatal(err)
	}
	var wants []storage.ID
	var tips []string
	for _, session := range []string{"a", "b"} {
		h, err := s.refs.Read(s.SessionRef(session))
		if err != nil {
			t.Fatal(err)
		}
		wants, tips = append(wants, h), append(tips, h.String())
	}
	got, err := s.reachable(ctx, wants)
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs []string
	for _, h := range got {
		gotIDs = append(gotIDs, h.String())
	}
	var want []string
	for _, line := range strings.Split(git(t, dir, append([]string{"rev-list", "--objects"}, tips...)...), "\n") {
		want = append(want, strings.Fields(line)[0])
	}
	slices.Sort(gotIDs)
	slices.Sort(want)
	if !slices.Equal(gotIDs, want) {
		t.Fatalf("reachable listed %d objects, git rev-list --objects %d:\n%v\n%v", len(gotIDs), len(want), gotIDs, want)
	}
	if _, err := s.reachable(ctx, []storage.ID{storage.NewID("1111111111111111111111111111111111111111")}); err == nil {
		t.Error("a missing commit was listed")
	}
}
