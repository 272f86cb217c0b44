package gitstore

import (
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore/internal/refs"
)

// Lock is a ref lock file found in a repository.
type Lock struct {
	Path string
	Age  time.Duration
	PID  int  // the process git-snap's note names; 0 for a lock of git's
	Dead bool // that process is of this host and no longer runs
}

// Stale reports whether the lock was left by a process that is gone: its
// holder is dead, or, for a lock without a note, it is older than any
// write takes.
func (l Lock) Stale() bool { return l.Dead || (l.PID == 0 && l.Age > staleTempAge) }

// Inspection is what doctor reads of a repository's git-snap state:
// locks on git-snap's refs and the temporary files of killed writers.
type Inspection struct {
	Locks []Lock   // every lock on refs/snap, refs/snap-tags, refs/tags/snap, refs/snap-moved, packed-refs and names
	Temp  []string // temporary files older than gc leaves them (see GC)
}

// Inspect reads a repository's locks and leftover temporary files
// without changing anything.
func Inspect(p Paths, now time.Time) Inspection {
	var in Inspection
	for _, root := range []string{filepath.Join(p.CommonDir, "refs", "snap"), filepath.Join(p.CommonDir, "refs", "snap-tags"), filepath.Join(p.CommonDir, "refs", "tags", "snap"), filepath.Join(p.CommonDir, "refs", "snap-moved"), filepath.Join(p.CommonDir, "packed-refs.lock"), filepath.Join(p.CommonDir, "snap", "names.lock")} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lock") {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			pid, dead := refs.Holder(path)
			in.Locks = append(in.Locks, Lock{Path: path, Age: now.Sub(fi.ModTime()), PID: pid, Dead: dead})
			return nil
		})
	}
	s := &Store{paths: p}
	s.eachStaleTemp(now.Add(-staleTempAge), func(path string) { in.Temp = append(in.Temp, path) })
	return in
}
