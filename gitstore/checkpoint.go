package gitstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/snapshot"
)

// MovedPrefix keeps the tags of checkpoints that were moved to another
// snapshot with force, as refs/snap-moved/<session>/<name>/<old tag id>,
// so that every snapshot that ever carried a name can still be found and
// git gc keeps them.
const MovedPrefix = "refs/snap-moved/"

// Checkpoint is a named snapshot: an annotated tag.
type Checkpoint struct {
	Session string
	Name    string
	Ref     string
	Tag     plumbing.Hash // the tag object
	Target  plumbing.Hash // the snapshot
	Message string
	Time    time.Time
	Moved   bool // a former place of the name, kept after a forced move
}

// CheckpointExistsError means a name is taken and force was not given.
type CheckpointExistsError struct {
	Session, Name string
	Target        plumbing.Hash
}

// Error says which snapshot holds the name, and what to do.
func (e *CheckpointExistsError) Error() string {
	return fmt.Sprintf("checkpoint %q of session %s already names snapshot %s; use --force to move it", e.Name, e.Session, short(e.Target))
}

// checkpointRef is where a checkpoint is written.
func (s *Store) checkpointRef(session, name string) string {
	return s.cpPrefix + session + "/" + name
}

// checkpointPrefixes are where checkpoints are read: where they are
// written first, then the other place (see MigrateCheckpoints).
func (s *Store) checkpointPrefixes() []string {
	if s.cpPrefix == TagPrefix {
		return []string{TagPrefix, CheckpointPrefix}
	}
	return []string{CheckpointPrefix, TagPrefix}
}

// otherCheckpointPrefix is the place checkpoints are read from but no
// longer written to.
func (s *Store) otherCheckpointPrefix() string { return s.checkpointPrefixes()[1] }

// findCheckpoint is the ref and tag of a checkpoint, where it is written
// or else in the other place; a zero id when there is none.
func (s *Store) findCheckpoint(session, name string) (string, plumbing.Hash, error) {
	for _, p := range s.checkpointPrefixes() {
		ref := p + session + "/" + name
		h, err := s.refs.Read(ref)
		if err != nil || !h.IsZero() {
			return ref, h, err
		}
	}
	return s.checkpointRef(session, name), plumbing.ZeroHash, nil
}

// checkpointOfRef reads session and name from a checkpoint's ref, in
// either place (CheckpointPrefix, TagPrefix).
func checkpointOfRef(ref string) (session, name string, ok bool) {
	rest, ok := strings.CutPrefix(ref, CheckpointPrefix)
	if !ok {
		rest, ok = strings.CutPrefix(ref, TagPrefix)
	}
	if !ok {
		return "", "", false
	}
	session, name, ok = strings.Cut(rest, "/")
	ok = ok && snapshot.CheckName("session", session) == nil && snapshot.CheckName("checkpoint", name) == nil
	return session, name, ok
}

// SetCheckpoint names a snapshot. The checkpoint belongs to the
// snapshot's session. Moving an existing name needs force; the former
// tag is kept under MovedPrefix.
func (s *Store) SetCheckpoint(ctx context.Context, name string, target plumbing.Hash, msg string, force bool) (Checkpoint, error) {
	if err := snapshot.CheckName("checkpoint", name); err != nil {
		return Checkpoint{}, &snapshot.InputError{Path: "checkpoint", Msg: err.Error()}
	}
	e, err := s.Entry(ctx, target)
	if err != nil {
		return Checkpoint{}, err
	}
	ref := s.checkpointRef(e.Header.Session, name)
	oldRef, old, err := s.findCheckpoint(e.Header.Session, name)
	if err != nil {
		return Checkpoint{}, err
	}
	if oldRef != ref && !old.IsZero() {
		// The name is in the other place (not migrated yet): it is
		// written where checkpoints are written now, and goes from there.
		if err := s.refs.Update(ctx, ref, plumbing.ZeroHash, old, "checkpoint: moved from "+oldRef); err != nil {
			return Checkpoint{}, writeErr(err)
		}
		if err := s.refs.Update(ctx, oldRef, old, plumbing.ZeroHash, "checkpoint: moved to "+ref); err != nil && !errors.Is(err, refs.ErrChanged) {
			return Checkpoint{}, err
		}
	}
	if !old.IsZero() {
		cur, err := s.peel(old)
		if err != nil {
			return Checkpoint{}, err
		}
		if cur == target && msg == "" {
			return s.readCheckpoint(ref, old, false)
		}
		if !force {
			return Checkpoint{}, &CheckpointExistsError{e.Header.Session, name, cur}
		}
	}
	msg, _ = s.redactText(msg, 0) // a tag message has no count to keep
	tag, err := s.writeTag(e.Header.Session+"/"+name, target, msg)
	if err != nil {
		return Checkpoint{}, err
	}
	if !old.IsZero() {
		moved := MovedPrefix + e.Header.Session + "/" + name + "/" + old.String()
		if err := s.refs.Update(ctx, moved, plumbing.ZeroHash, old, "checkpoint: moved away"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return Checkpoint{}, err
		}
	}
	if err := s.refs.Update(ctx, ref, old, tag, "checkpoint"); err != nil {
		if errors.Is(err, refs.ErrChanged) {
			return Checkpoint{}, fmt.Errorf("checkpoint %s was changed by another process meanwhile; try again", name)
		}
		return Checkpoint{}, writeErr(err)
	}
	return s.readCheckpoint(ref, tag, false)
}

