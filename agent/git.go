package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// git is not an agent: its post-commit hook ties the commits made in a
// work tree to the agent sessions that were at work there.

const gitHookMarker = "# git-snap: snapshot this work tree's agent sessions at each commit"

// InstallGitHook adds a post-commit hook that runs command, chained with
// a hook already there (kept as post-commit.before-git-snap and run after).
func InstallGitHook(hooksDir, command string) (bool, error) {
	path := filepath.Join(hooksDir, "post-commit")
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Contains(old, []byte(gitHookMarker)):
		return false, nil
	case err == nil:
		if err := os.Rename(path, path+".before-git-snap"); err != nil {
			return false, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	script := fmt.Sprintf(`#!/bin/sh
%s
%s post-commit >/dev/null 2>&1 || true
if [ -x "$0.before-git-snap" ]; then exec "$0.before-git-snap" "$@"; fi
`, gitHookMarker, command)
	if err := os.MkdirAll(hooksDir, 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(path, []byte(script), 0o755)
}

// UninstallGitHook removes git-snap's post-commit hook and puts back the
// one it was chained with.
func UninstallGitHook(hooksDir string) (bool, error) {
	path := filepath.Join(hooksDir, "post-commit")
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.Contains(cur, []byte(gitHookMarker)) {
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

// Mark marks the commit on every session it belongs to (see Marks) and
// returns their names.
func (pc PostCommit) Mark(ctx context.Context, s *gitstore.Store) ([]string, error) {
	sessions, err := s.Sessions(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var marked []string
	for _, sess := range sessions {
		if !pc.recent(sess.Tip.Header) {
			continue // skip reading the snapshot
		}
		rest, err := s.Rest(ctx, sess.Tip.ID)
		if err != nil {
			return marked, fmt.Errorf("read session %s: %w", sess.Name, err)
		}
		cwd, _ := rest["cwd"].(string)
		if !pc.Marks(sess.Tip.Header, cwd) {
			continue
		}
		o := gitstore.SaveOptions{Session: sess.Name, Label: "post-commit " + pc.Commit[:min(12, len(pc.Commit))], Code: pc.Commit, Dirty: pc.Dirty}
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
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
