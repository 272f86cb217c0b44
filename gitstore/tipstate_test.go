package gitstore

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

func TestMergeSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []storage.ID {
		out := make([]storage.ID, n)
		for i := range out {
			for j := range out[i] {
				out[i][j] = byte(r.IntN(4)) // few values: many equal ids
			}
		}
		return out
	}
	cmp := func(a, b storage.ID) int { return bytes.Compare(a[:], b[:]) }
	for range 200 {
		list, ids := random(r.IntN(30)), random(r.IntN(10))
		slices.SortFunc(list, cmp)
		list = slices.Compact(list)
		slices.SortFunc(ids, cmp)
		ids = slices.Compact(ids)
		want := slices.Compact(slices.SortedFunc(slices.Values(append(slices.Clone(list), ids...)), cmp))
		got := mergeSorted(sortedOf(mapOf(list)), ids)
		var flat []byte
		for _, h := range want {
			flat = append(flat, h[:]...)
		}
		if !bytes.Equal(got, flat) {
			t.Fatalf("merge of %x and %x:\n%x\nwant\n%x", list, ids, got, flat)
		}
	}
}

func mapOf(ids []storage.ID) mapHashes {
	m := mapHashes{}
	for _, h := range ids {
		m[h] = true
	}
	return m
}

// After appends, the tip cache still names every object of the tip's
// tree, its recent ids in order, each once, whether or not the base was
// merged with them meanwhile (300 appends merge it).
func TestTipCacheMergedOnAppend(t *testing.T) {
	ctx := context.Background()
	_, s := newRepo(t)
	for i := range 300 { // more than two chunks of messages
		_, _, err := s.Append(ctx, storage.SaveOptions{Session: "a"}, func(rest map[string]any) (storage.Delta, error) {
			return storage.Delta{Messages: []any{map[string]any{"n": i}}, Others: rest}, nil
		})
		must(t, err)
	}
	tip, _ := s.SessionTip("a")
	cached, ok := s.readTipCache(s.SessionRef("a"), tip)
	if !ok {
		t.Fatal("no tip cache after appends")
	}
	full, err := s.rebuildTipState(tip)
	must(t, err)
	for _, list := range []sortedHashes{cached.recent.(sortedHashes), cached.known.(*layeredHashes).load()} {
		for i := 20; i < len(list); i += 20 {
			if bytes.Compare(list[i-20:i], list[i:i+20]) >= 0 {
				t.Fatalf("cache out of order at %d", i/20)
			}
		}
	}
	if n := cached.known.(*layeredHashes).count; n < 1024 {
		t.Errorf("the base holds %d ids: it was never merged with the recent ones", n)
	}
	full.known.each(func(h storage.ID) {
		if !cached.known.has(h) {
			t.Errorf("cache lacks %s of the tip's tree", h)
		}
	})
}

// TestDamagedTipCacheIsNotTrusted: the tip cache under .git/snap/cache/
// lets a save skip the objects the tip already holds and take its
// sequence number. One listing a blob the repository lacks made the next
// save exit 0 with a snapshot naming a missing object; one with a wrong
// sequence number numbered the next snapshot #1000. The cache is
// checked against the tip commit and the object store before a write
// uses it.
func TestDamagedTipCacheIsNotTrusted(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	_, err := s.Save(ctx, conversation(2), storage.SaveOptions{Session: "s"})
	must(t, err)
	ref := s.SessionRef("s")
	tip := mustTip(t, s, "s")
	next := conversation(3)
	data, err := snapshot.MarshalIndent(next["messages"].([]any)[2])
	must(t, err)
	missing := layout.BlobHash(data)
	st, err := s.rebuildTipState(tip)
	must(t, err)
	st.seq = 999
	s.saveTipState(ref, st, []gitobj.Object{{Hash: missing}}, nil, st.known)

	e, err := s.Save(ctx, next, storage.SaveOptions{Session: "s"})
	must(t, err)
	if e.Header.Seq != 2 {
		t.Errorf("the next snapshot is #%d, want #2", e.Header.Seq)
	}
	if _, _, err := s.Read(ctx, e.ID); err != nil {
		t.Errorf("the snapshot saved over a damaged cache does not read: %v", err)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")

	// Cut or flipped, the cache is rebuilt, never read as it is; a base
	// flipped lists nothing.
	path := filepath.Join(s.tipCacheDir(ref), "state")
	b, err := os.ReadFile(path)
	must(t, err)
	b[len(b)/2] ^= 1
	must(t, os.WriteFile(path, b, 0o666))
	if _, ok := s.readTipCache(ref, e.ID); ok {
		t.Error("a cache with a flipped byte was read")
	}
	e, err = s.Save(ctx, conversation(4), storage.SaveOptions{Session: "s"})
	must(t, err)
	base := filepath.Join(s.tipCacheDir(ref), "base")
	b, err = os.ReadFile(base)
	must(t, err)
	b[len(b)/3] ^= 1
	must(t, os.WriteFile(base, b, 0o666))
	st, ok := s.readTipCache(ref, e.ID)
	if !ok {
		t.Fatal("the state does not read")
	}
	st.known.each(func(h storage.ID) { t.Errorf("a flipped base lists %s", h) })
	_, err = s.Save(ctx, conversation(5), storage.SaveOptions{Session: "s"})
	must(t, err)
	git(t, dir, "fsck", "--strict", "--no-dangling")
}