func (s *Store) writeTag(name string, target plumbing.Hash, msg string) (plumbing.Hash, error) {
	if msg == "" {
		msg = "checkpoint " + name
	}
	msg = strings.TrimRight(layout.NoControl(msg, true), "\n") + "\n" // no NUL in a tag: see layout.NoControl
	return s.storeObject(gitobj.NewTag("snap/"+name, target, s.identity(s.opts.Now()), msg))
}

func (s *Store) readCheckpoint(ref string, tag plumbing.Hash, moved bool) (Checkpoint, error) {
	cp := Checkpoint{Ref: ref, Tag: tag, Moved: moved}
	rest := ref
	for _, p := range []string{CheckpointPrefix, TagPrefix, MovedPrefix} {
		rest = strings.TrimPrefix(rest, p)
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return Checkpoint{}, fmt.Errorf("unexpected checkpoint ref %s", ref)
	}
	cp.Session, cp.Name = parts[0], parts[1]
	typ, data, err := s.st.read(tag)
	if err != nil {
		return cp, fmt.Errorf("read checkpoint %s: %w", ref, err)
	}
	if typ != plumbing.TagObject { // a lightweight tag made by hand
		cp.Target = tag
		return cp, nil
	}
	t, err := gitobj.ParseTag(data)
	if err != nil {
		return cp, fmt.Errorf("read checkpoint %s: %w", ref, err)
	}
	cp.Target, cp.Message, cp.Time = t.Target, strings.TrimSpace(t.Message), t.When
	return cp, nil
}

// Checkpoints lists checkpoints, of one session or of all (""), oldest
// first. With moved, former places of moved names are listed too.
// Checkpoints whose tag is missing or damaged are left out and named by
// a *DamagedCheckpoints error returned with the others: one damaged
// checkpoint made every log fail.
func (s *Store) Checkpoints(ctx context.Context, session string, moved bool) ([]Checkpoint, error) {
	var out []Checkpoint
	var damaged DamagedCheckpoints
	prefixes := s.checkpointPrefixes()
	seen := map[string]bool{} // session/name found where checkpoints are written
	if moved {
		prefixes = append(prefixes, MovedPrefix)
	}
	for _, prefix := range prefixes {
		if session != "" {
			prefix += session + "/"
		}
		refs, err := s.refs.List(prefix)
		if err != nil {
			return nil, err
		}
		for ref, h := range refs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			cp, err := s.readCheckpoint(ref, h, strings.HasPrefix(ref, MovedPrefix))
			if err != nil && IsDamaged(err) {
				damaged.Checkpoints = append(damaged.Checkpoints, cp)
				damaged.errs = append(damaged.errs, err)
				continue
			}
			if err != nil {
				return nil, err
			}
			key := cp.Session + "/" + cp.Name
			if !cp.Moved && seen[key] {
				continue // in both places: the one written to counts
			}
			seen[key] = seen[key] || !cp.Moved
			out = append(out, cp)
		}
	}
	slices.SortFunc(out, func(a, b Checkpoint) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Ref, b.Ref)
	})
	if len(damaged.Checkpoints) > 0 {
		return out, &damaged
	}
	return out, nil
}

// DamagedCheckpoints is the error of a listing of checkpoints some of
// whose tags could not be read (missing or damaged): the listing
// returns the checkpoints it could read with it. Each damaged one has
// its Ref, Session, Name and Moved; nothing else of it is known.
type DamagedCheckpoints struct {
	Checkpoints []Checkpoint
	errs        []error
}

