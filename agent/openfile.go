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

// maxSettings bounds a settings or hooks file install reads: no agent's
// is near it, and one past it would be held in memory several times
// over while it is edited.
const maxSettings = 16 << 20

// readSettingsFile reads a settings or hooks file install edits or
// doctor reads. A symbolic link is followed (settings kept in a dotfiles
// repository), but a FIFO, a device or a directory is refused, never
// waited on; one that does not exist is an fs.ErrNotExist error.
func readSettingsFile(path string) ([]byte, error) {
	f, err := safefile.OpenFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSettings+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSettings {
		return nil, &SettingsError{Path: path, Msg: fmt.Sprintf("larger than %d MiB, more than any agent's settings", maxSettings>>20)}
	}
	return data, nil
}
