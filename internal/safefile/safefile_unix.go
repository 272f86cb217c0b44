//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openRegular opens path read-only: never following a symbolic link at
// its last component, never blocking on a FIFO or a device (the open
// does not wait for a writer), never inherited by a child process.
func openRegular(path string) (*os.File, error) {
	return openChecked(path, syscall.O_RDONLY, 0)
}

func openAppend(path string, perm os.FileMode) (*os.File, error) {
	return openChecked(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT, uint32(perm.Perm()))
}

func openChecked(path string, mode int, perm uint32) (*os.File, error) {
	fd, err := syscall.Open(path, mode|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, notRegular(path, "a symbolic link")
	}
	if errors.Is(err, syscall.ENXIO) { // a FIFO opened for writing with no reader
		return nil, notRegular(path, "not a regular file (a FIFO)")
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
		return nil, notRegular(path, fmt.Sprintf("not a regular file (%s)", fi.Mode().Type()))
	}
	// Reads and writes of a regular file never block; clear O_NONBLOCK
	// all the same.
	if err := syscall.SetNonblock(fd, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
