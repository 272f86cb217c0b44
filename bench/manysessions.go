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
// The repositories are pullsessions' (snapshotSessions, pulledClone).
func (b *bench) manySessionsMemoryRows(context.Context) ([]row, error) {
	n := map[bool]int{true: 10000, false: 100000}[b.cfg.quick]
	dir := filepath.Join(b.work, fmt.Sprintf("many-%d", n))
	remote, clone := filepath.Join(dir, "remote"), filepath.Join(dir, "clone")
	logf("peak memory at %d sessions: setting up", n)
	seed, err := b.snapshotSessions(remote, n)
	if err != nil {
		return nil, err
	}
	if err := b.pulledClone(clone, remote); err != nil {
		return nil, err
	}
	syscall.Sync()
	var rows []row
	for _, args := range [][]string{{"sessions"}, {"sessions", "--json"}} {
		peak, d, err := b.peakRSS(remote, append([]string{b.bin}, args...)...)
		if err != nil {
			return nil, err
		}
		rows = append(rows, memRow(fmt.Sprintf("peak memory: git snap %s at %d sessions", strings.Join(args, " "), n), peak,
			fmt.Sprintf("/usr/bin/time -v; %.1f s", d.Seconds())))
	}
	view, err := b.viewerSessionsMemory(remote, n)
	if err != nil {
		return nil, err
	}
	if _, err := b.run(remote, sessionsStream(seed, "new", 1), "git", "fast-import", "--quiet"); err != nil {
		return nil, err
	}
	peak, d, err := b.peakRSS(clone, b.bin, "pull", "bench")
	if err != nil {
		return nil, err
	}
	pull := memRow(fmt.Sprintf("peak memory: git snap pull of 1 new session from a remote of %d sessions", n), peak,
		fmt.Sprintf("/usr/bin/time -v; %.1f s", d.Seconds()))
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
