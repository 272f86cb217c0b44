package gitstore

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"

	"context"
	"path/filepath"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// The prune → push → pull rule through each real server on 127.0.0.1:
// a pruned session pushed with a lease replaces the remote's; a clone
// that had nothing newer takes it; one that went on has its new
// snapshots replayed on top; the pruner's own pull brings nothing back;
// a lease on what the remote no longer has moves nothing.
func TestPrunedSessionIsSharedNotResurrected(t *testing.T) {
	eachServer(t, prunedSessionShared)
}

func prunedSessionShared(t *testing.T, url string) {
	ctx := context.Background()
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
	before := remoteSessionTip(t, b.paths.WorkTree, "s")
	if err := b.Push(ctx, RemoteOptions{ForceWithLease: true}); err == nil {
		t.Fatal("a lease on what the remote no longer has was not refused")
	}
	if after := remoteSessionTip(t, b.paths.WorkTree, "s"); after != before {
		t.Errorf("the remote moved from %s to %s on a refused lease", before, after)
	}
}

func chainLen(t *testing.T, s *Store, session string) int {
	t.Helper()
	chain, err := s.firstParentChain(context.Background(), mustTip(t, s, session))
	must(t, err)
	return len(chain)
}

// forge writes, in the attacker's repository dir, one commit for session
// with the tree and header of its own session own's tip and the given
// extra trailers, and returns it: what anyone with push access to a
// shared remote can make by hand.
func forge(t *testing.T, dir string, s *Store, own, session, extra string) string {
	t.Helper()
	tip := mustTip(t, s, own)
	msg := git(t, dir, "log", "-1", "--format=%B", tip.String())
	msg = strings.Replace(msg, "Snap-Session: "+own, "Snap-Session: "+session, 1) + "\n" + extra
	return git(t, dir, "commit-tree", tip.String()+"^{tree}", "-m", msg)
}

// TestForgedSupersedesIsMergedNotTaken: one commit whose Snap-Supersedes
// names the victim's tip, pushed to the shared remote or sent as a
// bundle, used to replace the victim's session with the attacker's
// content on the next pull. A claim proves nothing: the victim's history
// is not accounted for (its trees are not in the forged history, and no
// prune whose rules the victim can check drops it), so the two are merged
// and every local snapshot stays.
func TestForgedSupersedesIsMergedNotTaken(t *testing.T) {
	eachServer(t, forgedSupersedes)
}

// eachServer runs a sharing scenario against each real server: git
// daemon, and smart HTTP (git http-backend run by lighttpd behind basic
// auth, with receive.fsckObjects=true), each serving a new bare shared.git.
func eachServer(t *testing.T, scenario func(t *testing.T, url string)) {
	for _, server := range []string{"git-daemon", "smart-http"} {
		t.Run(server, func(t *testing.T) {
			srv := t.TempDir()
			git(t, srv, "init", "-q", "--bare", "shared.git")
			git(t, filepath.Join(srv, "shared.git"), "config", "http.receivepack", "true")
			git(t, filepath.Join(srv, "shared.git"), "config", "receive.fsckObjects", "true")
			base := map[string]func(*testing.T, string) string{"git-daemon": gitDaemon, "smart-http": httpBackend}[server](t, srv)
			scenario(t, base+"shared.git")
		})
	}
}

