package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Sessions are named by the agent (a UUID, a rollout id), which nobody
// types. A person finds one three ways, all read here so that every
// command takes them alike: the most recently active session when none is
// named (LatestSession), a unique prefix of a session's name, as of a
// snapshot id, and a short name given to it (NameSession), kept in
// .git/snap/names of this clone.

// MinSessionPrefix is the shortest prefix of a session's name that
// names it, as git reads no id prefix under four digits.
const MinSessionPrefix = 4

// SessionAlias is a short name a person gave a session.
type SessionAlias struct {
	Name    string // the short name
	Session string // the session it names
	About   string // the session's first prompt when it was named, on one line
}

// namesPath is the file that keeps the names: one a line, name, session
// and first prompt separated by tabs.
func (s *Store) namesPath() string { return filepath.Join(s.paths.CommonDir, "snap", "names") }

// SessionAliases lists the names given to sessions, sorted by name.
func (s *Store) SessionAliases() ([]SessionAlias, error) {
	b, err := os.ReadFile(s.namesPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read session names: %w", err)
	}
	return parseAliases(b), nil
}

// parseAliases reads the names file; a line that is not name, session
// and about is skipped.
func parseAliases(b []byte) []SessionAlias {
	var out []SessionAlias
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 2 || snapshot.CheckName("name", f[0]) != nil || snapshot.CheckName("session", f[1]) != nil {
			continue
		}
		a := SessionAlias{Name: f[0], Session: f[1]}
		if len(f) == 3 {
			a.About = f[2]
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b SessionAlias) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(out, func(a, b SessionAlias) bool { return a.Name == b.Name })
}

func formatAliases(list []SessionAlias) []byte {
	var b bytes.Buffer
	for _, a := range list {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", a.Name, a.Session, oneLine(a.About, 120))
	}
	return b.Bytes()
}

// alias is the session name names, or "".
func (s *Store) alias(name string) (string, error) {
	list, err := s.SessionAliases()
	if err != nil {
		return "", err
	}
	for _, a := range list {
		if a.Name == name {
			return a.Session, nil
		}
	}
	return "", nil
}

// NameExistsError means a name is given to another session already.
type NameExistsError struct{ Name, Session string }

// Error says which session has the name, and what to do.
func (e *NameExistsError) Error() string {
	return fmt.Sprintf("name %q is given to session %s already; give --force to move it, or choose another name", e.Name, e.Session)
}

// UserError marks the error as the user's to correct.
func (e *NameExistsError) UserError() {}

// NameSession gives session (a session's name, a name already given or
// a unique prefix, see FindSession) the short name name, which every
// revision and session argument then takes. A name given to another
// session moves only with force; a session's own name is no name to
// give. About is what completion shows beside the name (the session's
// first prompt, say). It returns the alias written.
func (s *Store) NameSession(ctx context.Context, name, session, about string, force bool) (SessionAlias, error) {
	if err := snapshot.CheckName("name", name); err != nil {
		return SessionAlias{}, &snapshot.InputError{Path: "name", Msg: err.Error()}
	}
	if looksLikeID(name) {
		// A name is read before an id prefix: this one would take over
		// the snapshots whose ids start with it (restore, rollback).
		return SessionAlias{}, &storage.OptionsError{Msg: fmt.Sprintf("%q reads as a snapshot id (hex, %d characters or more): choose a name with another letter in it", name, minIDPrefix)}
	}
	session, err := s.FindSession(ctx, session)
	if err != nil {
		return SessionAlias{}, err
	}
	if tip, err := s.SessionTip(name); err != nil {
		return SessionAlias{}, err
	} else if !tip.IsZero() && name != session {
		return SessionAlias{}, &storage.OptionsError{Msg: fmt.Sprintf("%q is the name of a session of its own: choose another name", name)}
	}
	a := SessionAlias{Name: name, Session: session, About: oneLine(about, 120)}
	err = s.refs.EditFile(ctx, s.namesPath(), func(old []byte) ([]byte, error) {
		list := parseAliases(old)
		if err := s.checkNameCase(ctx, name, list); err != nil {
			return nil, err
		}
		i := slices.IndexFunc(list, func(x SessionAlias) bool { return x.Name == name })
		switch {
		case i < 0:
			list = append(list, a)
		case list[i].Session != session && !force:
			return nil, &NameExistsError{name, list[i].Session}
		default:
			list[i] = a
		}
		slices.SortFunc(list, func(a, b SessionAlias) int { return strings.Compare(a.Name, b.Name) })
		return formatAliases(list), nil
	})
	return a, err
}

