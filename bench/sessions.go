//go:build unix

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	gitsnap "github.com/git-snap/git-snap"
)

// manySessions makes a repository of n sessions of three snapshots
// each, as a team's repository holds after months of agents' work,
// written by the hook path: each snapshot adds a prompt and an answer.
func (b *bench) manySessions(ctx context.Context, n int) (string, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("sessions-%d", n))
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return "", err
	}
	if err := b.gitIn(dir, "config", "gc.auto", "0"); err != nil {
		return "", err
	}
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return "", err
	}
	defer s.Close()
	logf("building %d sessions through the hook path", n)
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range n {
		session := fmt.Sprintf("s%05d", i)
		t, err := newTranscript(s, dir, filepath.Join(b.work, "transcripts", "sessions", session+".jsonl"), session)
		if err != nil {
			return "", err
		}
		for j := range 3 {
			if err := t.grow(ctx, at.Add(time.Duration(i*3+j)*time.Minute), claudeLine(session, 2*j), claudeLine(session, 2*j+1)); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}

// sessionRows times sessions, log --all -n 20 and stats over many
// sessions, with loose refs and then packed, each paired with git
// for-each-ref or git log over the same refs, reading the same commits.
// Each command runs once untimed first: the first call after the hook
// wrote counts what the hook's appends left uncounted and keeps it, as
// a repository's first reader does once.
func (b *bench) sessionRows(ctx context.Context) ([]row, error) {
	n := map[bool]int{true: 2000, false: 10000}[b.cfg.quick]
	dir, err := b.manySessions(ctx, n)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, refs := range []string{"loose", "packed"} {
		if refs == "packed" {
			if err := b.gitIn(dir, "pack-refs", "--all"); err != nil {
				return nil, err
			}
		}
		forEachRef := []string{"git", "for-each-ref", "--format=%(refname) %(objectname) %(committerdate:iso) %(trailers:only)", "refs/snap/"}
		pairs := []struct {
			what       string
			kind       budgetKind
			ours, base []string
		}{
			{"sessions", kindSessions, []string{b.bin, "sessions"}, forEachRef},
			{"log --all -n 20", kindLogAll, []string{b.bin, "log", "--all", "-n", "20"}, []string{"git", "log", "-n", "20", "--glob=refs/snap/*"}},
			{"stats", "", []string{b.bin, "stats"}, forEachRef},
		}
		for _, p := range pairs {
			first, err := b.run(dir, nil, p.ours...)
			if err != nil {
				return nil, err
			}
			if _, err := b.run(dir, nil, p.base...); err != nil {
				return nil, err
			}
			pr, err := b.pair(b.command(dir, nil, p.ours...), b.command(dir, nil, p.base...))
			if err != nil {
				return nil, err
			}
			r := row{what: fmt.Sprintf("%s, %d sessions %s, %s refs", p.what, n, hookPath, refs), kind: p.kind,
				note: fmt.Sprintf("the first call, untimed in the median: %.0f ms", ms(first))}
			if p.kind == "" {
				r.baseline = "git for-each-ref reading each tip's trailers, for scale"
			}
			rows = append(rows, pr.fill(r))
		}
	}
	return rows, nil
}

// timedIn times one command run in dir, its output thrown away: for a
// row without a baseline (one with a baseline is timed by pair).
func (b *bench) timedIn(dir string, args ...string) (time.Duration, error) {
	return b.run(dir, nil, args...)
}
