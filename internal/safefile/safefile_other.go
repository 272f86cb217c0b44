//go:build !unix

package safefile

import (
	"fmt"
	"os"
)

func openRegular(path string) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	return os.Open(path)
}

func openFollow(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fmt.Sprintf("not a regular file (%s)", fi.Mode().Type()))
	}
	return os.Open(path)
}

func openAppend(path string, perm os.FileMode) (*os.File, error) {
	if err := checkRegular(path); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

func checkRegular(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return notRegular(path, fmt.Sprintf("not a regular file (%s)", fi.Mode().Type()))
	}
	return nil
}

// Quick is a file opened by OpenQuick.
type Quick struct{ f *os.File }

// OpenQuick opens one of git's own files (a loose ref or a loose
// object) for a short read. See the unix version.
func OpenQuick(path string) (*Quick, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &Quick{f}, nil
}

// Read reads from the file. It returns io.EOF at the end of the file.
func (q *Quick) Read(p []byte) (int, error) { return q.f.Read(p) }

// Close closes the file.
func (q *Quick) Close() error { return q.f.Close() }
