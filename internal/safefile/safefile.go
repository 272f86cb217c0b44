// Package safefile opens files that git-snap reads or appends to and
// that someone else may have placed: a committed .git-snap.yaml, the
// caches, notes and log under .git/snap/, and transcripts named by an
// agent. Any of them may be a symbolic link to /dev/zero, a FIFO that
// no one writes to, or a sparse file of several gigabytes, and every
// command reads them, including the hook. So this package opens a file
// only if it is a regular file, never waits on a FIFO or a device, does
// not follow symbolic links (unless the link stays inside a root the
// caller names), and reads at most a given number of bytes, in steps
// that stop when the context is cancelled.
package safefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Error reports why a file was refused. The user is expected to fix it,
// because the file is not something git-snap will read.
type Error struct {
	Path string
	What string // what the file is: "a symbolic link", "larger than 1048576 bytes"
	Hint string // what to do
}

// Error names the file, the problem and what to do.
func (e *Error) Error() string { return e.Path + ": " + e.What + ": refused, " + e.Hint }

// UserError marks the error as one the user must fix.
func (e *Error) UserError() {}

// ErrRefused matches every refusal: a file that is not a regular file,
// a symbolic link that leads outside its root, or a file larger than
// the limit. Callers that read a cache treat it as a missing cache.
var ErrRefused = errors.New("refused")

// Is lets errors.Is(err, ErrRefused) match an Error.
func (e *Error) Is(target error) bool { return target == ErrRefused }

func notRegular(path, what string) error {
	return &Error{path, what, "git-snap reads only regular files; remove it or replace it with a regular file"}
}

// Open opens path for reading if it is a regular file and not a
// symbolic link. The open never blocks: a FIFO or a device is refused.
func Open(path string) (*os.File, error) { return openRegular(path) }

// OpenFollow is like Open, but follows symbolic links, because git's own
// config files are often links into a dotfiles repository. The target
// must be a regular file, and the open never blocks.
func OpenFollow(path string) (*os.File, error) { return openFollow(path) }

// OpenIn is like Open, but follows a symbolic link when the link and
// every link along the way resolve inside root. A committed file may be
// a link to another file in the same work tree, but not to one outside.
func OpenIn(path, root string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 || root == "" {
		return openRegular(path)
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(realRoot, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, notRegular(path, "a symbolic link out of "+root)
	}
	return openRegular(target)
}

// ReadFile opens path with OpenIn (or Open, when root is "") and reads
// the whole file. A file larger than max bytes is refused before it is
// read. The read proceeds in steps and stops with ctx's error when ctx
// is done.
func ReadFile(ctx context.Context, path, root string, max int64) ([]byte, error) {
	f, err := OpenIn(path, root)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, tooLarge(path, max)
	}
	buf := make([]byte, 0, fi.Size()+1)
	r := &Reader{Ctx: ctx, R: io.LimitReader(f, max+1)}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, tooLarge(path, max) // the file grew while being read
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func tooLarge(path string, max int64) error {
	return &Error{path, fmt.Sprintf("larger than %d bytes", max), "remove it or make it smaller"}
}

// Reader reads R in steps of at most 1 MiB and stops with Ctx's error
// once Ctx is done, so that a long read stops when the command does.
type Reader struct {
	Ctx context.Context
	R   io.Reader
}

// Read reads from R unless the context is done.
func (r *Reader) Read(p []byte) (int, error) {
	if err := r.Ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > 1<<20 {
		p = p[:1<<20]
	}
	return r.R.Read(p)
}

// OpenAppend opens path for appending, creating it with perm (minus the
// umask) if it does not exist. It refuses anything but a regular file: a
// FIFO would block the writer until someone reads it, and a symbolic
// link would redirect the writes elsewhere.
func OpenAppend(path string, perm os.FileMode) (*os.File, error) {
	return openAppend(path, perm)
}

// ReadQuick reads up to len(buf) bytes of one of git's own small files
// (see OpenQuick) into buf. If the file fills buf, it may hold more.
func ReadQuick(path string, buf []byte) (int, error) {
	q, err := OpenQuick(path)
	if err != nil {
		return 0, err
	}
	defer q.Close()
	n, err := io.ReadFull(q, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return n, err
}
