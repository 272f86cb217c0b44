package agent

import (
	"errors"
	"fmt"
	"io"
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

// readRegular reads a whole regular file (see OpenRegular) of at most
// max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes, the most read of one document", path, max)
	}
	return data, nil
}
