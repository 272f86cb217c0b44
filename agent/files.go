package agent

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// readWorkFile reads one work-tree file for capture: regular files and
// symlinks (as their target), not directories, nothing larger than max.
func readWorkFile(root, rel string, max int) (snapshot.File, bool) {
	path := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(path)
	if err != nil {
		return snapshot.File{}, false
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		return snapshot.File{Path: rel, Mode: snapshot.ModeSymlink, Content: []byte(target)}, err == nil
	case !fi.Mode().IsRegular() || max > 0 && fi.Size() > int64(max):
		return snapshot.File{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return snapshot.File{}, false
	}
	mode := snapshot.ModeRegular
	if fi.Mode().Perm()&0o111 != 0 {
		mode = snapshot.ModeExecutable
	}
	return snapshot.File{Path: rel, Mode: mode, Content: data}, true
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
