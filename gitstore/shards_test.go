package gitstore

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// These helpers read and forge a remote's shards with git alone, so that
// tests check what the store writes against git's view of it.

// testShard names the shard ref of session, computed apart from shardOf.
func testShard(session string) string {
	h := sha1.Sum([]byte(session))
	return fmt.Sprintf("refs/snap-shards/%02x", h[0]%64)
}

// gitIn runs git in dir with stdin, and returns its trimmed output.
func gitIn(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// remoteShardLines fetches origin's shard of session into the clone at
// dir and returns its lines, none when the remote has no such shard.
func remoteShardLines(t testing.TB, dir, session string) []string {
	t.Helper()
	ref := testShard(session)
	if git(t, dir, "ls-remote", "origin", ref) == "" {
		return nil
	}
	git(t, dir, "fetch", "-q", "--no-write-fetch-head", "origin", "+"+ref+":refs/test-shards/"+session)
	text := git(t, dir, "cat-file", "-p", "refs/test-shards/"+session+":sessions")
	return strings.Split(text, "\n")
}

// remoteSessionTip is the tip origin's shard lists for session, "" for
// none.
func remoteSessionTip(t testing.TB, dir, session string) string {
	t.Helper()
	for _, line := range remoteShardLines(t, dir, session) {
		if id, name, _ := strings.Cut(line, " "); name == session {
			return id
		}
	}
	return ""
}

// forcedShardSpec is a refspec that, pushed with --force from dir, makes
// origin list session at tip: what a hostile clone can do.
func forcedShardSpec(t testing.TB, dir, session, tip string) string {
	t.Helper()
	lines := []string{tip + " " + session}
	for _, line := range remoteShardLines(t, dir, session) {
		if _, name, _ := strings.Cut(line, " "); name != session {
			lines = append(lines, line)
		}
	}
	sort.Slice(lines, func(i, j int) bool { return strings.Fields(lines[i])[1] < strings.Fields(lines[j])[1] })
	blob := gitIn(t, dir, strings.Join(lines, "\n")+"\n", "hash-object", "-w", "--stdin")
	tree := gitIn(t, dir, "100644 blob "+blob+"\tsessions\n", "mktree")
	args := []string{"commit-tree", tree, "-m", "forged"}
	for _, line := range lines {
		args = append(args, "-p", strings.Fields(line)[0])
	}
	return git(t, dir, args...) + ":" + testShard(session)
}

// sessionsInShard names n sessions that all hash to the shard of first.
func sessionsInShard(first string, n int) []string {
	out := []string{first}
	for i := 0; len(out) < n; i++ {
		if name := fmt.Sprintf("%s-%d", first, i); testShard(name) == testShard(first) {
			out = append(out, name)
		}
	}
	return out
}

// TestRemoteHoldsShardsNotSessions: a push of many sessions leaves the
// remote at most 64 refs for them, each session's tip listed where git
// finds it and its history complete there; another clone pulls them all.
func TestRemoteHoldsShardsNotSessions(t *testing.T) {
	ctx := context.Background()
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	dirA, a := clone(t, bare)
	for i := range 150 {
		saveN(t, a, fmt.Sprintf("s%03d", i), 1, 1+i%3)
	}
	must(t, a.Push(ctx, RemoteOptions{}))
	refs := strings.Split(git(t, bare, "for-each-ref", "--format=%(refname)"), "\n")
	if len(refs) > 64 {
		t.Errorf("the remote holds %d refs for 150 sessions, want at most 64", len(refs))
	}
	for _, ref := range refs {
		if !strings.HasPrefix(ref, "refs/snap-shards/") {
			t.Errorf("the remote holds %s", ref)
		}
	}
	for _, name := range []string{"s000", "s077", "s149"} {
		if got, want := remoteSessionTip(t, dirA, name), mustTip(t, a, name).String(); got != want {
			t.Errorf("the remote lists %s at %q, want %s", name, got, want)
		}
	}
	git(t, bare, "fsck", "--strict", "--no-dangling")
	_, b := clone(t, bare)
	res, err := b.Pull(ctx, RemoteOptions{})
	must(t, err)
	if len(res) != 150 {
		t.Fatalf("pull brought %d sessions, want 150", len(res))
	}
	if mustTip(t, b, "s149") != mustTip(t, a, "s149") {
		t.Error("s149 differs after the pull")
	}
}

// TestPushesToOneShardAtOnce: clones pushing sessions of the same shard
// at the same moment race on that shard's ref; each loser fetches and
// tries again, and every session ends up listed.
func TestPushesToOneShardAtOnce(t *testing.T) {
	ctx := context.Background()
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	names := sessionsInShard("race", 4)
	stores := make([]*Store, len(names))
	dirs := make([]string, len(names))
	for i, name := range names {
		dirs[i], stores[i] = clone(t, bare)
		saveN(t, stores[i], name, 1, 2)
	}
	errs := make(chan error, len(names))
	for _, s := range stores {
		go func() { errs <- s.Push(ctx, RemoteOptions{}) }()
	}
	for range names {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for i, name := range names {
		if got := remoteSessionTip(t, dirs[0], name); got != mustTip(t, stores[i], name).String() {
			t.Errorf("the remote lists %s at %q after the race", name, got)
		}
	}
}

// TestForgedShardsAreRefused: a shard no git-snap wrote (a hostile or
// broken clone's) fails the fetch with what is wrong, and no session ref
// moves.
func TestForgedShardsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		parent     bool // the listed tip is a parent of the shard commit
		want       string
	}{
		{"climbs out", "%s ../../heads/main\n", true, "may hold only"},
		{"another shard's session", "%s s1-elsewhere\n", true, "belongs in shard"},
		{"upper-case id", "%S s1\n", true, "is not \"<tip> <session>\""},
		{"no final newline", "%s s1", true, "is not \"<tip> <session>\""},
		{"listed twice", "%s s1\n%s s1\n", true, "out of order or listed twice"},
		{"a tip the commit does not carry", "%s s1\n", false, "is not here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			bare := t.TempDir()
			git(t, bare, "init", "-q", "--bare")
			dirX, x := clone(t, bare)
			saveN(t, x, "s1", 1, 2)
			must(t, x.Push(ctx, RemoteOptions{}))
			tip := mustTip(t, x, "s1").String()
			text := strings.ReplaceAll(strings.ReplaceAll(tc.text, "%S", strings.ToUpper(tip)), "%s", tip)
			blob := gitIn(t, dirX, text, "hash-object", "-w", "--stdin")
			tree := gitIn(t, dirX, "100644 blob "+blob+"\tsessions\n", "mktree")
			args := []string{"commit-tree", tree, "-m", "forged"}
			if tc.parent {
				args = append(args, "-p", tip)
			}
			git(t, dirX, "push", "-q", "--force", "origin", git(t, dirX, args...)+":"+testShard("s1"))
			dirV, v := clone(t, bare)
			_, err := v.Pull(ctx, RemoteOptions{})
			var in *IncomingError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("pull: %v, want an IncomingError saying %q", err, tc.want)
			}
			if refs := git(t, dirV, "for-each-ref", "refs/snap/", "refs/remotes/origin/"); refs != "" {
				t.Errorf("refs after a refused pull:\n%s", refs)
			}
		})
	}
}