// Error names each damaged checkpoint and what is wrong with it.
func (e *DamagedCheckpoints) Error() string {
	var b strings.Builder
	for i, c := range e.Checkpoints {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "checkpoint snap/%s/%s could not be read (%v)", c.Session, c.Name, e.errs[i])
	}
	return b.String()
}

// Unwrap gives each checkpoint's error.
func (e *DamagedCheckpoints) Unwrap() []error { return e.errs }

// Of is the error for the damaged checkpoints of sessions alone, nil
// when none of theirs is damaged.
func (e *DamagedCheckpoints) Of(sessions ...string) error {
	var out DamagedCheckpoints
	for i, c := range e.Checkpoints {
		if slices.Contains(sessions, c.Session) {
			out.Checkpoints = append(out.Checkpoints, c)
			out.errs = append(out.errs, e.errs[i])
		}
	}
	if len(out.Checkpoints) == 0 {
		return nil
	}
	return &out
}

// DeleteCheckpoint removes a checkpoint of a session, from both places
// a checkpoint may be (see MigrateCheckpoints).
func (s *Store) DeleteCheckpoint(ctx context.Context, session, name string) error {
	found := false
	for _, p := range s.checkpointPrefixes() {
		ref := p + session + "/" + name
		old, err := s.refs.Read(ref)
		if err != nil {
			return err
		}
		if old.IsZero() {
			continue
		}
		found = true
		if err := s.refs.Update(ctx, ref, old, plumbing.ZeroHash, "checkpoint: delete"); err != nil {
			return writeErr(err)
		}
	}
	if !found {
		return &NotFoundError{"snap/" + session + "/" + name, "names no checkpoint (see git snap checkpoint --list)"}
	}
	return nil
}

// CheckpointsElsewhere lists the checkpoints in the place they are no
// longer written to (refs/tags/snap/, or refs/snap-tags/ with
// Options.CheckpointsInTags), which MigrateCheckpoints moves, and that
// place. Reading them costs one listing of refs.
func (s *Store) CheckpointsElsewhere() (refs []string, prefix string, err error) {
	prefix = s.otherCheckpointPrefix()
	list, err := s.refs.List(prefix)
	if err != nil {
		return nil, prefix, err
	}
	for ref := range list {
		if _, _, ok := checkpointOfRef(ref); ok {
			refs = append(refs, ref)
		}
	}
	slices.Sort(refs)
	return refs, prefix, nil
}

// Migrated is a checkpoint MigrateCheckpoints moved, or would move.
type Migrated struct {
	From, To string // refs
	// Kept is set when the name was taken where it moves to, by another
	// tag: that one stays, and the one moved is kept under MovedPrefix,
	// as a checkpoint moved with force is.
	Kept bool
}

// MigrateCheckpoints moves every checkpoint to where checkpoints are
// written now: from refs/tags/snap/ to refs/snap-tags/ (the other way
// with Options.CheckpointsInTags). The tag objects are the same; each
// move is logged. With dryRun nothing moves.
func (s *Store) MigrateCheckpoints(ctx context.Context, dryRun bool) ([]Migrated, error) {
	from, _, err := s.CheckpointsElsewhere()
	if err != nil {
		return nil, err
	}
	var out []Migrated
	for _, ref := range from {
		session, name, _ := checkpointOfRef(ref)
		to := s.checkpointRef(session, name)
		h, err := s.refs.Read(ref)
		if err != nil || h.IsZero() {
			if err != nil {
				return out, err
			}
			continue
		}
		cur, err := s.refs.Read(to)
		if err != nil {
			return out, err
		}
		m := Migrated{From: ref, To: to, Kept: !cur.IsZero() && cur != h}
		if m.Kept {
			m.To = MovedPrefix + session + "/" + name + "/" + h.String()
		}
		out = append(out, m)
		if dryRun {
			continue
		}
		if cur != h {
			if err := s.refs.Update(ctx, m.To, plumbing.ZeroHash, h, "migrate: from "+ref); err != nil && !errors.Is(err, refs.ErrChanged) {
				return out, writeErr(err)
			}
		}
		if err := s.refs.Update(ctx, ref, h, plumbing.ZeroHash, "migrate: to "+m.To); err != nil && !errors.Is(err, refs.ErrChanged) {
			return out, writeErr(err)
		}
	}
	return out, nil
}
