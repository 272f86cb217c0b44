//go:build unix

package agent

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// OpenRegular opens a file an agent or a user named for reading, and
// only if it is a regular file: never following a symbolic link at its
// last component, never blocking on a FIFO or a device (the open does
// not wait for a writer), never inherited by a child process.
func OpenRegular(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotRegular("a symbolic link")}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotRegular(fmt.Sprintf("not a regular file (%s)", fi.Mode().Type()))}
	}
	// Reads of a regular file never block; clear O_NONBLOCK all the same.
	if err := syscall.SetNonblock(fd, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
