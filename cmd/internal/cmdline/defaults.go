package cmdline

import (
	"context"
	"errors"
	"fmt"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/storage"
)

// sessionFlagUsage is the usage of --session on commands that take a
// REV and fall back to a session's newest snapshot.
const sessionFlagUsage = "the session `NAME` whose newest snapshot to use when no REV is given (default: $GIT_SNAP_SESSION, else session: in the config, else the most recently active)"

// revOrSession is rev, else the newest snapshot of session (--session),
// else of the default session (see defaultSession).
// readableSessions lists the sessions whose newest snapshot can be read,
// and the error naming the others (gitstore.DamagedSessions; nil when
// none), for a listing to return once it has shown what it could read:
// one damaged session made every listing fail.
func readableSessions(ctx context.Context, s *gitsnap.Repository) (sessions []storage.Session, damaged, err error) {
	sessions, err = s.Sessions(ctx)
	damaged, err = damagedApart(err)
	return sessions, damaged, err
}

// damagedApart parts err into the error naming sessions left out for
// damage (gitstore.DamagedSessions), for a command to return after what
// it could read, and one that failed the command.
func damagedApart(err error) (damaged, failed error) {
	var dmg *storage.DamagedSessions
	if errors.As(err, &dmg) {
		return err, nil
	}
	return nil, err
}

// readableCheckpoints is Checkpoints with those whose tag is missing or
// damaged set apart (nil when none), for a command that can go on
// without them: one damaged checkpoint made every log fail.
func readableCheckpoints(ctx context.Context, s *gitsnap.Repository, session string, moved bool) ([]storage.Checkpoint, *storage.DamagedCheckpoints, error) {
	cps, err := s.Checkpoints(ctx, session, moved)
	var damaged *storage.DamagedCheckpoints
	if errors.As(err, &damaged) {
		return cps, damaged, nil
	}
	return cps, nil, err
}

func (d *deps) revOrSession(ctx context.Context, rev, session string) (string, error) {
	if rev != "" {
		return rev, nil
	}
	return d.defaultSession(ctx, session)
}

// defaultSession is session (--session), else $GIT_SNAP_SESSION, else
// session: in the config, else the most recently active session (the
// library's rule, gitsnap.Repository.DefaultSession). When it is the
// last, the command says which on stderr, once, as git says which
// branch it is on.
func (d *deps) defaultSession(ctx context.Context, session string) (string, error) {
	s, latest, err := d.repo.DefaultSession(ctx, or(session, d.session))
	if err != nil {
		return "", err
	}
	if latest && !d.saidSession {
		fmt.Fprintf(d.errOut, "git-snap: on session %s, the most recently active (give REV or --session for another)\n", s)
		d.saidSession = true
	}
	return s, nil
}

// sessionArgs reads each argument as a session, as the library reads
// one (gitstore.Store.FindSession): its name, a name given to it, or a
// unique prefix of its name.
func (d *deps) sessionArgs(ctx context.Context, args []string) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		s, err := d.repo.FindSession(ctx, a)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}
