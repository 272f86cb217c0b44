package gitsnap

import "context"

// DefaultSession is the session a command works on when it is given no
// revision: named, what the caller was told (a --session flag,
// $GIT_SNAP_SESSION: the library reads no environment), else the
// settings' session:, else the most recently active session, as git
// takes the branch HEAD is on. Latest is true in the last case, so that
// the caller can say which session it took. A repository with no session
// is a gitstore.NoSessionsError that says how to record one. named and
// session: are returned as given: Resolve reads names given to sessions
// and prefixes of their names.
func (r *Repository) DefaultSession(ctx context.Context, named string) (session string, latest bool, err error) {
	if named != "" {
		return named, false, nil
	}
	if r.Config.Session != "" {
		return r.Config.Session, false, nil
	}
	session, err = r.store.LatestSession(ctx)
	return session, err == nil, err
}
