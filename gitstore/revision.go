package gitstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Resolve finds the snapshot a revision names. Revisions are written as
// git users write them: a session ("fix-bug"), its ancestors ("fix-bug~2",
// "fix-bug^"), a checkpoint ("snap/fix-bug/before-refactor"), an id or a
// unique prefix of one, or any git ref or name ("refs/snap/fix-bug",
// "snap/fix-bug") that points at a snapshot.
func (s *Store) Resolve(ctx context.Context, rev string) (storage.ID, error) {
	if err := ctx.Err(); err != nil {
		return storage.ID{}, err
	}
	if err := CheckRevision(rev); err != nil {
		return storage.ID{}, err
	}
	base, ops := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, ops = rev[:i], rev[i:]
	}
	id, err := s.resolveBase(ctx, base)
	if isHex(base) && len(base) >= 4 {
		// An id copied before a prune names the snapshot's new commit,
		// also once git gc has removed the old one.
		if nu, ok := s.pruned(strings.ToLower(base)); ok && (err != nil || strings.HasPrefix(id.String(), strings.ToLower(base))) {
			id, err = nu, nil
		}
	}
	if err != nil {
		return storage.ID{}, err
	}
	if id, err = s.walkParents(rev, id, ops); err != nil {
		return storage.ID{}, err
	}
	if _, err := s.Entry(ctx, id); err != nil {
		if errors.Is(err, storage.ErrNotSnapshot) {
			return storage.ID{}, &storage.RevisionError{Rev: rev, Msg: fmt.Sprintf("names commit %s, which is not a git-snap snapshot", id)}
		}
		return storage.ID{}, err
	}
	return id, nil
}

// resolveBase finds what a revision without ~ and ^ names: a session,
// a name given to one, a checkpoint, a git ref, then a unique prefix of
// a session's name or of a snapshot id (both together may be
// ambiguous).
func (s *Store) resolveBase(ctx context.Context, base string) (storage.ID, error) {
	if h, err := s.resolveName(ctx, base); err != nil || !h.IsZero() {
		return h, err
	}
	return s.resolvePrefix(ctx, base)
}

// resolveName finds what base names in full: a snapshot's whole id, a
// session, a name given to one, a checkpoint or a git ref; a zero id
// when it names none. A whole id comes first, so that no name can take
// it over; a name that reads as an id prefix (one given before names
// were checked) is no name where it starts an id.
func (s *Store) resolveName(ctx context.Context, base string) (storage.ID, error) {
	if len(base) == 40 && isHex(base) {
		if ids := s.objectsWithPrefix(base); len(ids) == 1 {
			return s.peel(ids[0])
		}
	}
	if snapshot.CheckName("session", base) == nil {
		h, err := s.refs.Read(s.SessionRef(base))
		if err != nil || !h.IsZero() {
			return h, err
		}
		session, err := s.alias(base)
		if err != nil {
			return storage.ID{}, err
		}
		if session != "" && looksLikeID(base) && len(s.objectsWithPrefix(base)) > 0 {
			return storage.ID{}, &storage.RevisionError{Rev: base, Msg: fmt.Sprintf("is ambiguous: a name given to session %s and the start of a snapshot id; give more of the id, or forget the name (git snap name --delete %s)", session, base)}
		}
		if session != "" {
			if err := s.checkAliasTarget(base, session); err != nil {
				return storage.ID{}, err
			}
			return s.SessionTip(session)
		}
	}
	if h, err := s.checkpointRev(ctx, base); err != nil || !h.IsZero() {
		return h, err
	}
	var candidates []string
	if strings.HasPrefix(base, "refs/") {
		candidates = append(candidates, base)
	} else {
		candidates = append(candidates, "refs/tags/"+base, "refs/"+base, "refs/heads/"+base, "refs/remotes/"+base)
	}
	for _, ref := range candidates {
		h, err := s.refs.Read(ref)
		if err != nil {
			return storage.ID{}, err
		}
		if !h.IsZero() {
			return s.peel(h)
		}
	}
	return storage.ID{}, nil
}

