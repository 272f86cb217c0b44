// Package codestate reads the code a snapshot is taken at: the commit
// the work tree is on, whether tracked files differ from it, and which
// files changed.
//
// It asks git itself, in one `git status` call, so that everything git
// honours is honoured here too: core.worktree, $GIT_DIR, linked
// worktrees, alternates, sparse checkouts, the untracked cache and
// fsmonitor. In a large work tree that call is most of a hook call's
// time, so where a watchman server runs (Options.Watchman) the result is
// kept, with watchman's clock, and the next call asks watchman which
// files changed since and looks at those alone, against the index, in Go
// (watched.go). Whatever that path cannot answer as git would (the
// index, HEAD, an ignore file or the settings changed, watchman
// restarted, hundreds of files changed, a submodule, a conflict) goes to
// git status again.
package codestate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
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
	// Watched says the state came from the files watchman saw change
	// since the last call, not from a scan of the work tree.
	Watched bool
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

	// Watchman is the socket of a watchman server to ask what changed
	// since the last call; "" scans with git status every time. It is
	// used when Changed is set and Dir is the work tree's top, with
	// GitDir and CommonDir, where the last result is kept.
	Watchman string
	// GitDir and CommonDir are the work tree's git directories: its own
	// (HEAD, the index) and the one it shares (refs, info, config).
	GitDir, CommonDir string
	// UserConfigDir is the user's configuration directory ($XDG_CONFIG_
	// HOME, or ~/.config), where git's own excludes and attributes
	// files are by default; without it, nor core.excludesFile, the
	// files a user ignores are unknown, and the fast path is not used.
	UserConfigDir string
}

// ErrNoGit means git could not be run, so there is no code state to
// record.
var ErrNoGit = errors.New("git is not installed (or not on PATH)")

// Read asks git for the code state of the work tree that holds o.Dir,
// or, where watchman runs (o.Watchman), the last state and what changed
// since. It takes no optional lock, so that it never contends with the
// user's own git commands, and writes nothing but its own cache.
func Read(ctx context.Context, o Options) (State, error) {
	if o.Git == "" {
		o.Git = "git"
	}
	if _, err := exec.LookPath(o.Git); err != nil {
		return State{}, ErrNoGit
	}
	if o.Watchman != "" && o.Changed && o.GitDir != "" {
		return readWatched(ctx, o)
	}
	st, err := status(ctx, o)
	if err != nil {
		return State{}, err
	}
	return st.state(), nil
}

// status runs git status and reads what it says.
func status(ctx context.Context, o Options) (scan, error) {
	untracked := "--untracked-files=no"
	if o.Changed {
		untracked = "--untracked-files=all"
	}
	cmd := exec.CommandContext(ctx, o.Git, "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-renames", untracked)
	cmd.Dir = o.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return scan{}, ctxErr
		}
		return scan{}, fmt.Errorf("git status in %s: %w: %s", o.Dir, err, strings.TrimSpace(stderr.String()))
	}
	return parse(out)
}

// Parse reads the output of `git status --porcelain=v2 -z --branch
// --no-renames`.
func Parse(out []byte) (State, error) {
	sc, err := parse(out)
	if err != nil {
		return State{}, err
	}
	return sc.state(), nil
}

// scan is what git status said: HEAD and the files it reported.
type scan struct {
	commit  storage.ID
	branch  string
	entries map[string]*entry
	// conflicted says an entry is unmerged (or a copy or rename, which
	// --no-renames leaves out), which the fast path does not follow.
	conflicted bool
}

func parse(out []byte) (scan, error) {
	sc := scan{entries: map[string]*entry{}}
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		if err := sc.add(rec); err != nil {
			return scan{}, err
		}
	}
	return sc, nil
}

// entry returns the entry of path, made when there is none.
func (sc *scan) entry(path string) *entry {
	e, ok := sc.entries[path]
	if !ok {
		e = &entry{Path: path}
		sc.entries[path] = e
	}
	return e
}

// add reads one record: a header line or an entry.
func (sc *scan) add(rec string) error {
	kind, rest, _ := strings.Cut(rec, " ")
	switch kind {
	case "#":
		return sc.header(rest)
	case "1", "u":
		return sc.tracked(kind, rest)
	case "?":
		sc.entry(rest).Untracked = true
	case "2": // renames are off; a copy or rename record is still an entry
		sc.conflicted = true
		sc.entry("\x00" + rest).XY = ".."
	case "!":
	default:
		return fmt.Errorf("git status: unexpected record %q", rec)
	}
	return nil
}

func (sc *scan) header(line string) error {
	key, value, _ := strings.Cut(line, " ")
	switch key {
	case "branch.oid":
		if value == "(initial)" {
			return nil
		}
		if !storage.IsID(value) {
			return fmt.Errorf("git status: HEAD is %q, not a commit id git-snap can store (a SHA-256 repository?)", value)
		}
		sc.commit = storage.NewID(value)
	case "branch.head":
		if value != "(detached)" {
			sc.branch = value
		}
	}
	return nil
}

// tracked reads an ordinary ("1") or unmerged ("u") entry.
func (sc *scan) tracked(kind, rest string) error {
	fields := 7 // XY sub mH mI mW hH hI, then the path
	if kind == "u" {
		fields = 9 // XY sub m1 m2 m3 mW h1 h2 h3
		sc.conflicted = true
	}
	parts := strings.SplitN(rest, " ", fields+1)
	if len(parts) != fields+1 || len(parts[0]) != 2 {
		return fmt.Errorf("git status: unexpected entry %q", kind+" "+rest)
	}
	if parts[1] != "N..." { // a submodule
		sc.conflicted = true
	}
	sc.entry(parts[fields]).XY = parts[0]
	return nil
}

// state is the State the entries make: dirty when any tracked file
// differs; changed, the tracked files that differ and still exist, then
// the untracked ones, each in git's order.
func (sc scan) state() State {
	st := State{Commit: sc.commit, Branch: sc.branch}
	var tracked, untracked []string
	for _, e := range sc.entries {
		if e.XY != "" {
			st.Dirty = true
			if !strings.Contains(e.XY, "D") && !strings.HasPrefix(e.Path, "\x00") {
				tracked = append(tracked, e.Path)
			}
		}
		if e.Untracked {
			untracked = append(untracked, e.Path)
		}
	}
	sort.Strings(tracked)
	sort.Strings(untracked)
	st.Changed = append(tracked, untracked...)
	return st
}
