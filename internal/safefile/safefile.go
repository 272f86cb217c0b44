// Package safefile opens the files git-snap reads and appends to that
// someone else may have put in its way: a committed .git-snap.yaml, the
// caches, notes and log under .git/snap/, transcripts an agent names.
// Any of them may be a symbolic link to /dev/zero, a FIFO no one writes,
// or a sparse file of gigabytes, and each is read by every command, the
// hook included. So a file is opened only if it is a regular file,
// without waiting on a FIFO or a device, not through a symbolic link
// (unless the link stays inside a root the caller names), and read to a
// cap, in steps that stop when the context is cancelled.
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

// Error says why a file was refused. It is the user's to act on: the
// file is not what git-snap reads.
type Error struct {
	Path string
	What string // what the file is: "a symbolic link", "larger than 1048576 bytes"
	Hint string // what to do
}

// Error names the file and the problem, and what to do.
func (e *Error) Error() string { return e.Path + ": " + e.What + ": refused, " + e.Hint }

// UserError marks the error as the user's to act on.
func (e *Error) UserError() {}

// ErrRefused is in the chain of every refusal: a file that is not a
// regular file, or a symbolic link out of its root, or larger than the
// cap. Callers that read a cache treat it as no cache.
var ErrRefused = errors.New("refused")

// Is lets errors.Is(err, ErrRefused) match an Error.
func (e *Error) Is(target error) bool { return target == ErrRefused }

func notRegular(path, what string) error {
	return &Error{path, what, "git-snap reads only regular files; remove it or replace it with a regular file"}
}

// Open opens path for reading if it is a regular file and not a
// symbolic link. The open never blocks: a FIFO or a device is refused.
func Open(path string) (*os.File, error) { return openRegular(path) }

// OpenFollow is Open, except that symbolic links are followed (git's
// own config files are often links into a repository of dotfiles): the
// file they lead to must be regular, and the open never blocks.
func OpenFollow(path string) (*os.File, error) { return openFollow(path) }

// OpenIn is Open, except that a symbolic link is followed when it and
// every link on the way resolve inside root (a committed file may be a
// link to another file of the same work tree, never out of it).
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

// ReadFile reads a whole file opened by OpenIn (root "" for Open), at
// most max bytes: a larger file is refused before it is read. The read
// goes in steps and stops with ctx's error when ctx is done.
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
			return nil, tooLarge(path, max) // it grew while read
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
// once Ctx is done, so that a long read ends with the command.
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

// OpenAppend opens path for appending, creating it with perm (less the
// umask) if it is missing, and only if it is a regular file: a FIFO put
// there would block the writer until someone read it, and a link would
// have it append elsewhere.
func OpenAppend(path string, perm os.FileMode) (*os.File, error) {
	return openAppend(path, perm)
}

// ReadQuick reads at most len(buf) bytes of one of git's own small files
// (see OpenQuick) into buf: a file that fills buf may hold more.
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
