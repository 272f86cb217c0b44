package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// An append counts what it adds on the tally kept for its tip, reading
// no stored message: with every message of the session taken out of the
// repository, appends still write the totals their documents count. A
// kept tally that is damaged, or names another snapshot, is not used:
// the tip's document is counted instead, and the totals are the same.
func TestAppendGoesOnFromTheKeptTally(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	long, err := testdocs.Longest()
	must(t, err)
	lines := long.Lines[:400]
	appendLines := func(from, to int) storage.Entry {
		t.Helper()
		e, _, err := s.Append(ctx, storage.SaveOptions{Session: "s", Source: "claude-code"}, func(rest map[string]any) (storage.Delta, error) {
			var msgs []any
			for _, l := range lines[from:to] {
				msgs = append(msgs, agent.Element(l, snapshot.Limits{}))
			}
			return storage.Delta{Messages: msgs, Others: rest}, nil
		})
		must(t, err)
		return e
	}
	check := func(e storage.Entry) {
		t.Helper()
		doc, _, err := s.Read(ctx, e.ID)
		must(t, err)
		want := agent.CountTotals(doc, "claude-code")
		want.First, want.Last = want.First.UTC(), want.Last.UTC()
		back, err := s.Entry(ctx, e.ID)
		must(t, err)
		if !back.Header.Counted || !reflect.DeepEqual(back.Header.Totals, want) {
			t.Fatalf("#%d: the commit says\n%+v\nits document counts\n%+v", e.Header.Seq, back.Header.Totals, want)
		}
	}
	for i := 0; i < 200; i += 20 {
		check(appendLines(i, i+20))
	}
	// Take the session's messages out: the appends that follow read none.
	removed := 0
	for _, blob := range strings.Fields(git(t, dir, "ls-tree", "-r", "--object-only", "refs/snap/s", "messages")) {
		if os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])) == nil {
			removed++
		}
	}
	if _, _, err := s.Read(ctx, mustTip(t, s, "s")); err == nil {
		t.Fatal("the session still reads: its messages were not taken out")
	}
	if removed != 200 {
		t.Fatalf("%d blobs taken out", removed)
	}
	var last storage.Entry
	for i := 200; i < 300; i += 20 {
		last = appendLines(i, i+20)
		if !last.Header.Counted {
			t.Fatal("no totals")
		}
	}
	// Put them back (the same lines, in another session, are the same
	// blobs) to check what was counted.
	for i := 0; i < 300; i += 20 {
		_, _, err := s.Append(ctx, storage.SaveOptions{Session: "check", Source: "claude-code"}, func(rest map[string]any) (storage.Delta, error) {
			var msgs []any
			for _, l := range lines[i : i+20] {
				msgs = append(msgs, agent.Element(l, snapshot.Limits{}))
			}
			return storage.Delta{Messages: msgs, Others: rest}, nil
		})
		must(t, err)
	}
	check(last)

	// Damaged, or for another tip, a kept tally is counted anew.
	for _, damage := range []func(){
		func() { flipByte(t, filepath.Join(s.tallyDir(s.SessionRef("s")), "base")) },
		func() { flipByte(t, filepath.Join(s.tallyDir(s.SessionRef("s")), "state")) },
		func() {
			other, err := os.ReadFile(filepath.Join(s.tallyDir(s.SessionRef("check")), "state"))
			must(t, err)
			must(t, os.WriteFile(filepath.Join(s.tallyDir(s.SessionRef("s")), "state"), other, 0o666))
		},
	} {
		damage()
		if s.cachedTally(s.SessionRef("s"), last) != nil {
			t.Fatal("a damaged tally was read")
		}
		i := last.Header.Messages
		last = appendLines(i, i+20)
		check(last)
	}
}

func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	b[len(b)/2] ^= 1
	must(t, os.WriteFile(path, b, 0o666))
}
