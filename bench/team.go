//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// teamRows time what a team's own git does against a remote holding 100k
// sessions (10k with -quick), paired with the same against a remote of
// the same code and no sessions: a code push from a clone without
// sessions and from one that fetched them, and a code fetch and a clone
// over protocol v0 and v2. The sessions are pushed as git snap pushes
// them now (shards); the same rows for a remote of one ref per session,
// as versions before pushed them, show what the shards save.
func (b *bench) teamRows(context.Context) ([]row, error) {
	n := map[bool]int{true: 10000, false: 100000}[b.cfg.quick]
	t, err := b.teamSetup(n)
	if err != nil {
		return nil, err
	}
	rows := []row{
		{what: fmt.Sprintf("first push of %d sessions to an empty remote", n), ours: t.firstPush, note: "one run, for scale"},
		{what: fmt.Sprintf("first fetch of a remote of %d sessions", n), ours: t.firstFetch, note: "one run, for scale"},
	}
	for _, layout := range []struct{ name, remote string }{{"shards", t.shards}, {"one ref per session", t.refs}} {
		for _, c := range t.cases(layout.remote) {
			logf("team remote of %d sessions (%s): %s", n, layout.name, c.what)
			p, err := pairRuns(min(b.cfg.runs, 11), c.with, c.without)
			if err != nil {
				return rows, err
			}
			r := row{what: fmt.Sprintf("%s, remote of %d sessions as %s", c.what, n, layout.name)}
			if layout.remote == t.shards {
				r.kind = kindTeam
			}
			rows = append(rows, p.fill(r))
		}
	}
	return rows, nil
}

// team is the benchmark's team: three bare remotes of the same code, one
// without sessions, one with n sessions in shards and one with them in a
// ref each, and a clone that pushes code to all three.
type team struct {
	b                     *bench
	dir                   string
	plain, shards, refs   string // the remotes
	pusher                string // a code clone with each remote as a remote of its name
	none, fetched         string // code clones: no sessions; the shards' sessions fetched
	commits               int
	firstPush, firstFetch time.Duration // the sessions\' first push and fetch, one run each
}

// teamSetup makes the remotes and clones.
func (b *bench) teamSetup(n int) (*team, error) {
	t := &team{b: b, dir: filepath.Join(b.work, "team")}
	t.plain, t.shards, t.refs = filepath.Join(t.dir, "plain.git"), filepath.Join(t.dir, "shards.git"), filepath.Join(t.dir, "refs.git")
	t.pusher, t.none, t.fetched = filepath.Join(t.dir, "pusher"), filepath.Join(t.dir, "none"), filepath.Join(t.dir, "fetched")
	logf("team remote of %d sessions: setting up", n)
	if err := b.gitIn("", "init", "-q", "-b", "main", t.pusher); err != nil {
		return nil, err
	}
	for _, r := range []string{t.plain, t.shards, t.refs} {
		if err := b.gitIn("", "init", "-q", "--bare", "-b", "main", r); err != nil {
			return nil, err
		}
		if err := b.gitIn(t.pusher, "remote", "add", filepath.Base(r), "file://"+r); err != nil {
			return nil, err
		}
	}
	if err := t.commitEverywhere(); err != nil {
		return nil, err
	}
	seeded := filepath.Join(t.dir, "seeded")
	if _, err := b.snapshotSessions(seeded, n); err != nil {
		return nil, err
	}
	var err error
	if err := b.gitIn(seeded, "remote", "add", "team", t.shards); err != nil {
		return nil, err
	}
	if t.firstPush, err = b.run(seeded, nil, b.bin, "push", "team"); err != nil {
		return nil, err
	}
	// As versions before pushed them.
	if err := b.gitIn(seeded, "push", "-q", t.refs, "refs/snap/*:refs/snap/*"); err != nil {
		return nil, err
	}
	for _, r := range []string{t.plain, t.shards, t.refs} {
		if err := b.gitIn(r, "pack-refs", "--all"); err != nil {
			return nil, err
		}
	}
	return t, t.clones()
}

