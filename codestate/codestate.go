// Package codestate reads the state of the code when a snapshot is
// saved: the commit the work tree is on, whether tracked files differ
// from it, and which files changed. It asks git itself, with one `git
// status` call, so that everything git honours is honoured here too:
// core.worktree, $GIT_DIR, linked worktrees, alternates, sparse
// checkouts, the untracked cache and fsmonitor. Reading the index
// directly would miss some of these, and would walk the work tree a
// second time when the changed files are needed as well.
package codestate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/git-snap/git-snap/storage"
)

// State is the state of the code at one moment.
type State struct {
	// Commit is HEAD's commit; the zero ID when HEAD is unborn.
	Commit storage.ID
	// Branch is HEAD's branch, "" when HEAD is detached.
	Branch string
	// Dirty reports tracked changes, staged or not, as `git describe
	// --dirty` counts them: untracked files do not make a tree dirty.
	Dirty bool
	// Changed lists the files that differ from Commit and still exist.
	// When Options.Changed is set, it also lists untracked files (but
	// never ignored ones).
	Changed []string
}

// Options configure where Read looks and how much it reads.
type Options struct {
	// Dir is a directory inside the work tree; git finds the repository
	// from it as usual.
	Dir string
	// Changed also lists changed and untracked files, which requires a
	// walk of the untracked part of the work tree.
	Changed bool
	// Git is the git program; "git" (found on PATH) when empty.
	Git string
}

// ErrNoGit means git could not be run, so there is no code state to
// record.
var ErrNoGit = errors.New("git is not installed (or not on PATH)")

// Read asks git for the code state of the work tree that contains o.Dir.
// It takes no optional locks, so that it never contends with the user's
// own git commands, and it writes nothing.
func Read(ctx context.Context, o Options) (State, error) {
	git := o.Git
	if git == "" {
		git = "git"
	}
	if _, err := exec.LookPath(git); err != nil {
		return State{}, ErrNoGit
	}
	untracked := "--untracked-files=no"
	if o.Changed {
		untracked = "--untracked-files=all"
	}
	cmd := exec.CommandContext(ctx, git, "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-renames", untracked)
	cmd.Dir = o.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return State{}, ctxErr
		}
		return State{}, fmt.Errorf("git status in %s: %w: %s", o.Dir, err, strings.TrimSpace(stderr.String()))
	}
	return Parse(out)
}

// Parse reads the output of `git status --porcelain=v2 -z --branch
// --no-renames`.
func Parse(out []byte) (State, error) {
	var st State
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		if err := st.add(rec); err != nil {
			return State{}, err
		}
	}
	return st, nil
}

// add reads one record: a header line or an entry.
func (st *State) add(rec string) error {
	kind, rest, _ := strings.Cut(rec, " ")
	switch kind {
	case "#":
		return st.header(rest)
	case "1", "u":
		st.Dirty = true
		return st.addTracked(kind, rest)
	case "?":
		st.Changed = append(st.Changed, rest)
	case "2": // renames are off, but a copy or rename record is still a change
		st.Dirty = true
	case "!":
	default:
		return fmt.Errorf("git status: unexpected record %q", rec)
	}
	return nil
}

func (st *State) header(line string) error {
	key, value, _ := strings.Cut(line, " ")
	switch key {
	case "branch.oid":
		if value == "(initial)" {
			return nil
		}
		if !storage.IsID(value) {
			return fmt.Errorf("git status: HEAD is %q, not a commit id git-snap can store (a SHA-256 repository?)", value)
		}
		st.Commit = storage.NewID(value)
	case "branch.head":
		if value != "(detached)" {
			st.Branch = value
		}
	}
	return nil
}

// addTracked reads an ordinary ("1") or unmerged ("u") entry and records
// its path, unless the file was deleted and so there is nothing to
// capture.
func (st *State) addTracked(kind, rest string) error {
	fields := 7 // XY sub mH mI mW hH hI, then the path
	if kind == "u" {
		fields = 9 // XY sub m1 m2 m3 mW h1 h2 h3
	}
	parts := strings.SplitN(rest, " ", fields+1)
	if len(parts) != fields+1 || len(parts[0]) != 2 {
		return fmt.Errorf("git status: unexpected entry %q", kind+" "+rest)
	}
	if xy := parts[0]; xy[0] != 'D' && xy[1] != 'D' {
		st.Changed = append(st.Changed, parts[fields])
	}
	return nil
}
