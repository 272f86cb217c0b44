package agent

import (
	"errors"
	"fmt"
	"strings"
)

// Unread is what a HookReader's Transcripts could not look in, returned
// beside the files it did find: a place a subagent's transcript might be
// that is not a folder, or cannot be read. One such place must not cost
// the whole conversation, so callers record what was found and say what
// was skipped (in hook.log, for a hook call).
type Unread struct {
	// Paths are the places not read, each with why.
	Paths []string
}

// Error names every place not read and why.
func (s *Unread) Error() string {
	return "not read, the rest recorded: " + strings.Join(s.Paths, "; ")
}

// add notes path as not read for err.
func (s *Unread) add(path string, err error) {
	var pe interface{ Unwrap() error }
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		err = pe.Unwrap() // the path is said once
	}
	s.Paths = append(s.Paths, fmt.Sprintf("%s (%v)", path, err))
}

// err is s as an error, nil when every place was read.
func (s *Unread) err() error {
	if len(s.Paths) == 0 {
		return nil
	}
	return s
}

// IsUnread reports whether err says only what Transcripts could not read.
func IsUnread(err error) bool {
	var s *Unread
	return errors.As(err, &s)
}