func forgedSupersedes(t *testing.T, url string) {
	ctx := context.Background()
	dirV, v := clone(t, url)
	dirX, x := clone(t, url)
	saveN(t, v, "s", 1, 4)
	must(t, v.Push(ctx, RemoteOptions{}))
	_, err := x.Pull(ctx, RemoteOptions{})
	must(t, err)
	victimTip := mustTip(t, v, "s")
	_, err = x.Save(ctx, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "attacker's"}}}, storage.SaveOptions{Session: "evil"})
	must(t, err)

	for _, tc := range []struct{ name, extra string }{
		{"supersedes alone", "Snap-Supersedes: " + victimTip.String() + "\n"},
		{"a prune record that keeps nothing of the victim's", "Snap-Supersedes: " + victimTip.String() + "\nSnap-Prune: " + victimTip.String() + " keep-last=1 at=2026-01-01T00:00:00Z\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forged := forge(t, dirX, x, "evil", "s", tc.extra)
			// Through the remote.
			git(t, dirX, "push", "-q", "--force", "origin", forcedShardSpec(t, dirX, "s", forged))
			local := mustTip(t, v, "s")
			res, err := v.Pull(ctx, RemoteOptions{})
			must(t, err)
			if res[0].Action != PullMerged {
				t.Errorf("pull of a forged supersession: %s, want %s", res[0].Action, PullMerged)
			}
			if ok, err := v.isAncestor(ctx, local, mustTip(t, v, "s")); err != nil || !ok {
				t.Errorf("the victim's snapshots are no longer in its session")
			}
			doc, _, err := v.Read(ctx, mustTip(t, v, "s"))
			must(t, err)
			if n := len(doc["messages"].([]any)); n < 4 {
				t.Errorf("the session holds %d messages after the pull, want the victim's 4 and more", n)
			}
			git(t, dirV, "fsck", "--strict", "--no-dangling")

			// Through a bundle.
			_, w := newRepo(t)
			saveN(t, w, "s", 1, 2)
			wTip := mustTip(t, w, "s")
			git(t, dirX, "update-ref", "refs/snap/s", forgedOn(t, dirX, x, wTip, tc.extra, "s"))
			var bundle bytes.Buffer
			_, err = x.WriteBundle(ctx, &bundle, []string{"refs/snap/s"})
			must(t, err)
			_ = w // the bundle's forged commit names w's tip, which w holds
			res, err = w.ImportBundle(ctx, &bundle)
			must(t, err)
			if res[0].Action != PullMerged {
				t.Errorf("import of a forged bundle: %s, want %s", res[0].Action, PullMerged)
			}
			if ok, err := w.isAncestor(ctx, wTip, mustTip(t, w, "s")); err != nil || !ok {
				t.Errorf("the bundle's claim dropped the local snapshots")
			}
		})
	}
}

// forgedOn is forge with Snap-Supersedes naming victim instead of what
// extra names.
func forgedOn(t *testing.T, dir string, s *Store, victim storage.ID, extra, session string) string {
	t.Helper()
	fields := strings.Fields(extra)
	for i, f := range fields {
		if storage.IsID(f) {
			fields[i] = victim.String()
		}
	}
	re := strings.NewReplacer("Snap-Supersedes:", "\nSnap-Supersedes:", "Snap-Prune:", "\nSnap-Prune:")
	return forge(t, dir, s, "evil", session, strings.TrimSpace(re.Replace(strings.Join(fields, " ")))+"\n")
}

// TestPulledHeadersAreChecked: header trailers from outside are checked
// against the documents they describe before anything trusts them. A
// pulled one-message snapshot saying Snap-Counted with 10^12 input
// tokens made stats report them; a snapshot numbered #1000 on no parent
// would have sorted before all its session's history.
func TestPulledHeadersAreChecked(t *testing.T) {
	ctx := context.Background()
	srv := t.TempDir()
	git(t, srv, "init", "-q", "--bare", "shared.git")
	url := gitDaemon(t, srv) + "shared.git"
	_, v := clone(t, url)
	dirX, x := clone(t, url)
	_, err := x.Save(ctx, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "one"}}}, storage.SaveOptions{Session: "own"})
	must(t, err)
	if e, _ := x.Entry(ctx, mustTip(t, x, "own")); !e.Header.Counted {
		t.Fatal("the store does not count: the test checks nothing")
	}
	for _, tc := range []struct{ name, from, to string }{
		{"totals", "Snap-Counted: true", "Snap-Counted: true\nSnap-Input-Tokens: 1000000000000"},
		{"counts", "Snap-Messages: 1", "Snap-Messages: 7"},
		{"sequence", "Snap-Seq: 1", "Snap-Seq: 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tip := mustTip(t, x, "own")
			msg := git(t, dirX, "log", "-1", "--format=%B", tip.String())
			if !strings.Contains(msg, tc.from) {
				t.Fatalf("no %q in\n%s", tc.from, msg)
			}
			msg = strings.Replace(msg, tc.from, tc.to, 1)
			forged := git(t, dirX, "commit-tree", tip.String()+"^{tree}", "-m", msg)
			git(t, dirX, "push", "-q", "--force", "origin", forged+":refs/snap/forged")
			_, err := v.Pull(ctx, RemoteOptions{})
			var in *IncomingError
			if !errors.As(err, &in) {
				t.Fatalf("pull of a forged %s trailer: %v, want an IncomingError", tc.name, err)
			}
			if tip, _ := v.SessionTip("forged"); !tip.IsZero() {
				t.Errorf("the forged session was taken in")
			}
		})
	}
}