// resolvePrefix finds the one session whose name, or the one snapshot
// whose id, starts with base.
func (s *Store) resolvePrefix(ctx context.Context, base string) (storage.ID, error) {
	var sessions []string
	if snapshot.CheckName("session", base) == nil {
		var err error
		if sessions, err = s.sessionsWithPrefix(ctx, base); err != nil {
			return storage.ID{}, err
		}
	}
	var ids []storage.ID
	hex := len(base) >= 4 && len(base) <= 40 && isHex(base)
	if hex {
		ids = s.objectsWithPrefix(base)
	}
	switch {
	case len(sessions) == 1 && len(ids) == 0:
		return s.SessionTip(sessions[0])
	case len(ids) == 1 && len(sessions) == 0:
		return s.peel(ids[0])
	case len(sessions)+len(ids) > 1:
		var what []string
		if len(sessions) > 0 {
			what = append(what, "sessions "+listSome(sessions))
		}
		if len(ids) > 0 {
			var short []string
			for _, h := range ids {
				short = append(short, h.String()[:12])
			}
			what = append(what, "snapshot ids "+listSome(short))
		}
		return storage.ID{}, &storage.RevisionError{Rev: base, Msg: "is ambiguous: it starts " + strings.Join(what, " and ") + "; give more characters"}
	case hex:
		return storage.ID{}, &storage.RevisionError{Rev: strings.ToLower(base), Msg: "names nothing: no snapshot id starts with it"}
	}
	return storage.ID{}, &storage.RevisionError{Rev: base, Msg: "names nothing: not a session (see git snap sessions), a name given to one (git snap name), a checkpoint (snap/<session>/<name>, see git snap checkpoint --list) or a snapshot id"}
}

// checkpointRev resolves snap/<session>/<name>, the session written as
// any session argument (FindSession); ZeroHash when base is not of that
// form or names no checkpoint.
func (s *Store) checkpointRev(ctx context.Context, base string) (storage.ID, error) {
	rest, ok := strings.CutPrefix(base, "snap/")
	arg, name, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || snapshot.CheckName("checkpoint", name) != nil {
		return storage.ID{}, nil
	}
	session, found, err := s.findSession(ctx, arg)
	if err != nil || !found {
		return storage.ID{}, err
	}
	_, h, err := s.findCheckpoint(session, name)
	if err != nil || h.IsZero() {
		return storage.ID{}, err
	}
	return s.peel(h)
}

func isHex(s string) bool { return strings.Trim(s, "0123456789abcdefABCDEF") == "" }

// objectsWithPrefix lists the commits and tags whose ids start with
// prefix.
func (s *Store) objectsWithPrefix(prefix string) []storage.ID {
	var found []storage.ID
	for _, h := range s.st.withPrefix(strings.ToLower(prefix)) {
		o, err := s.st.EncodedObject(plumbing.AnyObject, h)
		if err == nil && (o.Type() == plumbing.CommitObject || o.Type() == plumbing.TagObject) {
			found = append(found, h)
		}
	}
	return found
}

// peel follows annotated tags to the commit they name.
func (s *Store) peel(h storage.ID) (storage.ID, error) {
	for range 10 {
		typ, data, err := s.st.read(h)
		if err != nil {
			return storage.ID{}, fmt.Errorf("read object %s: %w", h, err)
		}
		if typ != plumbing.TagObject {
			return h, nil
		}
		t, err := gitobj.ParseTag(data)
		if err != nil {
			return storage.ID{}, fmt.Errorf("read tag %s: %w", h, err)
		}
		h = t.Target
	}
	return storage.ID{}, fmt.Errorf("tag chain from %s is too long", h)
}

