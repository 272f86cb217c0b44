package gitstore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

func hashOf(c byte) storage.ID { return storage.NewID(strings.Repeat(string(c), 40)) }

// TestRewritesFollowChains: what the post-rewrite hook records is read
// back and followed: a rebase after an amend (a → b → c), two commits
// squashed into one (d, e → f), an amend undone (g → h → g) that must
// not loop, a line that is not a pair ignored.
func TestRewritesFollowChains(t *testing.T) {
	_, s := newRepo(t)
	pairs := [][2]storage.ID{{hashOf('a'), hashOf('b')}, {hashOf('d'), hashOf('f')}, {hashOf('e'), hashOf('f')}, {hashOf('g'), hashOf('8')}}
	if err := s.NoteRewrites(pairs); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteRewrites([][2]storage.ID{{hashOf('b'), hashOf('c')}, {hashOf('8'), hashOf('g')}, {hashOf('1'), hashOf('1')}}); err != nil {
		t.Fatal(err)
	}
	m, err := s.ReadRewrites(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Descendants(hashOf('a')); !slices.Equal(got, []storage.ID{hashOf('a'), hashOf('b'), hashOf('c')}) {
		t.Errorf("a's descendants: %v", got)
	}
	if got := m.Latest(hashOf('a')); !slices.Equal(got, []storage.ID{hashOf('c')}) {
		t.Errorf("a is now %v, want c", got)
	}
	if got := m.Latest(hashOf('g')); !slices.Equal(got, []storage.ID{hashOf('g')}) {
		t.Errorf("g amended and back is now %v, want g", got)
	}
	if got := m.Latest(hashOf('9')); !slices.Equal(got, []storage.ID{hashOf('9')}) {
		t.Errorf("a commit never rewritten is now %v", got)
	}
	before := m.Before("ffff")
	if len(before) != 2 || !before[hashOf('d').String()] || !before[hashOf('e').String()] {
		t.Errorf("before f (squashed): %v, want d and e", before)
	}
	if before := m.Before(hashOf('c').String()); len(before) != 2 || !before[hashOf('a').String()] || !before[hashOf('b').String()] {
		t.Errorf("before c: %v, want a and b", before)
	}
	if _, ok := m[hashOf('1')]; ok {
		t.Errorf("a commit rewritten into itself was recorded")
	}
}
