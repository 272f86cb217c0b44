package capture

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/worktree"
)

// readWorkFile reads one work-tree file for capture: regular files and
// symlinks (as their target), not directories, nothing reached through a
// symlinked directory (worktree.Parents: the rule Write follows), nothing
// larger than max. A regular file over max is not read: its size is
// returned, for the snapshot to list it as skipped.
func readWorkFile(root, rel string, max int) (f snapshot.File, skipped int64, ok bool) {
	if _, why := worktree.Parents(root, rel); why != "" {
		return snapshot.File{}, 0, false
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(path)
	if err != nil {
		return snapshot.File{}, 0, false
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		return snapshot.File{Path: rel, Mode: snapshot.ModeSymlink, Content: []byte(target)}, 0, err == nil
	case !fi.Mode().IsRegular():
		return snapshot.File{}, 0, false
	case max > 0 && fi.Size() > int64(max):
		return snapshot.File{}, fi.Size(), false
	}
	r, err := agent.OpenRegular(path)
	if err != nil {
		return snapshot.File{}, 0, false
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return snapshot.File{}, 0, false
	}
	if max > 0 && len(data) > max { // grew since the stat
		return snapshot.File{}, int64(len(data)), false
	}
	mode := snapshot.ModeRegular
	if executable(runtime.GOOS == "windows", fi.Mode(), data) {
		mode = snapshot.ModeExecutable
	}
	return snapshot.File{Path: rel, Mode: mode, Content: data}, 0, true
}

// executable reports whether a file is saved as executable: with an
// execute bit; on Windows, whose files have none, when it starts with
// #!, as a script made executable in a clone elsewhere does.
func executable(windows bool, mode fs.FileMode, data []byte) bool {
	if windows {
		return bytes.HasPrefix(data, []byte("#!"))
	}
	return mode.Perm()&0o111 != 0
}

// GitChanged lists the files of a work tree that differ from its commit,
// untracked ones included (not ignored ones), by asking git. Without git
// on PATH it lists nothing.
func GitChanged(root string) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		if _, err := exec.LookPath("git"); err != nil {
			return nil, nil
		}
		cmd := exec.CommandContext(ctx, "git", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			return nil, err
		}
		var paths []string
		for _, rec := range bytes.Split(out, []byte{0}) {
			if len(rec) > 3 && !strings.HasPrefix(string(rec), " D") && !strings.HasPrefix(string(rec), "D ") {
				paths = append(paths, string(rec[3:]))
			}
		}
		return paths, nil
	}
}
