package gitstore

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
)

// Errors meant for users have a UserError method: the command line exits
// with status 2 for them (the call or the input is wrong, and nothing was
// written), and with status 1 for everything else.

// ErrNotRepository means no git repository was found.
var ErrNotRepository error = userErr("not a git repository")

// ErrRepositoryExists means a repository was to be made where one is.
var ErrRepositoryExists = errors.New("a git repository exists there already")

type userErr string

func (e userErr) Error() string { return string(e) }
func (userErr) UserError()      {}

// UserError marks the error as the user's to correct.
func (e *FormatError) UserError() {}

// UserError marks the error as the user's to correct.
func (e *BundleError) UserError() {}

// IsDamaged reports whether err comes from an object the repository
// lacks or holds damaged: the store cannot read what it needs, and only
// another copy of it (a clone, a remote) can bring it back.
func IsDamaged(err error) bool {
	var damaged *damagedError
	return errors.As(err, &damaged) || errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, gitobj.ErrMalformedCommit) ||
		errors.Is(err, gitobj.ErrMalformedTree) || errors.Is(err, gitobj.ErrMalformedTag)
}
