//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// pullSessionsRows time git snap pull of one new session from a remote
// holding 10k sessions (and 100k without -quick), every other one pulled
// before, paired with git fetch of the same refs (what git snap fetch
// runs: the remote's shards) from a remote alike: what a pull pays for
// the sessions it did not need to look at again.
func (b *bench) pullSessionsRows(context.Context) ([]row, error) {
	sizes := map[bool][]int{true: {10000}, false: {10000, 100000}}[b.cfg.quick]
	var rows []row
	for _, n := range sizes {
		r, err := b.pullSessions(n)
		if err != nil {
			return rows, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// pullSessions builds two remotes of n sessions (written by git
// fast-import in a clone that git snap push sent them from) and a clone
// of each that has pulled them all, then times the pull of one new
// session against the fetch of it.
func (b *bench) pullSessions(n int) (row, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("pull-%d", n))
	seeded, ours, theirs := filepath.Join(dir, "seeded"), filepath.Join(dir, "ours"), filepath.Join(dir, "theirs")
	remotes := map[string]string{ours: filepath.Join(dir, "ours.git"), theirs: filepath.Join(dir, "theirs.git")}
	logf("pull of one new session from %d sessions: setting up", n)
	if _, err := b.snapshotSessions(seeded, n); err != nil {
		return row{}, err
	}
	for _, clone := range []string{ours, theirs} {
		if err := copyRepo(seeded, clone); err != nil {
			return row{}, err
		}
	}
	if err := b.sharedRemote(seeded, remotes[ours], remotes[theirs]); err != nil {
		return row{}, err
	}
	for _, clone := range []string{ours, theirs} {
		if err := b.gitIn(clone, "remote", "add", "bench", remotes[clone]); err != nil {
			return row{}, err
		}
		if _, err := b.run(clone, nil, b.bin, "pull", "bench"); err != nil {
			return row{}, err
		}
	}
	// Each run adds one session to both remotes first, untimed.
	doc := filepath.Join(seeded, ".git", "seed.json")
	grow := func(r int) error {
		name := fmt.Sprintf("new%06d", r)
		if _, err := b.run(seeded, nil, b.bin, "save", "-s", name, doc); err != nil {
			return err
		}
		for _, remote := range []string{"ours", "theirs"} {
			if _, err := b.run(seeded, nil, b.bin, "push", remote, name); err != nil {
				return err
			}
		}
		return nil
	}
	logf("pull of one new session from %d sessions", n)
	p, err := pairRuns(min(b.cfg.runs, 11), func(r int) (time.Duration, error) {
		if err := grow(r); err != nil {
			return 0, err
		}
		return b.run(ours, nil, b.bin, "pull", "bench")
	}, func(int) (time.Duration, error) {
		return b.run(theirs, nil, append([]string{"git", "fetch", "--no-tags", "--no-write-fetch-head", "bench"}, snapFetchSpecs...)...)
	})
	if err != nil {
		return row{}, err
	}
	return p.fill(row{what: fmt.Sprintf("pull of 1 new session from a remote of %d sessions", n), kind: kindPullSessions}), nil
}

// sharedRemote pushes the sessions of dir to a new bare remote, ours, as
// a clone of a team shares them, and copies it to another, theirs,
// unless copied is "".
func (b *bench) sharedRemote(dir, remote, copied string) error {
	if err := b.gitIn("", "init", "-q", "--bare", remote); err != nil {
		return err
	}
	if err := b.gitIn(dir, "remote", "add", "ours", remote); err != nil {
		return err
	}
	if _, err := b.run(dir, nil, b.bin, "push", "ours"); err != nil {
		return err
	}
	if copied == "" {
		return nil
	}
	if err := copyRepo(remote, copied); err != nil {
		return err
	}
	return b.gitIn(dir, "remote", "add", "theirs", copied)
}

// snapshotSessions makes a repository of n sessions of one snapshot
// each, copies of one git snap save wrote there first; git fast-import
// writes them, and their refs are packed.
func (b *bench) snapshotSessions(dir string, n int) (seedSnapshot, error) {
	var seed seedSnapshot
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return seed, err
	}
	doc := filepath.Join(dir, ".git", "seed.json")
	if err := os.WriteFile(doc, []byte(`{"messages": [{"id": "m1", "role": "user", "content": "hello"}]}`), 0o666); err != nil {
		return seed, err
	}
	if _, err := b.run(dir, nil, b.bin, "save", "-s", "seed", doc); err != nil {
		return seed, err
	}
	msg, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%B", "refs/snap/seed").Output()
	if err != nil {
		return seed, fmt.Errorf("git log: %w", err)
	}
	out, err := exec.Command("git", "-C", dir, "ls-tree", "refs/snap/seed").Output()
	if err != nil {
		return seed, fmt.Errorf("git ls-tree: %w", err)
	}
	var tree strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		meta, name, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta) // mode, type, id
		fmt.Fprintf(&tree, "M %s %s %s\n", f[0], f[2], name)
	}
	seed = seedSnapshot{message: strings.TrimRight(string(msg), "\n") + "\n", tree: tree.String()}
	if _, err := b.run(dir, sessionsStream(seed, "s", n), "git", "fast-import", "--quiet"); err != nil {
		return seed, err
	}
	return seed, b.gitIn(dir, "pack-refs", "--all")
}

// seedSnapshot is a snapshot git snap save wrote, as git fast-import
// copies it: its commit message, and its tree's top-level entries.
type seedSnapshot struct{ message, tree string }

// sessionsStream is git fast-import's input for n sessions named prefix
// and a number (prefix alone when n is 1), each of one copy of seed.
func sessionsStream(seed seedSnapshot, prefix string, n int) []byte {
	var in bytes.Buffer
	for i := range n {
		name := prefix
		if n > 1 {
			name = fmt.Sprintf("%s%06d", prefix, i)
		}
		msg := strings.Replace(seed.message, "Snap-Session: seed\n", "Snap-Session: "+name+"\n", 1)
		fmt.Fprintf(&in, "commit refs/snap/%s\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s%s\n", name, 1767225600+i, len(msg), msg, seed.tree)
	}
	return in.Bytes()
}

// snapFetchSpecs are the refspecs git snap fetch and pull give git fetch
// for a remote named bench that keeps its sessions in shards.
var snapFetchSpecs = []string{
	"+refs/snap-shards/*:refs/remotes/bench/snap-shards/*",
	"+refs/snap-tags/*:refs/remotes/bench/snap-tags/*",
	"+refs/tags/snap/*:refs/remotes/bench/snap-checkpoints/*",
}
