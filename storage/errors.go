package storage

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Errors meant for users have a UserError method. The command line exits
// with status 2 for them (the call or the input is wrong, and nothing was
// written), and with status 1 for all other errors.

// ErrStop ends a Walk early without error.
var ErrStop = errors.New("stop walking")

// ErrNotSnapshot means a commit was found but git-snap did not create it.
var ErrNotSnapshot = errors.New("not a git-snap snapshot")

// NotFoundError means that something the user named, such as a session
// or a checkpoint, does not exist.
type NotFoundError struct {
	Name string // the name as the user gave it
	Msg  string // what kind of thing was not found, and where to look
}

// Error names what was asked for and what is missing.
func (e *NotFoundError) Error() string { return fmt.Sprintf("%q %s", e.Name, e.Msg) }

// UserError marks the error as one the user must fix.
func (e *NotFoundError) UserError() {}

// NoSession returns the error for a name that matches no session.
func NoSession(name string) error {
	return &NotFoundError{name, "names no session (see git snap sessions)"}
}

// NoSessionsError means a command needed a session and the repository
// has none yet.
type NoSessionsError struct{ Dir string }

// Error says that there is no session yet and how to record one.
func (e *NoSessionsError) Error() string {
	return fmt.Sprintf("no session is recorded in %s yet: git snap install claude-code (or codex, gemini, …) records the agent's sessions from its next turn; git snap import --from claude-code ~/.claude/projects imports its existing sessions; git snap save -s NAME FILE saves a document", e.Dir)
}

// UserError marks the error as one the user must act on.
func (e *NoSessionsError) UserError() {}

// OptionsError means that the options given to an operation conflict,
// or are incomplete.
type OptionsError struct{ Msg string }

// Error says what is wrong with the options.
func (e *OptionsError) Error() string { return e.Msg }

// UserError marks the error as one the user must fix.
func (e *OptionsError) UserError() {}

// CheckpointExistsError means a checkpoint name is already used and
// force was not given.
type CheckpointExistsError struct {
	Session, Name string
	Target        ID
}

// Error says which snapshot has the name, and what to do.
func (e *CheckpointExistsError) Error() string {
	return fmt.Sprintf("checkpoint %q of session %s already names snapshot %s; use --force to move it", e.Name, e.Session, e.Target.Short())
}

// UserError marks the error as one the user must fix.
func (e *CheckpointExistsError) UserError() {}

// DamagedSessions is returned by a listing of sessions when the newest
// snapshots of some sessions could not be read (because an object is
// missing or damaged). The listing returns the sessions it could read
// along with this error, so that a command can show those and name the
// damaged ones, rather than failing the whole listing because of one
// damaged session.
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

// Of returns an error naming session alone, or nil if session is not
// damaged, so that a command about one session does not fail because
// another session is damaged.
func (e *DamagedSessions) Of(session string) error {
	for _, d := range e.Sessions {
		if d.Name == session {
			return &DamagedSessions{Sessions: []DamagedSession{d}}
		}
	}
	return nil
}

// Unwrap returns each session's error.
func (e *DamagedSessions) Unwrap() []error {
	out := make([]error, len(e.Sessions))
	for i, d := range e.Sessions {
		out[i] = d.Err
	}
	return out
}

// DamagedCheckpoints is returned by a listing of checkpoints when the
// tags of some checkpoints could not be read (because they are missing
// or damaged). The listing returns the checkpoints it could read along
// with this error. For each damaged checkpoint only Ref, Session, Name
// and Moved are known. Errs holds the error of each one, in the same
// order.
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

// Unwrap returns each checkpoint's error.
func (e *DamagedCheckpoints) Unwrap() []error { return e.Errs }

// Of returns an error for the damaged checkpoints of the given sessions
// only, or nil when none of their checkpoints is damaged.
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

// RevisionError means a revision does not resolve to a snapshot. The
// user's input is wrong.
type RevisionError struct {
	Rev string
	Msg string
}

// Error names the revision and why it names no snapshot.
func (e *RevisionError) Error() string { return fmt.Sprintf("revision %q: %s", e.Rev, e.Msg) }

// UserError marks the error as one the user must fix.
func (e *RevisionError) UserError() {}