// TestControlCharactersNeverReachAHeader: a NUL in a hook's event or tool
// name landed in the Snap-Label trailer; git fsck --strict reported
// nulInCommit and every later push to a remote with receive.fsckObjects
// was refused. Control characters become spaces at the boundary, in a
// commit's subject and trailers and in a checkpoint's tag message.
func TestControlCharactersNeverReachAHeader(t *testing.T) {
	eachServer(t, controlCharacters)
}

func controlCharacters(t *testing.T, url string) {
	ctx := context.Background()
	dir, s := clone(t, url)
	e, err := s.Save(ctx, conversation(2), storage.SaveOptions{Session: "s", Label: "PostToolUse\x00 Ed\x01it\x7f", Message: "done\x00\x1b[31m", Source: "claude\x00code"})
	must(t, err)
	if e.Header.Label != "PostToolUse Ed it" {
		t.Errorf("label read back as %q", e.Header.Label)
	}
	_, err = s.SetCheckpoint(ctx, "green", e.ID, "passes\x00 now\nsecond line\x07", false)
	must(t, err)
	git(t, dir, "fsck", "--strict", "--no-dangling")
	must(t, s.Push(ctx, RemoteOptions{}))
	if got := remoteSessionTip(t, dir, "s"); got != e.ID.String() {
		t.Errorf("the remote holds %q, want %s", got, e.ID)
	}
	// The server does check: a commit with a NUL, made by hand, is refused,
	// and for that NUL (not for want of a password or a server).
	tree := git(t, dir, "rev-parse", e.ID.String()+"^{tree}")
	cmd := exec.Command("sh", "-c", `printf 'tree %s\nauthor a <a@b> 1 +0000\ncommitter a <a@b> 1 +0000\n\nx\0y\n' "$1" | git hash-object -t commit -w --literally --stdin`, "sh", tree)
	cmd.Dir = dir
	out, err := cmd.Output()
	must(t, err)
	bad := strings.TrimSpace(string(out))
	push := exec.Command("git", "push", "-q", "origin", bad+":refs/snap/bad")
	push.Dir = dir
	if out, err := push.CombinedOutput(); err == nil {
		t.Errorf("the server took a commit with a NUL: receive.fsckObjects is not on\n%s", out)
	} else if !strings.Contains(string(out), "nulInCommit") {
		t.Errorf("the push of a commit with a NUL failed, but not on the server's fsck: %v\n%s", err, out)
	}
}

// TestPrunedMergeIsPulled: a prune keeps a merge snapshot's other parent
// as it was, numbered as it was, so a kept merge is numbered below that
// parent. The header check of incoming snapshots takes that as a writer
// makes it: a fresh clone pulls the pruned history.
func TestPrunedMergeIsPulled(t *testing.T) {
	ctx := context.Background()
	srv := t.TempDir()
	git(t, srv, "init", "-q", "--bare", "shared.git")
	url := filepath.Join(srv, "shared.git")
	_, a := clone(t, url)
	_, b := clone(t, url)
	saveN(t, a, "s", 1, 2)
	must(t, a.Push(ctx, RemoteOptions{}))
	_, err := b.Pull(ctx, RemoteOptions{})
	must(t, err)
	saveN(t, a, "s", 3, 5)
	must(t, a.Push(ctx, RemoteOptions{}))
	saveN(t, b, "s", 6, 6)
	res, err := b.Pull(ctx, RemoteOptions{})
	must(t, err)
	if res[0].Action != PullMerged {
		t.Fatalf("b's pull: %s", res[0].Action)
	}
	_, err = b.Prune(ctx, "s", PruneOptions{KeepLast: 1})
	must(t, err)
	must(t, b.Push(ctx, RemoteOptions{ForceWithLease: true}))
	_, c := clone(t, url)
	res, err = c.Pull(ctx, RemoteOptions{})
	must(t, err)
	if res[0].Action != PullCreated || mustTip(t, c, "s") != mustTip(t, b, "s") {
		t.Errorf("a fresh clone's pull of the pruned merge: %+v", res[0])
	}
}

