package gitsnap

import "context"

// DefaultSession returns the session a command works on when it is
// given no revision. It is named, the session the caller was given (by a
// --session flag or $GIT_SNAP_SESSION; the library reads no environment
// variables); otherwise the session: setting; otherwise the most
// recently active session, much as git commands default to the current
// branch. latest is true in the last case, so that the caller can tell
// the user which session it picked. For a repository with no session,
// the error is a storage.NoSessionsError that explains how to record
// one. named and the session: setting are returned unchanged, because
// Resolve accepts session names and prefixes of them.
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
