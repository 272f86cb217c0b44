//go:build unix

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
)

// manySessionsMemoryRows take the peak resident memory (/usr/bin/time
// -v) of what lists every session, at 100k sessions (10k with -quick):
// sessions and sessions --json; a viewer's sessions page sorted by
// tokens, which waits until every session's summary is read, as a
// running viewer keeps them; and pull of one new session from a remote
// holding them all, into a clone that pulled every other one before.
// The repositories are made as pullsessions makes them.
func (b *bench) manySessionsMemoryRows(context.Context) ([]row, error) {
	n := map[bool]int{true: 10000, false: 100000}[b.cfg.quick]
	dir := filepath.Join(b.work, fmt.Sprintf("many-%d", n))
	seeded, remote, clone := filepath.Join(dir, "seeded"), filepath.Join(dir, "remote.git"), filepath.Join(dir, "clone")
	logf("peak memory at %d sessions: setting up", n)
	if _, err := b.snapshotSessions(seeded, n); err != nil {
		return nil, err
	}
	syscall.Sync()
	var rows []row
	for _, args := range [][]string{{"sessions"}, {"sessions", "--json"}} {
		peak, d, err := b.peakRSS(seeded, append([]string{b.bin}, args...)...)
		if err != nil {
			return nil, err
		}
		rows = append(rows, memRow(fmt.Sprintf("peak memory: git snap %s at %d sessions", strings.Join(args, " "), n), peak,
			fmt.Sprintf("/usr/bin/time -v; %.1f s", d.Seconds())))
	}
	view, err := b.viewerSessionsMemory(seeded, n)
	if err != nil {
		return nil, err
	}
	// The remote, after: its remote-tracking refs would double what the
	// rows above list.
	if err := copyRepo(seeded, clone); err != nil {
		return nil, err
	}
	if err := b.sharedRemote(seeded, remote, ""); err != nil {
		return nil, err
	}
	if err := b.gitIn(clone, "remote", "add", "bench", remote); err != nil {
		return nil, err
	}
	if _, err := b.run(clone, nil, b.bin, "pull", "bench"); err != nil {
		return nil, err
	}
	if _, err := b.run(seeded, nil, b.bin, "save", "-s", "new", filepath.Join(seeded, ".git", "seed.json")); err != nil {
		return nil, err
	}
	if _, err := b.run(seeded, nil, b.bin, "push", "ours", "new"); err != nil {
		return nil, err
	}
	peak, d, err := b.peakRSS(clone, b.bin, "pull", "bench")
	if err != nil {
		return nil, err
	}
	// git fetch, which pull runs, holds every ref of the clone: its own
	// peak in the same clone says what git-snap adds.
	gitPeak, _, err := b.peakRSS(clone, append([]string{"git", "fetch", "--no-tags", "--no-write-fetch-head", "bench"}, snapFetchSpecs...)...)
	if err != nil {
		return nil, err
	}
	pull := memRow(fmt.Sprintf("peak memory: git snap pull of 1 new session from a remote of %d sessions", n), peak,
		fmt.Sprintf("/usr/bin/time -v; %.1f s; git fetch alone, which it runs, %.1f MB", d.Seconds(), float64(gitPeak)/1e6))
	return append(append(rows, view), pull), nil
}

// viewerSessionsMemory runs git snap view under /usr/bin/time -v and
// reads its sessions page, then the page sorted by tokens, which reads
// every session's summary first: the peak is what a viewer keeps of n
// sessions.
func (b *bench) viewerSessionsMemory(dir string, n int) (row, error) {
	url, stop, err := b.startTimedView(dir)
	if err != nil {
		return row{}, err
	}
	first, err := getTimed(url + "/")
	if err != nil {
		_, _ = stop()
		return row{}, err
	}
	all, err := getTimed(url + "/?sort=tokens")
	if err != nil {
		_, _ = stop()
		return row{}, err
	}
	peak, err := stop()
	if err != nil {
		return row{}, err
	}
	return memRow(fmt.Sprintf("peak memory: git snap view, the sessions page at %d sessions, then sorted by tokens (every summary read)", n), peak,
		fmt.Sprintf("/usr/bin/time -v of the server; first page %.1f s, sorted %.1f s", first.whole.Seconds(), all.whole.Seconds())), nil
}