// TestOwnSnapshotsNeverLeaveForAClaimFromOutside: the victim's session
// was never pushed; its bundle went to someone (to reproduce a bug),
// who pruned their copy with the real prune (so its Snap-Supersedes and
// Snap-Prune records check out against the victim's own chain, and
// every tree the prune kept is there) and added a snapshot of their own.
// Sent back as a bundle, or pulled from a remote the victim never shared
// the session with, that history replaced the victim's: its own
// snapshots left its first-parent history. Only what the source had
// before may a pruned history take back: here the two are merged, the
// victim's chain first.
func TestOwnSnapshotsNeverLeaveForAClaimFromOutside(t *testing.T) {
	ctx := context.Background()
	_, v := newRepo(t)
	saveN(t, v, "s", 1, 4)
	own, err := v.firstParentChain(ctx, mustTip(t, v, "s"))
	must(t, err)
	var out bytes.Buffer
	_, err = v.WriteBundle(ctx, &out, []string{"refs/snap/s"})
	must(t, err)

	dirX, x := newRepo(t)
	_, err = x.ImportBundle(ctx, bytes.NewReader(out.Bytes()))
	must(t, err)
	_, err = x.Prune(ctx, "s", PruneOptions{KeepLast: 1})
	must(t, err)
	_, err = x.Save(ctx, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "the attacker's prompt"}}}, storage.SaveOptions{Session: "s"})
	must(t, err)
	var evil bytes.Buffer
	_, err = x.WriteBundle(ctx, &evil, []string{"refs/snap/s"})
	must(t, err)
	bare := filepath.Join(t.TempDir(), "x.git")
	git(t, dirX, "init", "-q", "--bare", bare)
	git(t, dirX, "push", "-q", bare, "refs/snap/s:refs/snap/s")

	check := func(how string, res []PullResult) {
		t.Helper()
		if res[0].Action != PullMerged {
			t.Errorf("%s: %s, want %s", how, res[0].Action, PullMerged)
		}
		chain, err := v.firstParentChain(ctx, mustTip(t, v, "s"))
		must(t, err)
		on := map[storage.ID]bool{}
		for _, e := range chain {
			on[e.ID] = true
		}
		for _, e := range own {
			if !on[e.ID] {
				t.Errorf("%s: the victim's snapshot #%d %s left its first-parent history", how, e.Header.Seq, short(e.ID))
			}
		}
	}
	evilBundle := evil.Bytes()
	res, err := v.ImportBundle(ctx, bytes.NewReader(evilBundle))
	must(t, err)
	check("a bundle", res)

	// The victim went on after sharing: its later snapshot was replayed
	// onto the attacker's, and the ones before dropped.
	_, v3 := newRepo(t)
	_, err = v3.ImportBundle(ctx, bytes.NewReader(out.Bytes()))
	must(t, err)
	saveN(t, v3, "s", 5, 5)
	v = v3
	own, err = v.firstParentChain(ctx, mustTip(t, v, "s"))
	must(t, err)
	res, err = v.ImportBundle(ctx, bytes.NewReader(evilBundle))
	must(t, err)
	check("a bundle, the victim having gone on", res)

	_, v2 := newRepo(t)
	_, err = v2.ImportBundle(ctx, bytes.NewReader(out.Bytes()))
	must(t, err)
	v = v2
	own, err = v.firstParentChain(ctx, mustTip(t, v, "s"))
	must(t, err)
	git(t, v.paths.WorkTree, "remote", "add", "x", bare)
	res, err = v.Pull(ctx, RemoteOptions{Remote: "x"})
	must(t, err)
	check("a pull", res)
}
