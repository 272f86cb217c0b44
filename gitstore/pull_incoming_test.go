package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// A pull reads what its fetch brought beyond the history each session
// holds here, not every session's whole history again: a remote of 100k
// sessions with one new one costs about what git fetch does. What it
// brings is checked as fully as ever, also when it sits on top of
// history checked before.

// pullPair is a bare remote, a clone x that writes to it as anyone with
// push access can, and a clone v that pulls from it.
type pullPair struct {
	remote, dirX, dirV string
	x, v               *Store
}

// newPullPair makes the pair, and has v pull session s1 (two snapshots,
// saved and pushed by x): from then on v holds s1's history as checked.
func newPullPair(t *testing.T) pullPair {
	t.Helper()
	ctx := context.Background()
	p := pullPair{remote: t.TempDir()}
	git(t, p.remote, "init", "-q", "--bare")
	p.dirX, p.x = clone(t, p.remote)
	p.dirV, p.v = clone(t, p.remote)
	git(t, p.dirV, "config", "fetch.unpackLimit", "1000000") // objects stay loose, one file each
	saveN(t, p.x, "s1", 1, 2)
	must(t, p.x.Push(ctx, RemoteOptions{}))
	res, err := p.v.Pull(ctx, RemoteOptions{})
	must(t, err)
	if len(res) != 1 || res[0].Action != PullCreated {
		t.Fatalf("first pull: %+v, want s1 created", res)
	}
	return p
}

// TestSecondPullReadsOnlyWhatItBrought: once v holds s1, a pull that
// brings one more snapshot of s1 and a new session reads those, not s1's
// older history. An object of s1's first snapshot is taken away from v
// to show it: a pull that read that history again would fail on it.
func TestSecondPullReadsOnlyWhatItBrought(t *testing.T) {
	ctx := context.Background()
	p := newPullPair(t)
	tree := git(t, p.dirV, "rev-parse", "refs/snap/s1~1^{tree}")
	obj := filepath.Join(p.dirV, ".git", "objects", tree[:2], tree[2:])
	must(t, os.Remove(obj))

	saveN(t, p.x, "s1", 3, 3)
	_, err := p.x.Save(ctx, mustParse(t, `{"messages":[{"id":"z","content":"only in s2"}]}`), storage.SaveOptions{Session: "s2"})
	must(t, err)
	must(t, p.x.Push(ctx, RemoteOptions{}))
	v := openStore(t, p.dirV) // nothing of s1 cached from the first pull
	res, err := v.Pull(ctx, RemoteOptions{})
	must(t, err)
	if _, err := os.Stat(obj); err == nil {
		t.Fatal("the fetch brought the object back: the test shows nothing")
	}
	got := map[string]string{}
	for _, r := range res {
		got[r.Session] = r.Action
	}
	if got["s1"] != PullFastForward || got["s2"] != PullCreated || len(got) != 2 {
		t.Errorf("second pull: %v, want s1 fast-forward and s2 created", got)
	}
	if here, there := mustTip(t, v, "s1"), mustTip(t, p.x, "s1"); here != there {
		t.Errorf("s1 is at %s here, %s on the remote", here, there)
	}

	// Nothing new: every session is up to date, and nothing is read.
	res, err = openStore(t, p.dirV).Pull(ctx, RemoteOptions{})
	must(t, err)
	for _, r := range res {
		if r.Action != PullUpToDate {
			t.Errorf("third pull: %s %s, want %s", r.Session, r.Action, PullUpToDate)
		}
	}
}