// TestMigrateRemote: a remote with one ref per session, as versions
// before pushed, keeps working until it is moved; the move leaves only
// shards and checkpoints, and a clone still reading the old refs finds
// its sessions; what an older version pushes afterwards is moved by a
// second run.
func TestMigrateRemote(t *testing.T) {
	ctx := context.Background()
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	dirOld, old := clone(t, bare)
	saveN(t, old, "s1", 1, 2)
	saveN(t, old, "s2", 1, 1)
	_, err := old.SetCheckpoint(ctx, "first", mustTip(t, old, "s1"), "", false)
	must(t, err)
	git(t, dirOld, "push", "-q", "origin", "refs/snap/*:refs/snap/*", "refs/snap-tags/*:refs/snap-tags/*")

	// A clone of this version fetches them, and pushes in kind.
	dirA, a := clone(t, bare)
	_, err = a.Pull(ctx, RemoteOptions{})
	must(t, err)
	saveN(t, a, "s1", 3, 3)
	must(t, a.Push(ctx, RemoteOptions{}))
	if got := git(t, bare, "rev-parse", "refs/snap/s1"); got != mustTip(t, a, "s1").String() {
		t.Errorf("push to a remote of session refs: refs/snap/s1 at %s", got)
	}
	if got := git(t, bare, "for-each-ref", ShardPrefix); got != "" {
		t.Errorf("push to a remote of session refs made shards:\n%s", got)
	}

	if old, err := a.KeepsRefPerSession("origin"); err != nil || !old {
		t.Errorf("before the move: KeepsRefPerSession = %v, %v", old, err)
	}
	dry, err := a.MigrateRemote(ctx, RemoteOptions{}, true)
	must(t, err)
	if dry.Moved != 2 || git(t, bare, "for-each-ref", ShardPrefix) != "" {
		t.Errorf("a dry run: %+v, and the remote holds shards", dry)
	}
	res, err := a.MigrateRemote(ctx, RemoteOptions{}, false)
	must(t, err)
	if old, err := a.KeepsRefPerSession("origin"); err != nil || old {
		t.Errorf("after the move: KeepsRefPerSession = %v, %v", old, err)
	}
	if res.Moved != 2 || len(res.Diverged) != 0 {
		t.Errorf("migrate: %+v, want 2 moved", res)
	}
	if got := git(t, bare, "for-each-ref", "--format=%(refname)", "refs/snap/", "refs/snap-tags/"); got != "refs/snap-tags/s1/first" {
		t.Errorf("after the move the remote holds:\n%s", got)
	}
	if got := remoteSessionTip(t, dirA, "s1"); got != mustTip(t, a, "s1").String() {
		t.Errorf("s1's shard lists %q", got)
	}

	// The old clone, an older version still, pushes a session of its own.
	saveN(t, old, "s3", 1, 1)
	git(t, dirOld, "push", "-q", "origin", "refs/snap/s3:refs/snap/s3")
	res, err = a.MigrateRemote(ctx, RemoteOptions{}, false)
	must(t, err)
	if res.Moved != 1 || git(t, bare, "for-each-ref", "refs/snap/") != "" {
		t.Errorf("second migrate: %+v, the remote keeps %q", res, git(t, bare, "for-each-ref", "refs/snap/"))
	}
	_, b := clone(t, bare)
	pulled, err := b.Pull(ctx, RemoteOptions{})
	must(t, err)
	if len(pulled) != 3 || mustTip(t, b, "s3") != mustTip(t, old, "s3") {
		t.Errorf("a new clone pulled %v", pulled)
	}
}

