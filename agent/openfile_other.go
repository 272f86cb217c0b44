//go:build !unix

package agent

import (
	"fmt"
	"os"
)

// OpenRegular opens a file an agent or a user named for reading, and
// only if it is a regular file and not a symbolic link.
func OpenRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotRegular(fmt.Sprintf("not a regular file (%s)", fi.Mode().Type()))}
	}
	return os.Open(path)
}