// Unname removes a name given to a session; the session stays.
func (s *Store) Unname(ctx context.Context, name string) error {
	return s.refs.EditFile(ctx, s.namesPath(), func(old []byte) ([]byte, error) {
		list := parseAliases(old)
		i := slices.IndexFunc(list, func(x SessionAlias) bool { return x.Name == name })
		if i < 0 {
			return nil, &storage.NotFoundError{Name: name, Msg: "is no name given to a session (see git snap name)"}
		}
		return formatAliases(slices.Delete(list, i, i+1)), nil
	})
}

// FindSession reads a session argument: a session's name, a name given
// to one (NameSession), or a prefix of at least MinSessionPrefix
// characters of exactly one session's name. A prefix of several is an
// error that lists them.
func (s *Store) FindSession(ctx context.Context, arg string) (string, error) {
	session, ok, err := s.findSession(ctx, arg)
	if err == nil && !ok {
		err = storage.NoSession(arg)
	}
	return session, err
}

// findSession is FindSession, with ok false and no error when arg names
// no session.
func (s *Store) findSession(ctx context.Context, arg string) (session string, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	if snapshot.CheckName("session", arg) != nil {
		return "", false, nil
	}
	if tip, err := s.SessionTip(arg); err != nil || !tip.IsZero() {
		return arg, err == nil, err
	}
	if session, err := s.alias(arg); err != nil || session != "" {
		if err == nil {
			err = s.checkAliasTarget(arg, session)
		}
		return session, err == nil, err
	}
	found, err := s.sessionsWithPrefix(ctx, arg)
	switch {
	case err != nil || len(found) == 0:
		return "", false, err
	case len(found) == 1:
		return found[0], true, nil
	}
	return "", false, &storage.RevisionError{Rev: arg, Msg: "is ambiguous: it starts sessions " + listSome(found) + "; give more characters"}
}

// minIDPrefix is the shortest id prefix a revision takes, as git.
const minIDPrefix = 4

// looksLikeID reports whether name could be read as a snapshot id or a
// prefix of one.
func looksLikeID(name string) bool { return len(name) >= minIDPrefix && isHex(name) }

// checkAliasTarget says when a name names a session that is gone.
func (s *Store) checkAliasTarget(name, session string) error {
	tip, err := s.SessionTip(session)
	if err != nil || !tip.IsZero() {
		return err
	}
	return &storage.NotFoundError{Name: name, Msg: fmt.Sprintf("names session %s, which is gone (dropped?): git snap undrop %s brings it back, git snap name --delete %s forgets the name", session, session, name)}
}

// sessionsWithPrefix lists the sessions whose names start with prefix,
// sorted; none for a prefix shorter than MinSessionPrefix.
func (s *Store) sessionsWithPrefix(ctx context.Context, prefix string) ([]string, error) {
	if len(prefix) < MinSessionPrefix {
		return nil, nil
	}
	names, err := s.SessionNames(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out, nil
}

// listSome joins names for a message, at most ten of them.
func listSome(names []string) string {
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	return strings.Join(names, ", ")
}

// LatestSession is the most recently active session: the one whose
// newest snapshot is the newest of all (by its time, then by name). It
// is what a command takes when it is given no session, as git takes the
// branch HEAD is on.
func (s *Store) LatestSession(ctx context.Context) (string, error) {
	tips, err := s.refs.List(s.prefix)
	if err != nil {
		return "", err
	}
	var best storage.Entry
	name := ""
	for ref, h := range tips {
		e, err := s.Entry(ctx, h)
		if errors.Is(err, storage.ErrNotSnapshot) {
			continue
		}
		if err != nil {
			return "", err
		}
		n := strings.TrimPrefix(ref, s.prefix)
		if c := e.Header.Time.Compare(best.Header.Time); name == "" || c > 0 || (c == 0 && n < name) {
			best, name = e, n
		}
	}
	if name == "" {
		dir := s.paths.WorkTree
		if dir == "" {
			dir = s.paths.CommonDir
		}
		return "", &storage.NoSessionsError{Dir: dir}
	}
	return name, nil
}

// oneLine is text on one line, cut at max runes, as the names file
// keeps what a name is about: a tab or a newline would break its lines.
func oneLine(text string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > max {
		return strings.TrimRightFunc(string(r[:max-1]), unicode.IsSpace) + "…"
	}
	return text
}
