package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/git-snap/git-snap/gitstore"
)

// manySessions makes a repository of n sessions of a few snapshots
// each, as a team's repository holds after months of agents' work.
func (b *bench) manySessions(ctx context.Context, n int) (string, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("sessions-%d", n))
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return "", err
	}
	if err := b.gitIn(dir, "config", "gc.auto", "0"); err != nil {
		return "", err
	}
	s, err := gitstore.Open(ctx, dir, gitstore.Options{})
	if err != nil {
		return "", err
	}
	defer s.Close()
	logf("building %d sessions", n)
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range n {
		session := fmt.Sprintf("s%05d", i)
		for j := 1; j <= 3; j++ {
			doc := conversation(session, 2*j)
			if _, err := s.Save(ctx, doc, gitstore.SaveOptions{Session: session, Label: fmt.Sprintf("step %d", j), Time: at.Add(time.Duration(i*3+j) * time.Minute)}); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}

// gitIn runs git in dir (the bench's repository when empty).
func (b *bench) gitIn(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, b.env
	if dir == "" {
		cmd.Dir = b.work
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v\n%s", args, err, out)
	}
	return nil
}

// sessionRows times sessions, log --all -n 20 and stats over many
// sessions, with loose refs and then packed, against git for-each-ref
// and git log over the same refs, reading the same commits.
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
			what, note string
			ours, base []string
			budget     float64
		}{
			{"sessions", "baseline: git for-each-ref reading each tip's trailers", []string{b.bin, "sessions"}, forEachRef, 1.2},
			{"log --all -n 20", "baseline: git log -n 20 over the same refs", []string{b.bin, "log", "--all", "-n", "20"},
				[]string{"git", "log", "-n", "20", "--glob=refs/snap/*"}, 1.2},
			{"stats", "all sessions added up; for scale, git for-each-ref as for sessions", []string{b.bin, "stats"}, forEachRef, 0},
		}
		for _, p := range pairs {
			ours, base, err := b.paired(dir, p.ours, p.base)
			if err != nil {
				return nil, err
			}
			r := row{what: fmt.Sprintf("%s, %d sessions, %s refs (%s)", p.what, n, refs, p.note), phase: "", ours: ours, plumbing: base, ratioBudget: p.budget}
			if p.budget == 0 {
				r.budget = time.Second
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// paired runs two commands alternately, cfg.runs times each, in dir,
// and returns their medians (zero for a nil command).
func (b *bench) paired(dir string, ours, base []string) (time.Duration, time.Duration, error) {
	var a, c []time.Duration
	for range b.cfg.runs {
		d, err := b.timedIn(dir, ours...)
		if err != nil {
			return 0, 0, err
		}
		a = append(a, d)
		if base == nil {
			continue
		}
		if d, err = b.timedIn(dir, base...); err != nil {
			return 0, 0, err
		}
		c = append(c, d)
	}
	if base == nil {
		return median(a), 0, nil
	}
	return median(a), median(c), nil
}

// timedIn times one command run in dir, its output thrown away.
func (b *bench) timedIn(dir string, args ...string) (time.Duration, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, append(b.env, "GIT_SNAP_DIR=")
	var stderr []byte
	start := time.Now()
	_, err := cmd.Output()
	d := time.Since(start)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return 0, fmt.Errorf("%v: %v\n%s", args, err, stderr)
	}
	return d, nil
}