// clones makes the two code clones, each with every remote by its name,
// and fetches the shards' sessions into one of them.
func (t *team) clones() error {
	for _, dir := range []string{t.none, t.fetched} {
		if err := copyRepo(t.pusher, dir); err != nil {
			return err
		}
		if err := t.b.gitIn(dir, "fetch", "-q", "--all"); err != nil {
			return err
		}
	}
	var err error
	t.firstFetch, err = t.b.run(t.fetched, nil, t.b.bin, "fetch", "shards.git")
	return err
}

// commitEverywhere commits once more in the pusher and pushes it to
// every remote.
func (t *team) commitEverywhere() error {
	if err := t.commit(); err != nil {
		return err
	}
	for _, r := range []string{t.plain, t.shards, t.refs} {
		if err := t.b.gitIn(t.pusher, "push", "-q", "--force", filepath.Base(r), "main"); err != nil {
			return err
		}
	}
	return nil
}

// commit commits once more in the pusher.
func (t *team) commit() error {
	t.commits++
	if err := os.WriteFile(filepath.Join(t.pusher, "code.txt"), []byte(fmt.Sprintf("change %d\n", t.commits)), 0o666); err != nil {
		return err
	}
	if err := t.b.gitIn(t.pusher, "add", "code.txt"); err != nil {
		return err
	}
	return t.b.gitIn(t.pusher, "commit", "-q", "-m", fmt.Sprintf("change %d", t.commits))
}

// teamCase is one of the team's rows: an operation against the remote
// with sessions and the same against the one without.
type teamCase struct {
	what          string
	with, without timer
}

// cases are the rows for one remote with sessions.
func (t *team) cases(remote string) []teamCase {
	name := filepath.Base(remote)
	out := []teamCase{
		t.push("code push from a clone without sessions", t.none, name),
	}
	if remote == t.shards {
		out = append(out, t.push("code push from a clone that fetched the sessions", t.fetched, name))
	}
	for _, v := range []string{"0", "2"} {
		out = append(out, teamCase{"code fetch over protocol v" + v,
			t.fetch(v, name), t.fetch(v, "plain.git")})
		out = append(out, teamCase{"clone over protocol v" + v,
			t.clone(v, remote), t.clone(v, t.plain)})
	}
	return out
}

// push times a push of a new commit from clone to remote (with) and of
// the same commit to the remote without sessions.
func (t *team) push(what, clone, remote string) teamCase {
	with := func(r int) (time.Duration, error) {
		if err := t.b.gitIn(clone, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("push %d", r)); err != nil {
			return 0, err
		}
		return t.b.run(clone, nil, "git", "push", "-q", "--force", remote, "HEAD:refs/heads/main")
	}
	without := func(int) (time.Duration, error) {
		return t.b.run(clone, nil, "git", "push", "-q", "--force", "plain.git", "HEAD:refs/heads/main")
	}
	return teamCase{what, with, without}
}

// fetch times a fetch of code from remote into the clone without
// sessions. First, untimed, the pusher commits and pushes to remote
// alone: each fetch brings a commit of its own, as one brought by the
// other fetch of the pair would be here already.
func (t *team) fetch(version, remote string) timer {
	return func(int) (time.Duration, error) {
		if err := t.commit(); err != nil {
			return 0, err
		}
		if err := t.b.gitIn(t.pusher, "push", "-q", "--force", remote, "main"); err != nil {
			return 0, err
		}
		return t.b.run(t.none, nil, "git", "-c", "protocol.version="+version, "fetch", "-q", remote)
	}
}

// clone times a clone of remote without a checkout.
func (t *team) clone(version, remote string) timer {
	dst := filepath.Join(t.dir, "clone-"+filepath.Base(remote))
	return func(int) (time.Duration, error) {
		if err := os.RemoveAll(dst); err != nil {
			return 0, err
		}
		return t.b.run(t.dir, nil, "git", "-c", "protocol.version="+version, "clone", "-q", "--no-checkout", "file://"+remote, dst)
	}
}
