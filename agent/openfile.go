package agent

import (
	"errors"
	"os"

	"github.com/git-snap/git-snap/internal/safefile"
)

// OpenRegular opens a file an agent or a user named for reading, and
// only if it is a regular file: never following a symbolic link at its
// last component, never blocking on a FIFO or a device (the open does
// not wait for a writer), never inherited by a child process. It is
// safefile.Open, with the refusal worded for transcripts.
func OpenRegular(path string) (*os.File, error) {
	f, err := safefile.Open(path)
	var refused *safefile.Error
	if errors.As(err, &refused) {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotRegular(refused.What)}
	}
	return f, err
}