// TestTwoFetchesAndPushesAtOnce: one clone running two fetches, then two
// pushes, at the same moment ends with the remote's tips, and the remote
// with its own.
func TestTwoFetchesAndPushesAtOnce(t *testing.T) {
	ctx := context.Background()
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	dirA, a := clone(t, bare)
	for i := range 20 {
		saveN(t, a, fmt.Sprintf("s%02d", i), 1, 2)
	}
	must(t, a.Push(ctx, RemoteOptions{}))
	_, b := clone(t, bare)
	twice := func(f func() error) {
		errs := make(chan error, 2)
		for range 2 {
			go func() { errs <- f() }()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	}
	twice(func() error { return b.Fetch(ctx, RemoteOptions{}) })
	tips, err := b.RemoteTips("origin")
	must(t, err)
	if len(tips) != 20 || tips["s07"] != mustTip(t, a, "s07") {
		t.Errorf("after two fetches at once: %d sessions, s07 at %s", len(tips), tips["s07"])
	}
	saveN(t, a, "s07", 3, 3)
	saveN(t, a, "new", 1, 1)
	twice(func() error { return a.Push(ctx, RemoteOptions{}) })
	for _, name := range []string{"s07", "new"} {
		if got := remoteSessionTip(t, dirA, name); got != mustTip(t, a, name).String() {
			t.Errorf("after two pushes at once the remote lists %s at %q", name, got)
		}
	}
}

// TestShardListIsBounded: a shard listing more sessions than any team
// makes is refused before a ref is written for any.
func TestShardListIsBounded(t *testing.T) {
	line := strings.Repeat("a", 40) + " s\n"
	_, err := parseShardList("00", []byte(strings.Repeat(line, maxShardSessions+1)))
	if err == nil || !strings.Contains(err.Error(), "more than the 262144 a shard may hold") {
		t.Errorf("parse of %d lines: %v", maxShardSessions+1, err)
	}
}

// TestMigrateRemoteMergesWhatDiverged: a session an older version pushed
// to its own ref after the move, on history the shard moved on from, is
// merged into the local session, stays at the remote until the merge is
// pushed, and moves on the next run.
func TestMigrateRemoteMergesWhatDiverged(t *testing.T) {
	ctx := context.Background()
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	dirOld, old := clone(t, bare)
	saveN(t, old, "s1", 1, 1)
	git(t, dirOld, "push", "-q", "origin", "refs/snap/*:refs/snap/*")
	_, a := clone(t, bare)
	_, err := a.Pull(ctx, RemoteOptions{})
	must(t, err)
	_, err = a.MigrateRemote(ctx, RemoteOptions{}, false)
	must(t, err)
	saveN(t, a, "s1", 2, 2)
	must(t, a.Push(ctx, RemoteOptions{}))
	saveN(t, old, "s1", 3, 3) // on s1#1: apart from a's #2
	git(t, dirOld, "push", "-q", "origin", "refs/snap/s1:refs/snap/s1")
	oldTip := mustTip(t, old, "s1")

	res, err := a.MigrateRemote(ctx, RemoteOptions{}, false)
	must(t, err)
	if res.Moved != 0 || len(res.Diverged) != 1 || res.Diverged[0] != "s1" {
		t.Fatalf("migrate of a diverged session: %+v", res)
	}
	if ok, err := a.isAncestor(ctx, oldTip, mustTip(t, a, "s1")); err != nil || !ok {
		t.Errorf("the older version's snapshot is not in the local session after the migration")
	}
	if git(t, bare, "rev-parse", "refs/snap/s1") != oldTip.String() {
		t.Error("the diverged session's own ref did not stay at the remote")
	}
	must(t, a.Push(ctx, RemoteOptions{}))
	res, err = a.MigrateRemote(ctx, RemoteOptions{}, false)
	must(t, err)
	if res.Moved != 1 || len(res.Diverged) != 0 || git(t, bare, "for-each-ref", "refs/snap/") != "" {
		t.Errorf("migrate after the merge was pushed: %+v", res)
	}
}

// TestNamedFetchLeavesNoSessionBehind: a fetch of one session brings its
// shard; a later fetch of all, which passes over shards that did not
// move, still finds the shard's other sessions.
func TestNamedFetchLeavesNoSessionBehind(t *testing.T) {
	ctx := context.Background()
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	_, a := clone(t, bare)
	names := sessionsInShard("named", 2)
	for _, name := range names {
		saveN(t, a, name, 1, 1)
	}
	must(t, a.Push(ctx, RemoteOptions{}))
	_, b := clone(t, bare)
	must(t, b.Fetch(ctx, RemoteOptions{Sessions: names[:1]}))
	must(t, b.Fetch(ctx, RemoteOptions{}))
	tips, err := b.RemoteTips("origin")
	must(t, err)
	for _, name := range names {
		if tips[name] != mustTip(t, a, name) {
			t.Errorf("after a named fetch and a full one, %s is at %s", name, tips[name])
		}
	}
	if err := b.Fetch(ctx, RemoteOptions{Sessions: []string{"nosuch"}}); err == nil || !strings.Contains(err.Error(), "it has no session nosuch") {
		t.Errorf("fetch of a session the remote lacks: %v", err)
	}
}