// TestSecondPullRefusesWhatItBringsOnCheckedHistory: what a later fetch
// brings on top of history v checked before (or in place of it, or under
// a new name, or as a checkpoint) is checked as a first pull checks it,
// whether the pull fetches it itself or a git snap fetch brought it
// before. Nothing local moves.
func TestSecondPullRefusesWhatItBringsOnCheckedHistory(t *testing.T) {
	for _, tc := range []struct {
		name string
		push func(t *testing.T, p pullPair) []string // refspecs to force onto the remote
	}{
		{"forged counts on top", func(t *testing.T, p pullPair) []string {
			return []string{forcedShardSpec(t, p.dirX, "s1", forgedChild(t, p, "s1", "refs/snap/s1~1", "Snap-Messages: 3", "Snap-Messages: 9"))}
		}},
		{"forged sequence number on top", func(t *testing.T, p pullPair) []string {
			return []string{forcedShardSpec(t, p.dirX, "s1", forgedChild(t, p, "s1", "refs/snap/s1~1", "Snap-Seq: 3", "Snap-Seq: 1000"))}
		}},
		{"forged totals on top", func(t *testing.T, p pullPair) []string {
			return []string{forcedShardSpec(t, p.dirX, "s1", forgedChild(t, p, "s1", "refs/snap/s1~1", "Snap-Counted: true", "Snap-Counted: true\nSnap-Input-Tokens: 1000000000000"))}
		}},
		{"an ordinary commit on top", func(t *testing.T, p pullPair) []string {
			return []string{forcedShardSpec(t, p.dirX, "s1", git(t, p.dirX, "commit-tree", "HEAD^{tree}", "-p", "refs/snap/s1~1", "-m", "not a snapshot"))}
		}},
		{"a forged snapshot under a good one", func(t *testing.T, p pullPair) []string {
			bad := forgedChild(t, p, "s1", "refs/snap/s1~1", "Snap-Messages: 3", "Snap-Messages: 9")
			msg := strings.Replace(git(t, p.dirX, "log", "-1", "--format=%B", "refs/snap/s1"), "Snap-Seq: 3", "Snap-Seq: 4", 1)
			good := git(t, p.dirX, "commit-tree", "refs/snap/s1^{tree}", "-p", bad, "-m", msg)
			return []string{forcedShardSpec(t, p.dirX, "s1", good)}
		}},
		{"a rewritten history with a forged snapshot", func(t *testing.T, p pullPair) []string {
			msg := strings.Replace(git(t, p.dirX, "log", "-1", "--format=%B", "refs/snap/s1~1"), "Snap-Messages: 2", "Snap-Messages: 9", 1)
			return []string{forcedShardSpec(t, p.dirX, "s1", git(t, p.dirX, "commit-tree", "refs/snap/s1~1^{tree}", "-p", "refs/snap/s1~2", "-m", msg))}
		}},
		{"a new session on checked history", func(t *testing.T, p pullPair) []string {
			return []string{forcedShardSpec(t, p.dirX, "other", forgedChild(t, p, "other", "refs/snap/s1~1", "Snap-Messages: 3", "Snap-Messages: 9"))}
		}},
		{"a checkpoint of a forged snapshot", func(t *testing.T, p pullPair) []string {
			bad := forgedChild(t, p, "s1", "refs/snap/s1~1", "Snap-Messages: 3", "Snap-Messages: 9")
			git(t, p.dirX, "tag", "-a", "-m", "evil", "snap/s1/evil", bad)
			return []string{"refs/tags/snap/s1/evil:refs/tags/snap/s1/evil"}
		}},
	} {
		for _, fetchFirst := range []bool{false, true} {
			name := tc.name
			if fetchFirst {
				name += ", fetched before"
			}
			t.Run(name, func(t *testing.T) {
				ctx := context.Background()
				p := newPullPair(t)
				saveN(t, p.x, "s1", 3, 3) // x's own next snapshot, never pushed: the forgeries' material
				git(t, p.dirX, append([]string{"push", "-q", "--force", "origin"}, tc.push(t, p)...)...)
				refs := []string{"refs/snap", "refs/snap-tags", "refs/tags", "refs/heads"}
				before := git(t, p.dirV, append([]string{"for-each-ref"}, refs...)...)
				if fetchFirst {
					must(t, p.v.Fetch(ctx, RemoteOptions{}))
				}
				_, err := p.v.Pull(ctx, RemoteOptions{})
				var in *IncomingError
				if !errors.As(err, &in) {
					t.Fatalf("pull: err = %v, want an IncomingError", err)
				}
				if after := git(t, p.dirV, append([]string{"for-each-ref"}, refs...)...); after != before {
					t.Errorf("refs moved:\nbefore\n%s\nafter\n%s", before, after)
				}
			})
		}
	}
}

// forgedChild writes, in x, a commit of session named session whose
// tree and header are those of x's unpushed third snapshot of s1 with
// from replaced by to, on parent (the second, which v holds): a snapshot
// that would be numbered and counted right but for the change.
func forgedChild(t *testing.T, p pullPair, session, parent, from, to string) string {
	t.Helper()
	msg := git(t, p.dirX, "log", "-1", "--format=%B", "refs/snap/s1")
	if !strings.Contains(msg, from) {
		t.Fatalf("no %q in\n%s", from, msg)
	}
	msg = strings.Replace(msg, from, to, 1)
	msg = strings.Replace(msg, "Snap-Session: s1\n", "Snap-Session: "+session+"\n", 1)
	return git(t, p.dirX, "commit-tree", "refs/snap/s1^{tree}", "-p", parent, "-m", msg)
}
