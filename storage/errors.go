package storage

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Errors meant for users have a UserError method: the command line exits
// with status 2 for them (the call or the input is wrong, and nothing was
// written), and with status 1 for everything else.

// ErrStop ends a Walk early without error.
var ErrStop = errors.New("stop walking")

// ErrNotSnapshot means a commit was found but git-snap did not make it.
var ErrNotSnapshot = errors.New("not a git-snap snapshot")

// NotFoundError means something the user named, a session or a
// checkpoint, does not exist.
type NotFoundError struct {
	Name string // as the user gave it
	Msg  string // what it does not name, and where to look
}

// Error names what was asked for and what is missing.
func (e *NotFoundError) Error() string { return fmt.Sprintf("%q %s", e.Name, e.Msg) }

// UserError marks the error as the user's to correct.
func (e *NotFoundError) UserError() {}

// NoSession is the error for a session name that names none.
func NoSession(name string) error {
	return &NotFoundError{name, "names no session (see git snap sessions)"}
}

// NoSessionsError means a command needed a session and the repository
// has none yet.
type NoSessionsError struct{ Dir string }

// Error says there is none and how to make one.
func (e *NoSessionsError) Error() string {
	return fmt.Sprintf("no session is recorded in %s yet: git snap install claude-code (or codex, gemini, …) records the agent's sessions from its next turn, git snap import --from claude-code ~/.claude/projects brings in those it has, git snap save -s NAME FILE saves a document", e.Dir)
}

// UserError marks the error as the user's to act on.
func (e *NoSessionsError) UserError() {}

// OptionsError means options given to an operation do not make sense
// together, or say too little.
type OptionsError struct{ Msg string }

// Error says what is wrong with the options.
func (e *OptionsError) Error() string { return e.Msg }

// UserError marks the error as the user's to correct.
func (e *OptionsError) UserError() {}

// CheckpointExistsError means a name is taken and force was not given.
type CheckpointExistsError struct {
	Session, Name string
	Target        ID
}

// Error says which snapshot holds the name, and what to do.
func (e *CheckpointExistsError) Error() string {
	return fmt.Sprintf("checkpoint %q of session %s already names snapshot %s; use --force to move it", e.Name, e.Session, e.Target.Short())
}

// UserError marks the error as the user's to correct.
func (e *CheckpointExistsError) UserError() {}

// DamagedSessions is the error of a listing of sessions some of whose
// newest snapshots could not be read (an object missing or damaged): the
// listing returns the sessions it could read with it, so that a command
// that lists them shows those and names these, where one damaged session
// made the whole listing fail.
type DamagedSessions struct{ Sessions []DamagedSession }

// DamagedSession is a session whose newest snapshot could not be read.
type DamagedSession struct {
	Name string
	Tip  ID
	Err  error
}

// Error names each damaged session and what is wrong with it.
func (e *DamagedSessions) Error() string {
	var b strings.Builder
	for i, d := range e.Sessions {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "session %s could not be read (%v)", d.Name, d.Err)
	}
	return b.String()
}

// Of is the error naming session alone, nil when it is not among them:
// a command about one session is not failed by another's damage.
func (e *DamagedSessions) Of(session string) error {
	for _, d := range e.Sessions {
		if d.Name == session {
			return &DamagedSessions{Sessions: []DamagedSession{d}}
		}
	}
	return nil
}

// Unwrap gives each session's error.
func (e *DamagedSessions) Unwrap() []error {
	out := make([]error, len(e.Sessions))
	for i, d := range e.Sessions {
		out[i] = d.Err
	}
	return out
}

// DamagedCheckpoints is the error of a listing of checkpoints some of
// whose tags could not be read (missing or damaged): the listing
// returns the checkpoints it could read with it. Each damaged one has
// its Ref, Session, Name and Moved; nothing else of it is known. Errs
// holds what went wrong with each, in the same order.
type DamagedCheckpoints struct {
	Checkpoints []Checkpoint
	Errs        []error
}

// Error names each damaged checkpoint and what is wrong with it.
func (e *DamagedCheckpoints) Error() string {
	var b strings.Builder
	for i, c := range e.Checkpoints {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "checkpoint snap/%s/%s could not be read (%v)", c.Session, c.Name, e.Errs[i])
	}
	return b.String()
}

// Unwrap gives each checkpoint's error.
func (e *DamagedCheckpoints) Unwrap() []error { return e.Errs }

// Of is the error for the damaged checkpoints of sessions alone, nil
// when none of theirs is damaged.
func (e *DamagedCheckpoints) Of(sessions ...string) error {
	var out DamagedCheckpoints
	for i, c := range e.Checkpoints {
		if slices.Contains(sessions, c.Session) {
			out.Checkpoints = append(out.Checkpoints, c)
			out.Errs = append(out.Errs, e.Errs[i])
		}
	}
	if len(out.Checkpoints) == 0 {
		return nil
	}
	return &out
}

// RevisionError means a revision names no snapshot. It is the user's
// input that is wrong.
type RevisionError struct {
	Rev string
	Msg string
}

// Error names the revision and why it names no snapshot.
func (e *RevisionError) Error() string { return fmt.Sprintf("revision %q: %s", e.Rev, e.Msg) }

// UserError marks the error as the user's to correct.
func (e *RevisionError) UserError() {}
