package gitobj

import (
	"bytes"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-snap/git-snap/storage"
)

// signatures are who and when as a store may be given them: zones east
// and west, half hours, before 1970, names with spaces and UTF-8.
var signatures = []object.Signature{
	{Name: "Ada", Email: "ada@example.com", When: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)},
	{Name: "Ada Lovelace", Email: "a@x", When: time.Date(2026, 1, 2, 3, 4, 5, 999, time.FixedZone("", 5*3600+30*60))},
	{Name: "Zoë Ñ", Email: "z@x", When: time.Date(2001, 1, 2, 3, 4, 5, 0, time.FixedZone("", -(2*3600+30*60)))},
	{Name: "old", Email: "o@x", When: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)},
	{Name: "zero", Email: "", When: time.Time{}},
	{},
}

func goGitBytes(t *testing.T, o interface {
	Encode(plumbing.EncodedObject) error
}) ([]byte, storage.ID) {
	t.Helper()
	mem := &plumbing.MemoryObject{}
	if err := o.Encode(mem); err != nil {
		t.Fatal(err)
	}
	r, err := mem.Reader()
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data, storage.ID(mem.Hash())
}

func sig(s object.Signature) []byte {
	if s == (object.Signature{}) {
		return nil
	}
	return Signature(s.Name, s.Email, s.When)
}

// TestNewCommitAsGoGit: a commit is the same bytes, and so the same id,
// as go-git's Commit.Encode makes of the same fields, and reads back
// as it was written.
func TestNewCommitAsGoGit(t *testing.T) {
	tree := storage.NewID("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	parentSets := [][]storage.ID{nil, {storage.NewID("1111111111111111111111111111111111111111")},
		{storage.NewID("1111111111111111111111111111111111111111"), storage.NewID("2222222222222222222222222222222222222222")}}
	for i, s := range signatures {
		for _, parents := range parentSets {
			msg := []string{"subject\n\nSnap-Session: s\n", "", "no newline", "\n"}[i%4]
			want, wantID := goGitBytes(t, &object.Commit{TreeHash: plumbing.Hash(tree), ParentHashes: hashes(parents), Author: s, Committer: signatures[(i+1)%len(signatures)], Message: msg})
			got := NewCommit(tree, parents, sig(s), sig(signatures[(i+1)%len(signatures)]), msg)
			if !bytes.Equal(got.Data, want) || got.Hash != wantID || got.Type != plumbing.CommitObject {
				t.Fatalf("got %q (%s)\nwant %q (%s)", got.Data, got.Hash, want, wantID)
			}
			back, err := ParseCommit(got.Data)
			if err != nil {
				t.Fatal(err)
			}
			again := NewCommit(back.Tree, back.Parents, back.Author, back.Committer, back.Message)
			if again.Hash != got.Hash {
				t.Fatalf("%q read and written again is %q", got.Data, again.Data)
			}
		}
	}
}

// TestNewTagAsGoGit: the same for an annotated tag of a commit.
func TestNewTagAsGoGit(t *testing.T) {
	target := storage.NewID("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	for i, s := range signatures {
		msg := []string{"checkpoint green\n", "tests pass\n\nmore\n", "", "x\n"}[i%4]
		want, wantID := goGitBytes(t, &object.Tag{Name: "snap/s/green", Tagger: s, Message: msg, TargetType: plumbing.CommitObject, Target: plumbing.Hash(target)})
		got := NewTag("snap/s/green", target, sig(s), msg)
		if !bytes.Equal(got.Data, want) || got.Hash != wantID || got.Type != plumbing.TagObject {
			t.Fatalf("got %q (%s)\nwant %q (%s)", got.Data, got.Hash, want, wantID)
		}
		back, err := ParseTag(got.Data)
		if err != nil {
			t.Fatal(err)
		}
		if again := NewTag(back.Name, back.Target, back.Tagger, back.Message); again.Hash != got.Hash {
			t.Fatalf("%q read and written again is %q", got.Data, again.Data)
		}
	}
}

// TestNewTreeAsGoGit: a tree in TreeOrder is the bytes go-git's
// Tree.Encode makes of the entries it sorts with TreeEntrySorter.
func TestNewTreeAsGoGit(t *testing.T) {
	id := storage.NewID("abababababababababababababababababababab")
	var entries []TreeEntry
	for _, e := range []struct {
		name string
		mode filemode.FileMode
	}{{"a", filemode.Dir}, {"a.txt", filemode.Regular}, {"a0", filemode.Regular}, {"a-b", filemode.Dir}, {"b", filemode.Executable}, // a/ sorts after a.txt and a-b, before a0
		{"0001", filemode.Dir}, {"000130.json", filemode.Regular}, {"link", filemode.Symlink}, {"sub", filemode.Submodule}, {"ab", filemode.Dir}} {
		entries = append(entries, TreeEntry{Name: e.name, Mode: e.mode, Hash: id})
	}
	gg := make([]object.TreeEntry, len(entries))
	for i, e := range entries {
		gg[i] = object.TreeEntry{Name: e.Name, Mode: e.Mode, Hash: plumbing.Hash(e.Hash)}
	}
	slices.SortFunc(entries, TreeOrder)
	want, wantID := goGitBytes(t, &object.Tree{Entries: sortedGoGit(gg)})
	if got := NewTree(entries); !bytes.Equal(got.Data, want) || got.Hash != wantID {
		t.Fatalf("got %q\nwant %q", got.Data, want)
	}
}

func sortedGoGit(entries []object.TreeEntry) []object.TreeEntry {
	slices.SortFunc(entries, func(a, b object.TreeEntry) int {
		s := object.TreeEntrySorter{a, b}
		switch {
		case s.Less(0, 1):
			return -1
		case s.Less(1, 0):
			return 1
		}
		return 0
	})
	return entries
}

// Trees are ordered as git orders them: a directory's name as if it
// ended in a slash, so "a" (a directory) comes after "a.b" and before
// "a0", and a file "a" before "a.b".
func TestTreeOrderIsGits(t *testing.T) {
	dir, file := filemode.Dir, filemode.Regular
	names := []string{"a", "a.b", "a0", "a-", "ab", "b", "0001", "0010", "snapshot.json", ".git-snap", "messages", "files"}
	for _, ma := range []filemode.FileMode{dir, file} {
		for _, mb := range []filemode.FileMode{dir, file} {
			for _, x := range names {
				for _, y := range names {
					a, b := object.TreeEntry{Name: x, Mode: ma}, object.TreeEntry{Name: y, Mode: mb}
					want := object.TreeEntrySorter([]object.TreeEntry{a, b}).Less(0, 1)
					if got := TreeOrder(TreeEntry{Name: x, Mode: ma}, TreeEntry{Name: y, Mode: mb}) < 0; got != want {
						t.Errorf("%q (%v) before %q (%v): %v, go-git says %v", x, ma, y, mb, got, want)
					}
				}
			}
		}
	}
}

// hashes is ids as go-git takes them.
func hashes(ids []storage.ID) []plumbing.Hash {
	var out []plumbing.Hash
	for _, id := range ids {
		out = append(out, plumbing.Hash(id))
	}
	return out
}
