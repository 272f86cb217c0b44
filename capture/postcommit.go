package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// git is not an agent: its post-commit hook ties the commits made in a
// work tree to the agent sessions that were at work there.

const gitHookMarker = "# git-snap: snapshot this work tree's agent sessions at each commit"

// rewriteHookMarker marks git-snap's post-rewrite hook, which records
// the commits an amend or a rebase rewrote (see gitstore.NoteRewrites).
const rewriteHookMarker = "# git-snap: keep sessions linked to commits that amend and rebase rewrite"

// hookFailed is what git-snap's hook named %s says when its program did
// not run ($? is its exit status: 127 when it is not there).
const hookFailed = "git-snap: the %s hook did not run git-snap (exit $?): git snap doctor says why"

// InstallGitHook adds a post-commit hook that runs command, and a
// post-rewrite hook that passes git's old → new pairs to it, each
// chained with a hook already there (kept as NAME.before-git-snap and
// run after, with the same input). command is an agent.HookCommand, its
// program written so that sh (Git for Windows' too) finds it. The
// program says nothing and exits 0 whatever happens (it logs), so a
// failure is one to start it, which the hooks say on stderr.
func InstallGitHook(hooksDir, command string) (bool, error) {
	commit := fmt.Sprintf(`#!/bin/sh
%s
%s post-commit >/dev/null 2>&1 || echo "%s" >&2
if [ -x "$0.before-git-snap" ]; then exec "$0.before-git-snap" "$@"; fi
`, gitHookMarker, command, fmt.Sprintf(hookFailed, "post-commit"))
	rewrite := fmt.Sprintf(`#!/bin/sh
%s
input=$(cat)
printf '%%s\n' "$input" | %s post-rewrite "$@" >/dev/null 2>&1 || echo "%s" >&2
if [ -x "$0.before-git-snap" ]; then printf '%%s\n' "$input" | "$0.before-git-snap" "$@"; exit $?; fi
`, rewriteHookMarker, command, fmt.Sprintf(hookFailed, "post-rewrite"))
	a, err := installHook(hooksDir, "post-commit", gitHookMarker, commit)
	if err != nil {
		return a, err
	}
	b, err := installHook(hooksDir, "post-rewrite", rewriteHookMarker, rewrite)
	return a || b, err
}

// installHook writes hook name with script unless it is there as it is,
// moving a hook of the user's aside to be chained; one of git-snap's
// (holding marker) that runs another command is rewritten.
func installHook(hooksDir, name, marker, script string) (bool, error) {
	path := filepath.Join(hooksDir, name)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && string(old) == script:
		return false, nil
	case err == nil && bytes.Contains(old, []byte(marker)):
	case err == nil:
		if err := os.Rename(path, path+".before-git-snap"); err != nil {
			return false, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if err := os.MkdirAll(hooksDir, 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(path, []byte(script), 0o755)
}

// UninstallGitHook removes git-snap's post-commit and post-rewrite hooks
// and puts back the ones they were chained with.
func UninstallGitHook(hooksDir string) (bool, error) {
	a, err := uninstallHook(hooksDir, "post-commit", gitHookMarker)
	if err != nil {
		return a, err
	}
	b, err := uninstallHook(hooksDir, "post-rewrite", rewriteHookMarker)
	return a || b, err
}

func uninstallHook(hooksDir, name, marker string) (bool, error) {
	path := filepath.Join(hooksDir, name)
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.Contains(cur, []byte(marker)) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := os.Remove(path); err != nil {
		return false, err
	}
	if _, err := os.Stat(path + ".before-git-snap"); err == nil {
		return true, os.Rename(path+".before-git-snap", path)
	}
	return true, nil
}

// GitRewriteHookInstalled reports whether git-snap's post-rewrite hook
// is in a hooks folder.
func GitRewriteHookInstalled(hooksDir string) bool {
	data, err := os.ReadFile(filepath.Join(hooksDir, "post-rewrite"))
	return err == nil && bytes.Contains(data, []byte(rewriteHookMarker))
}

// ParseRewrites reads what git gives a post-rewrite hook on stdin: a
// line per rewritten commit, "OLD NEW" and maybe more fields after.
func ParseRewrites(data []byte) [][2]storage.ID {
	var out [][2]storage.ID
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && storage.IsID(f[0]) && storage.IsID(f[1]) {
			out = append(out, [2]storage.ID{storage.NewID(f[0]), storage.NewID(f[1])})
		}
	}
	return out
}

// ActiveWithin is how recently a session must have been recorded for a
// commit made in its work tree to be marked on it: a session idle longer
// had no part in the commit.
const ActiveWithin = 24 * time.Hour

// PostCommit is a commit just made in a work tree, as git's post-commit
// hook reports it, to be marked on the sessions at work there so that
// log --code finds the agent state behind the commit.
type PostCommit struct {
	Commit   string    // the commit's id
	Dirty    bool      // the work tree has changes the commit left out
	WorkTree string    // where it was made
	Now      time.Time // when
}

// Marks reports whether the commit is marked on a session whose last
// snapshot is tip, recorded with cwd as the agent's directory: the
// session was recorded within ActiveWithin, inside the work tree, and its
// last snapshot does not name the commit yet.
func (pc PostCommit) Marks(tip snapshot.Header, cwd string) bool {
	return pc.recent(tip) && cwd != "" && pc.WorkTree != "" && within(cwd, pc.WorkTree)
}

// recent is the part of Marks that needs no snapshot read.
func (pc PostCommit) recent(tip snapshot.Header) bool {
	return pc.Now.Sub(tip.Time) <= ActiveWithin && tip.Code != pc.Commit
}

// Marker is what PostCommit.Mark needs of a store: the sessions, and a
// new snapshot of one with its tip's content and a new header.
type Marker interface {
	Sessions(ctx context.Context) ([]storage.Session, error)
	Others(ctx context.Context, id storage.ID) (map[string]any, error)
	Mark(ctx context.Context, o storage.SaveOptions) (storage.Entry, error)
}

// Mark marks the commit on every session it belongs to (see Marks) and
// returns their names.
func (pc PostCommit) Mark(ctx context.Context, s Marker) ([]string, error) {
	sessions, err := s.Sessions(ctx)
	var damaged *storage.DamagedSessions
	if err != nil && !errors.As(err, &damaged) {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	marked, err := pc.markEach(ctx, s, sessions)
	if damaged != nil {
		// The commit is marked on the sessions that can be read; the
		// others are named for hook.log.
		err = errors.Join(err, damaged)
	}
	return marked, err
}

func (pc PostCommit) markEach(ctx context.Context, s Marker, sessions []storage.Session) ([]string, error) {
	var marked []string
	for _, sess := range sessions {
		if !pc.recent(sess.Tip.Header) {
			continue // skip reading the snapshot
		}
		rest, err := s.Others(ctx, sess.Tip.ID)
		if err != nil {
			return marked, fmt.Errorf("read session %s: %w", sess.Name, err)
		}
		cwd, _ := rest["cwd"].(string)
		if !pc.Marks(sess.Tip.Header, cwd) {
			continue
		}
		o := storage.SaveOptions{Session: sess.Name, Label: "post-commit " + pc.Commit[:min(12, len(pc.Commit))], Code: pc.Commit, Dirty: pc.Dirty}
		if _, err := s.Mark(ctx, o); err != nil {
			return marked, fmt.Errorf("mark session %s: %w", sess.Name, err)
		}
		marked = append(marked, sess.Name)
	}
	return marked, nil
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && !climbs(rel, filepath.Separator)
}

// climbs reports whether rel, a path filepath.Rel gave with the system's
// separator sep, leaves the folder it is relative to: .. and what is
// below it, not a name that only starts with two dots.
func climbs(rel string, sep byte) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(sep))
}

