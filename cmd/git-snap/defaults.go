package main

// sessionFlagUsage is the usage of --session on commands that take a
// REV and fall back to a session's newest snapshot.
const sessionFlagUsage = "the session `NAME` whose newest snapshot to use when no REV is given (default: $GIT_SNAP_SESSION, else session: in the config)"

// revOrSession is rev, else the newest snapshot of session (--session),
// else of the default session; a usage error for cmd when none is set.
func (d *deps) revOrSession(rev, session, cmd string) (string, error) {
	if r := or(rev, or(session, d.session)); r != "" {
		return r, nil
	}
	return "", &usageError{
		msg:  cmd + " needs REV (a session, session~N, snap/<session>/<name> or an id), or a default session",
		cmd:  cmd,
		hint: "give REV, or --session NAME, or set $GIT_SNAP_SESSION or session: in the config",
	}
}