// walkParents applies ~N, ^ and ^N suffixes.
func (s *Store) walkParents(rev string, id storage.ID, ops string) (storage.ID, error) {
	for ops != "" {
		op := ops[0]
		if op != '~' && op != '^' {
			return storage.ID{}, &storage.RevisionError{Rev: rev, Msg: fmt.Sprintf("%q after the name is not understood: write ~N or ^N with N a number (0 or more), as in session~2", ops)}
		}
		ops = ops[1:]
		n := 1
		end := 0
		for end < len(ops) && ops[end] >= '0' && ops[end] <= '9' {
			end++
		}
		if end > 0 {
			v, err := strconv.Atoi(ops[:end])
			if err != nil || v > 1_000_000_000 {
				return storage.ID{}, &storage.RevisionError{Rev: rev, Msg: "the number after " + string(op) + " is too large"}
			}
			n = v
			ops = ops[end:]
		}
		steps, parent := n, 0
		if op == '^' {
			steps, parent = min(n, 1), n-1
		}
		for range steps {
			e, _, err := s.commitEntry(id)
			if err != nil {
				return storage.ID{}, err
			}
			parents := append([]storage.ID{e.Parent}, e.Merged...)
			if parent >= len(parents) || parents[parent].IsZero() {
				return storage.ID{}, &storage.RevisionError{Rev: rev, Msg: fmt.Sprintf("goes back past the first snapshot of its session (%s has no parent)", short(id))}
			}
			id = parents[parent]
		}
	}
	return id, nil
}

func short(h storage.ID) string { return h.String()[:12] }

// revisionForms is what a revision may be, for messages that say what to
// write instead.
const revisionForms = "write a session, session~N, session^, snap/<session>/<checkpoint> or a snapshot id"

// CheckRevision says what is wrong with how rev is written, or nil when
// it may name a snapshot. It reads nothing: whether rev names anything is
// Resolve's to find out.
func CheckRevision(rev string) error {
	bad := func(msg string) error { return &storage.RevisionError{Rev: rev, Msg: msg + "; " + revisionForms} }
	switch {
	case rev == "":
		return bad("is empty")
	case strings.HasPrefix(rev, "-"):
		return bad("starts with '-', which reads as an option")
	case strings.Contains(rev, "..."):
		return bad("A...B (the snapshots of either side but not both) is not supported: write A..B")
	case strings.Contains(rev, ".."):
		return bad("is a range (A..B), which only log and diff take")
	case strings.Contains(rev, "@{"):
		return bad("@{…} (git's reflog) is not supported")
	case strings.HasPrefix(rev, "^"):
		return bad("^REV (all but what REV reaches) is only for log")
	}
	for i, r := range rev {
		switch {
		case r < 0x20 || r == 0x7f:
			return bad(fmt.Sprintf("has a control character (%U) at byte %d", r, i))
		case r == ' ':
			return bad(fmt.Sprintf("has a space at byte %d", i))
		case r == ':':
			return bad(fmt.Sprintf("has ':' at byte %d (REV:PATH, a captured file or a member, is for show: git snap show REV:PATH)", i))
		case strings.ContainsRune(`\*?[`, r):
			return bad(fmt.Sprintf("has %q at byte %d, which no ref name holds", r, i))
		}
	}
	return nil
}

// RevRange is what a list of revisions selects, as git log reads it: the
// snapshots reachable from any of Include and from none of Exclude.
type RevRange struct {
	Include, Exclude []storage.ID
	// Read are snapshots to start from, like Include, whose commits the
	// caller has read already (Sessions' tips): the walk takes them as
	// they are instead of reading each again.
	Read []storage.Entry
}

// SplitRange reads one argument of log or diff: "A..B" (what B reaches
// but A does not), "^A" (nothing A reaches) or a plain revision. An end
// left out ("A..", "..B") is dflt, as git takes HEAD; with no dflt it is
// an error. It reads nothing.
func SplitRange(arg, dflt string) (include, exclude string, err error) {
	if rest, ok := strings.CutPrefix(arg, "^"); ok && !strings.Contains(rest, "..") {
		return "", rest, CheckRevision(rest)
	}
	if strings.Contains(arg, "...") {
		return "", "", &storage.RevisionError{Rev: arg, Msg: "A...B (the snapshots of either side but not both) is not supported: write A..B"}
	}
	from, to, isRange := strings.Cut(arg, "..")
	if !isRange {
		return arg, "", CheckRevision(arg)
	}
	if strings.Contains(to, "..") {
		return "", "", &storage.RevisionError{Rev: arg, Msg: "has more than one '..': write one range A..B"}
	}
	if from == "" && to == "" {
		return "", "", &storage.RevisionError{Rev: arg, Msg: "is a range with neither end: write A..B"}
	}
	for _, end := range []*string{&from, &to} {
		if *end == "" {
			if dflt == "" {
				return "", "", &storage.RevisionError{Rev: arg, Msg: "leaves out one end of the range and there is no default session to take for it: write A..B, or give --session"}
			}
			*end = dflt
		}
		if err := CheckRevision(*end); err != nil {
			return "", "", &storage.RevisionError{Rev: arg, Msg: "in the range: " + err.Error()}
		}
	}
	return to, from, nil
}

