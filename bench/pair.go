//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Every row that has a baseline is timed by pair, and only by it: the
// measured call and its baseline alternate in one loop, A, B, A, B, so
// that whatever else the machine does at a moment weighs on both alike.
// A row's ratio is the median of the per-pair ratios, not the ratio of
// the medians. A new row adopts it so:
//
//	p, err := b.pair(
//		b.command(dir, nil, b.bin, "sessions"),
//		b.command(dir, nil, "git", "for-each-ref", "refs/snap/"))
//	if err != nil {
//		return nil, err
//	}
//	rows = append(rows, p.fill(row{what: "sessions, 10k sessions", kind: kindSessions}))
//
// A timer that must prepare each run untimed (grow a transcript, write
// a stream) does it inside its function and returns only the time of
// what it measures; run r of the two sides is prepared alike.

// timer is one timed run, the r-th: it may prepare untimed, and returns
// the time of what it measures.
type timer func(r int) (time.Duration, error)

// pairing is what pair measured.
type pairing struct {
	ours, base time.Duration // the medians of each side
	ratio      float64       // the median of ours/base over the pairs
	runs       int
}

// pair runs ours and base alternately, ours first, b.cfg.runs times
// each.
func (b *bench) pair(ours, base timer) (pairing, error) {
	return pairRuns(b.cfg.runs, ours, base)
}

// pairRuns is pair with a number of runs of its own (rows whose one run
// takes seconds).
func pairRuns(runs int, ours, base timer) (pairing, error) {
	var a, c []time.Duration
	var ratios []float64
	for r := range runs {
		da, err := ours(r)
		if err != nil {
			return pairing{}, err
		}
		dc, err := base(r)
		if err != nil {
			return pairing{}, err
		}
		a, c = append(a, da), append(c, dc)
		if dc > 0 {
			ratios = append(ratios, float64(da)/float64(dc))
		}
	}
	if len(a) == 0 {
		return pairing{}, fmt.Errorf("pair: no runs")
	}
	return pairing{ours: median(a), base: median(c), ratio: medianFloat(ratios), runs: runs}, nil
}

// fill sets a row's times and ratio from the pairing.
func (p pairing) fill(r row) row {
	r.ours, r.plumbing, r.ratio = p.ours, p.base, p.ratio
	return r
}

// command is a timer that runs a command in dir (the large repository
// when empty), fed stdin, its output thrown away.
func (b *bench) command(dir string, stdin []byte, args ...string) timer {
	return func(int) (time.Duration, error) { return b.run(dir, stdin, args...) }
}

// run times one command in dir (the large repository when empty), fed
// stdin, its output thrown away.
func (b *bench) run(dir string, stdin []byte, args ...string) (time.Duration, error) {
	return b.runEnv(dir, stdin, nil, args...)
}

// runEnv is run with more variables.
func (b *bench) runEnv(dir string, stdin []byte, extra []string, args ...string) (time.Duration, error) {
	if dir == "" {
		dir = b.repo
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, append(append(b.env, "GIT_SNAP_DIR="), extra...)
	cmd.Stdin, cmd.Stdout = bytes.NewReader(stdin), io.Discard // a pipe, as a pager or a script reads
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return d, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
