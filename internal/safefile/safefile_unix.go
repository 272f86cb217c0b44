//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// openRegular opens path read-only. It does not follow a symbolic link
// in the last path component, does not block on a FIFO or a device (the
// open does not wait for a writer), and the file is not inherited by
// child processes.
func openRegular(path string) (*os.File, error) {
	return openChecked(path, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

func openFollow(path string) (*os.File, error) {
	return openChecked(path, syscall.O_RDONLY, 0)
}

func openAppend(path string, perm os.FileMode) (*os.File, error) {
	return openChecked(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_NOFOLLOW, uint32(perm.Perm()))
}

func openChecked(path string, mode int, perm uint32) (*os.File, error) {
	fd, err := syscall.Open(path, mode|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if errors.Is(err, syscall.ELOOP) && mode&syscall.O_NOFOLLOW != 0 {
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
	// Reads and writes of a regular file never block, but clear
	// O_NONBLOCK anyway.
	if err := syscall.SetNonblock(fd, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Quick is a file opened by OpenQuick.
type Quick struct {
	fd   int
	path string
}

// OpenQuick opens one of git's own files (a loose ref or a loose
// object) for a short read, the way git opens them: it follows links,
// never waits on a FIFO or a device, and the file is not inherited by
// child processes. It avoids os.File, whose setup (registering with the
// poller and back, a finalizer) costs more system calls than the read
// itself; listing 10k sessions opens 20k of these files. The file type
// is not checked, so the caller must limit how much it reads.
func OpenQuick(path string) (*Quick, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return &Quick{fd, path}, nil
	}
}

// Read reads from the file. It returns io.EOF at the end of the file.
func (q *Quick) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(q.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: q.path, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close closes the file.
func (q *Quick) Close() error { return syscall.Close(q.fd) }