// ResolveRange resolves the arguments of log or diff (see SplitRange).
// Each argument adds to Include or Exclude. An end left out of a range
// ("A..", "..B") is the newest snapshot of the session the other end is
// in, so fix~3.. reads as fix~3..fix and snap/fix/green.. as
// snap/fix/green..fix.
func (s *Store) ResolveRange(ctx context.Context, args []string) (RevRange, error) {
	var r RevRange
	for _, arg := range args {
		dflt, err := s.sessionOfOtherEnd(ctx, arg)
		if err != nil {
			return RevRange{}, err
		}
		include, exclude, err := SplitRange(arg, dflt)
		if err != nil {
			return RevRange{}, err
		}
		for _, side := range []struct {
			rev  string
			list *[]storage.ID
		}{{include, &r.Include}, {exclude, &r.Exclude}} {
			if side.rev == "" {
				continue
			}
			id, err := s.Resolve(ctx, side.rev)
			if err != nil {
				return RevRange{}, err
			}
			*side.list = append(*side.list, id)
		}
	}
	return r, nil
}

// sessionOfOtherEnd is, for a range with one end left out ("A..",
// "..B"), the session of the end given; "" for any other argument.
func (s *Store) sessionOfOtherEnd(ctx context.Context, arg string) (string, error) {
	if strings.Contains(arg, "...") || strings.HasPrefix(arg, "^") {
		return "", nil
	}
	from, to, ok := strings.Cut(arg, "..")
	given := ""
	switch {
	case !ok || (from == "") == (to == ""):
		return "", nil
	case from == "":
		given = to
	default:
		given = from
	}
	if CheckRevision(given) != nil {
		return "", nil // SplitRange says what is wrong with it
	}
	id, err := s.Resolve(ctx, given)
	if err != nil {
		return "", err
	}
	e, err := s.Entry(ctx, id)
	return e.Header.Session, err
}

// ResolvePair resolves the arguments of a diff to the two snapshots it
// compares: "A B", "A..B" or "^A B" (A to B), or "A" alone (A's parent
// to A; a zero first id when A is its session's first snapshot). An end
// left out of a range is the newest snapshot of the other end's session
// (see ResolveRange).
func (s *Store) ResolvePair(ctx context.Context, args []string) (a, b storage.ID, err error) {
	ranged := slices.ContainsFunc(args, func(arg string) bool { return strings.HasPrefix(arg, "^") || strings.Contains(arg, "..") })
	if !ranged {
		switch len(args) {
		case 1:
			if b, err = s.Resolve(ctx, args[0]); err != nil {
				return a, b, err
			}
			e, err := s.Entry(ctx, b)
			return e.Parent, b, err
		case 2:
			if a, err = s.Resolve(ctx, args[0]); err != nil {
				return a, b, err
			}
			b, err = s.Resolve(ctx, args[1])
			return a, b, err
		}
	}
	r, err := s.ResolveRange(ctx, args)
	if err != nil {
		return a, b, err
	}
	if len(r.Include) != 1 || len(r.Exclude) != 1 {
		return a, b, &storage.RevisionError{Rev: strings.Join(args, " "), Msg: "a diff compares two snapshots: write A B, A..B or ^A B"}
	}
	return r.Exclude[0], r.Include[0], nil
}
