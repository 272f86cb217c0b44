// Package worktree writes a snapshot's captured files into a work tree
// without ever writing outside it. Snapshots can come from pull requests
// and other people's remotes, so every path is checked again, no symlink
// is followed, and nothing is written into .git.
package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Actions that Write reports for each file.
const (
	Written    = "written"
	WouldWrite = "would write" // reported instead of Written when DryRun is set
	Unchanged  = "unchanged"
	Refused    = "refused"
)

// Result reports what happened to one file.
type Result struct {
	Path   string
	Action string
	Reason string // why a file was refused
}

// Options control Write.
type Options struct {
	// Force overwrites files whose content differs from the snapshot's.
	// It never lets a write follow a symlink or leave the work tree.
	Force bool
	// DryRun reports what would happen and writes nothing.
	DryRun bool
	// Expect maps a path to content that the file may currently have and
	// still be overwritten without Force. It is the last recorded state,
	// which means the user has not changed the file since.
	Expect map[string][]byte
}

// Write writes files under root. Each file is written, found unchanged,
// or refused with a reason; refusing one file does not stop the others.
// The returned error reports file system failures, not refusals.
func Write(root string, files []snapshot.File, o Options) ([]Result, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("work tree %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("work tree %s is not a directory", root)
	}
	var out []Result
	for _, f := range files {
		r, err := write(root, f, o)
		if err != nil {
			return out, fmt.Errorf("write %s: %w", f.Path, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Parents checks the directories leading to a work-tree path (relative,
// slash-separated). Each must be a real directory, not a symbolic link
// (which may lead out of the work tree) or a file. It returns the
// directories that do not exist yet, in order, or the reason the path is
// refused. Capture applies the same rule when reading as Write does when
// writing.
func Parents(root, path string) (missing []string, why string) {
	segs := strings.Split(path, "/")
	dir := root
	for _, seg := range segs[:len(segs)-1] {
		dir = filepath.Join(dir, seg)
		if len(missing) > 0 {
			missing = append(missing, dir)
			continue
		}
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, dir)
		case err != nil:
			return nil, unwrapPath(err).Error()
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, rel(root, dir) + " is a symlink; git-snap does not read or write through symlinks"
		case !fi.IsDir():
			return nil, rel(root, dir) + " is a file where the snapshot has a directory"
		}
	}
	return missing, ""
}

func refused(path, format string, args ...any) Result {
	return Result{Path: path, Action: Refused, Reason: fmt.Sprintf(format, args...)}
}

func write(root string, f snapshot.File, o Options) (Result, error) {
	if err := snapshot.CheckPath(f.Path); err != nil {
		return refused(f.Path, "%v", err), nil
	}
	if f.Mode != snapshot.ModeRegular && f.Mode != snapshot.ModeExecutable && f.Mode != snapshot.ModeSymlink {
		return refused(f.Path, "mode %s is not a file git-snap writes", f.Mode), nil
	}
	missing, why := Parents(root, f.Path)
	if why != "" {
		return refused(f.Path, "%s", why), nil
	}
	target := filepath.Join(root, filepath.FromSlash(f.Path))
	if len(missing) == 0 {
		if r, done := compareExisting(target, f, o); done {
			return r, nil
		}
	}
	if o.DryRun {
		return Result{Path: f.Path, Action: WouldWrite}, nil
	}
	for _, d := range missing {
		if err := os.Mkdir(d, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return refused(f.Path, "%v", unwrapPath(err)), nil
		}
	}
	if err := place(target, f); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return refused(f.Path, "%v", unwrapPath(err)), nil
		}
		return Result{}, err
	}
	return Result{Path: f.Path, Action: Written}, nil
}

// compareExisting checks a target that may already exist. It returns the
// result and true when the file is unchanged or refused, or false when
// the file should be written.
func compareExisting(target string, f snapshot.File, o Options) (Result, bool) {
	fi, err := os.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, false
	}
	if err != nil {
		return refused(f.Path, "%v", unwrapPath(err)), true
	}
	switch {
	case fi.IsDir():
		return refused(f.Path, "a directory is where the snapshot has a file"), true
	case fi.Mode()&fs.ModeSymlink != 0:
		link, _ := os.Readlink(target)
		if f.Mode == snapshot.ModeSymlink && link == string(f.Content) {
			return Result{Path: f.Path, Action: Unchanged}, true
		}
	case fi.Mode().IsRegular():
		data, err := os.ReadFile(target)
		if err == nil && bytes.Equal(data, f.Content) && f.Mode != snapshot.ModeSymlink && execMatches(fi, f.Mode == snapshot.ModeExecutable) {
			return Result{Path: f.Path, Action: Unchanged}, true
		}
	default:
		return refused(f.Path, "%s is not a regular file", f.Path), true
	}
	if !o.Force {
		if want, ok := o.Expect[f.Path]; ok && fi.Mode().IsRegular() {
			if data, err := os.ReadFile(target); err == nil && bytes.Equal(data, want) {
				return Result{}, false
			}
		}
		return refused(f.Path, "the file in the work tree differs from the snapshot's; use --force to overwrite it"), true
	}
	return Result{}, false
}

// execMatches reports whether a file's execute bit matches the
// snapshot's. On Windows, where files have no execute bit, it always
// matches, so that a file is not rewritten for a bit it cannot have.
func execMatches(fi fs.FileInfo, want bool) bool {
	return runtime.GOOS == "windows" || (fi.Mode().Perm()&0o111 != 0) == want
}

// place writes a file or symlink by creating it next to the target and
// renaming it over the target. The rename replaces a symlink rather than
// following it.
func place(target string, f snapshot.File) error {
	dir := filepath.Dir(target)
	tmp := filepath.Join(dir, fmt.Sprintf(".git-snap-%d.tmp", os.Getpid()))
	os.Remove(tmp)
	if f.Mode == snapshot.ModeSymlink {
		if err := os.Symlink(string(f.Content), tmp); err != nil {
			return err
		}
	} else {
		perm := os.FileMode(0o666)
		if f.Mode == snapshot.ModeExecutable {
			perm = 0o777
		}
		fh, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, perm)
		if err != nil {
			return err
		}
		_, err = fh.Write(f.Content)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// unwrapPath removes the absolute path from an error, because results
// name files by their path in the snapshot.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
