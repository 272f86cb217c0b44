package gitstore

import (
	"context"
	"path/filepath"
	"testing"
)

// The prune → push → pull rule through a real git daemon on 127.0.0.1:
// a pruned session pushed with a lease replaces the remote's; a clone
// that had nothing newer takes it; one that went on has its new
// snapshots replayed on top; the pruner's own pull brings nothing back;
// a lease on what the remote no longer has moves nothing.
func TestPrunedSessionIsSharedNotResurrected(t *testing.T) {
	ctx := context.Background()
	srv := t.TempDir()
	git(t, srv, "init", "-q", "--bare", "shared.git")
	url := gitDaemon(t, srv) + "shared.git"
	_, a := clone(t, url)
	_, b := clone(t, url)
	_, c := clone(t, url)
	opt := RemoteOptions{}
	saveN(t, a, "s", 1, 6)
	must(t, a.Push(ctx, opt))
	for _, s := range []*Store{b, c} {
		_, err := s.Pull(ctx, opt)
		must(t, err)
	}
	saveN(t, c, "s", 7, 7) // c goes on before it hears of the prune

	_, err := a.Prune(ctx, "s", PruneOptions{KeepLast: 2})
	must(t, err)
	if err := a.Push(ctx, opt); err == nil {
		t.Fatal("a plain push of a pruned session was not refused")
	}
	res, err := a.Pull(ctx, opt)
	must(t, err)
	if res[0].Action != PullAhead || chainLen(t, a, "s") != 2 {
		t.Fatalf("the pruner's pull: %s, %d snapshots", res[0].Action, chainLen(t, a, "s"))
	}
	must(t, a.Push(ctx, RemoteOptions{ForceWithLease: true}))

	res, err = b.Pull(ctx, opt)
	must(t, err)
	if res[0].Action != PullReplaced || mustTip(t, b, "s") != mustTip(t, a, "s") {
		t.Errorf("b: %s, tip %s, want a's %s", res[0].Action, mustTip(t, b, "s"), mustTip(t, a, "s"))
	}
	res, err = c.Pull(ctx, opt)
	must(t, err)
	if res[0].Action != PullReplayed || chainLen(t, c, "s") != 3 {
		t.Fatalf("c: %s, %d snapshots, want the 2 kept and its own", res[0].Action, chainLen(t, c, "s"))
	}
	e, err := c.Entry(ctx, mustTip(t, c, "s"))
	must(t, err)
	if e.Header.Seq != 3 || e.Parent != mustTip(t, a, "s") {
		t.Errorf("c's snapshot replayed as #%d on %s, want #3 on %s", e.Header.Seq, e.Parent, mustTip(t, a, "s"))
	}
	must(t, c.Push(ctx, opt)) // now a fast-forward of the pruned history

	// b saw the remote before c pushed: its lease is stale, nothing moves.
	saveN(t, b, "s", 8, 8)
	_, err = b.Prune(ctx, "s", PruneOptions{KeepLast: 1})
	must(t, err)
	before := git(t, filepath.Join(srv, "shared.git"), "rev-parse", "refs/snap/s")
	if err := b.Push(ctx, RemoteOptions{ForceWithLease: true}); err == nil {
		t.Fatal("a lease on what the remote no longer has was not refused")
	}
	if after := git(t, filepath.Join(srv, "shared.git"), "rev-parse", "refs/snap/s"); after != before {
		t.Errorf("the remote moved from %s to %s on a refused lease", before, after)
	}
}

func chainLen(t *testing.T, s *Store, session string) int {
	t.Helper()
	chain, err := s.firstParentChain(context.Background(), mustTip(t, s, session))
	must(t, err)
	return len(chain)
}
