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
