package gitstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Names that differ only in case are one name on the file systems macOS
// and Windows use by default: two such sessions would be one ref file,
// and the snapshots of one would land on the other. So a new session,
// checkpoint or short name that differs from one already there only in
// case is refused on every system, and a repository moved from Linux to
// a Mac never joins two sessions.

// CaseError refuses a name that differs from one already there only in
// case.
type CaseError struct {
	Kind     string // session, checkpoint or name
	Name     string // the name refused
	Existing string // the name there
	// ExistingKind is what Existing names, when not a Kind.
	ExistingKind string
}

// Error says which name is there, and what to do.
func (e *CaseError) Error() string {
	kind := e.ExistingKind
	if kind == "" {
		kind = e.Kind
	}
	return fmt.Sprintf("%s %q differs from %s %q only in case, which macOS and Windows take as the same name: choose another name, or use %q; nothing was written", e.Kind, e.Name, kind, e.Existing, e.Existing)
}

// UserError marks the error as the user's to correct.
func (e *CaseError) UserError() {}

// caseTwin is the name of names that differs from name only in case, or
// "" when none does.
func caseTwin(name string, names []string) string {
	for _, n := range names {
		if n != name && strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

// checkNewSession refuses a new session whose name differs from an
// existing session's only in case. It reads the refs, once per session:
// when its first snapshot is written.
func (s *Store) checkNewSession(ctx context.Context, session string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	twin, err := s.refs.FoldTwin(s.prefix, session)
	if err != nil {
		return err
	}
	if twin != "" {
		return &CaseError{Kind: "session", Name: session, Existing: twin}
	}
	return nil
}

// checkCheckpointCase refuses a checkpoint name that differs only in
// case from one the session has.
func (s *Store) checkCheckpointCase(ctx context.Context, session, name string) error {
	names, err := s.CheckpointNames(ctx, session)
	if err != nil {
		return err
	}
	for i, n := range names {
		names[i] = strings.TrimPrefix(n, "snap/"+session+"/")
	}
	if twin := caseTwin(name, names); twin != "" {
		return &CaseError{Kind: "checkpoint", Name: name, Existing: twin}
	}
	return nil
}

// checkNameCase refuses a short name that differs only in case from
// another short name, or from a session's name.
func (s *Store) checkNameCase(ctx context.Context, name string, given []SessionAlias) error {
	var names []string
	for _, a := range given {
		names = append(names, a.Name)
	}
	if twin := caseTwin(name, names); twin != "" {
		return &CaseError{Kind: "name", Name: name, Existing: twin}
	}
	sessions, err := s.SessionNames(ctx)
	if err != nil {
		return err
	}
	if twin := caseTwin(name, sessions); twin != "" {
		return &CaseError{Kind: "name", Name: name, Existing: twin, ExistingKind: "session"}
	}
	return nil
}

// CaseGroups groups names that differ only in case, leaving out those
// alone in their group.
func CaseGroups(names []string) [][]string {
	by := map[string][]string{}
	for _, n := range names {
		k := strings.ToLower(n)
		by[k] = append(by[k], n)
	}
	var out [][]string
	for _, g := range by {
		if len(g) > 1 {
			slices.Sort(g)
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// RenameHint says how to rename session (its ref under prefix) to
// newName, here with git and on remote with git snap push: for one of
// two sessions whose names differ only in case, on the clone that holds
// both.
func RenameHint(remote, prefix, session, newName string) string {
	return fmt.Sprintf("git update-ref %s%s %s%s && git update-ref -d %s%s && git snap push %s %s && git snap push --delete %s %s",
		prefix, newName, prefix, session, prefix, session, remote, newName, remote, session)
}

// renameHint is RenameHint for a session of this store, to its name
// and -2.
func (s *Store) renameHint(remote, session string) string {
	return RenameHint(remote, s.prefix, session, session+"-2")
}