// HooksLocation is where git runs a repository's hooks from.
type HooksLocation struct {
	Dir string // the folder: core.hooksPath when set, else the git dir's hooks/
	// HooksPath is core.hooksPath's folder, "" when it is not set.
	HooksPath string
	// Managed, when not "", says which hook manager owns Dir and what to
	// add to its config: Dir is a folder of the project that its team
	// commits (husky's .husky/, a hooks/ folder), which git-snap does not
	// write into.
	Managed string
}

// GitHooks finds where git runs this repository's hooks, asking git
// (which honours core.hooksPath); without git, the git dir's hooks/.
// env is the environment git runs with (nil: this process's).
func GitHooks(ctx context.Context, p gitstore.Paths, env []string) (HooksLocation, error) {
	def := filepath.Join(p.CommonDir, "hooks")
	loc := HooksLocation{Dir: def}
	cmd := exec.CommandContext(ctx, "git", "--git-dir="+p.GitDir, "rev-parse", "--git-path", "hooks")
	if p.WorkTree != "" {
		cmd.Dir = p.WorkTree
	}
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return loc, nil // no git: it runs no hooks either
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cmd.Dir, dir)
	}
	if same(dir, def) {
		return loc, nil
	}
	loc.Dir, loc.HooksPath = dir, dir
	if p.WorkTree != "" && within(dir, p.WorkTree) {
		loc.Managed = managedBy(p.WorkTree, dir)
	}
	return loc, nil
}

// same reports whether two paths name one folder.
func same(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// managedBy says who owns a hooks folder inside the work tree and what
// to add there.
func managedBy(workTree, dir string) string {
	rel, _ := filepath.Rel(workTree, dir)
	line := "git-snap hook git post-commit"
	switch {
	case strings.HasPrefix(filepath.ToSlash(rel), ".husky"):
		return fmt.Sprintf("managed by husky: add the line\n    %s\nto .husky/post-commit (create it if needed; husky rewrites .husky/_ itself)", line)
	case exists(filepath.Join(workTree, "lefthook.yml")) || exists(filepath.Join(workTree, ".lefthook.yml")):
		return fmt.Sprintf("managed by lefthook: add to lefthook.yml\n    post-commit:\n      commands:\n        git-snap:\n          run: %s\nand run lefthook install", line)
	}
	return fmt.Sprintf("a folder of the project (%s), committed with it: add the line\n    %s\nto its post-commit hook", rel, line)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// GitHookCommand reads git-snap's post-commit hook in a hooks folder: the
// command it runs, and whether it is there at all.
func GitHookCommand(hooksDir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(hooksDir, "post-commit"))
	if err != nil || !bytes.Contains(data, []byte(gitHookMarker)) {
		return "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		// Also as versions before wrote it, ending in "|| true".
		if cmd, _, ok := strings.Cut(line, " post-commit >/dev/null 2>&1 ||"); ok {
			return cmd, true
		}
	}
	return "", true
}
