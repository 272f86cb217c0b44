package gitstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// MovedPrefix keeps the tags of checkpoints that were moved to another
// snapshot with force, as refs/snap-moved/<session>/<name>/<old tag id>,
// so that every snapshot that ever carried a name can still be found and
// git gc keeps them.
const MovedPrefix = "refs/snap-moved/"

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
func (s *Store) findCheckpoint(session, name string) (string, storage.ID, error) {
	for _, p := range s.checkpointPrefixes() {
		ref := p + session + "/" + name
		h, err := s.refs.Read(ref)
		if err != nil || !h.IsZero() {
			return ref, h, err
		}
	}
	return s.checkpointRef(session, name), storage.ID{}, nil
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
func (s *Store) SetCheckpoint(ctx context.Context, name string, target storage.ID, msg string, force bool) (storage.Checkpoint, error) {
	if err := snapshot.CheckName("checkpoint", name); err != nil {
		return storage.Checkpoint{}, &snapshot.InputError{Path: "checkpoint", Msg: err.Error()}
	}
	e, err := s.Entry(ctx, target)
	if err != nil {
		return storage.Checkpoint{}, err
	}
	if err := s.checkCheckpointCase(ctx, e.Header.Session, name); err != nil {
		return storage.Checkpoint{}, err
	}
	ref := s.checkpointRef(e.Header.Session, name)
	oldRef, old, err := s.findCheckpoint(e.Header.Session, name)
	if err != nil {
		return storage.Checkpoint{}, err
	}
	if oldRef != ref && !old.IsZero() {
		// The name is in the other place (not migrated yet): it is
		// written where checkpoints are written now, and goes from there.
		if err := s.refs.Update(ctx, ref, storage.ID{}, old, "checkpoint: moved from "+oldRef); err != nil {
			return storage.Checkpoint{}, writeErr(err)
		}
		if err := s.refs.Update(ctx, oldRef, old, storage.ID{}, "checkpoint: moved to "+ref); err != nil && !errors.Is(err, refs.ErrChanged) {
			return storage.Checkpoint{}, err
		}
	}
	if !old.IsZero() {
		cur, err := s.peel(old)
		if err != nil {
			return storage.Checkpoint{}, err
		}
		if cur == target && msg == "" {
			return s.readCheckpoint(ref, old, false)
		}
		if !force {
			return storage.Checkpoint{}, &storage.CheckpointExistsError{Session: e.Header.Session, Name: name, Target: cur}
		}
	}
	msg, _ = s.redactText(msg, 0) // a tag message has no count to keep
	tag, err := s.writeTag(e.Header.Session+"/"+name, target, msg)
	if err != nil {
		return storage.Checkpoint{}, err
	}
	if !old.IsZero() {
		moved := MovedPrefix + e.Header.Session + "/" + name + "/" + old.String()
		if err := s.refs.Update(ctx, moved, storage.ID{}, old, "checkpoint: moved away"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return storage.Checkpoint{}, err
		}
	}
	if err := s.refs.Update(ctx, ref, old, tag, "checkpoint"); err != nil {
		if errors.Is(err, refs.ErrChanged) {
			return storage.Checkpoint{}, fmt.Errorf("checkpoint %s was changed by another process meanwhile; try again", name)
		}
		return storage.Checkpoint{}, writeErr(err)
	}
	return s.readCheckpoint(ref, tag, false)
}

func (s *Store) writeTag(name string, target storage.ID, msg string) (storage.ID, error) {
	if msg == "" {
		msg = "checkpoint " + name
	}
	msg = strings.TrimRight(layout.NoControl(msg, true), "\n") + "\n" // no NUL in a tag: see layout.NoControl
	return s.storeObject(gitobj.NewTag("snap/"+name, target, s.identity(s.opts.Now()), msg))
}

func (s *Store) readCheckpoint(ref string, tag storage.ID, moved bool) (storage.Checkpoint, error) {
	cp := storage.Checkpoint{Ref: ref, Tag: tag, Moved: moved}
	rest := ref
	for _, p := range []string{CheckpointPrefix, TagPrefix, MovedPrefix} {
		rest = strings.TrimPrefix(rest, p)
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return storage.Checkpoint{}, fmt.Errorf("unexpected checkpoint ref %s", ref)
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
func (s *Store) Checkpoints(ctx context.Context, session string, moved bool) ([]storage.Checkpoint, error) {
	var out []storage.Checkpoint
	var damaged storage.DamagedCheckpoints
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
				damaged.Errs = append(damaged.Errs, err)
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
	slices.SortFunc(out, func(a, b storage.Checkpoint) int {
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
		if err := s.refs.Update(ctx, ref, old, storage.ID{}, "checkpoint: delete"); err != nil {
			return writeErr(err)
		}
	}
	if !found {
		return &storage.NotFoundError{Name: "snap/" + session + "/" + name, Msg: "names no checkpoint (see git snap checkpoint --list)"}
	}
	return nil
}

// CheckpointsElsewhere lists the checkpoints in the place they are no
// longer written to (refs/tags/snap/, or refs/snap-tags/ with
// Options.CheckpointsInTags), which MigrateCheckpoints moves, and that
// place: the tags git-snap wrote as checkpoints there, not a project's
// own tags named alike. Reading them costs one listing of refs, and the
// tag and snapshot of each ref listed.
func (s *Store) CheckpointsElsewhere(ctx context.Context) (refs []string, prefix string, err error) {
	prefix = s.otherCheckpointPrefix()
	list, err := s.refs.List(prefix)
	if err != nil {
		return nil, prefix, err
	}
	for ref, h := range list {
		if session, name, ok := checkpointOfRef(ref); ok && s.ownCheckpoint(ctx, session, name, h) {
			refs = append(refs, ref)
		}
	}
	slices.Sort(refs)
	return refs, prefix, nil
}

// ownCheckpoint reports whether h, at the ref of checkpoint name of
// session, is a tag git-snap wrote as one: an annotated tag named
// snap/<session>/<name> whose target is a snapshot of that session. A
// project's own tag that is only named so (a release, snap/v2/rc1) is
// not, and stays where it is.
func (s *Store) ownCheckpoint(ctx context.Context, session, name string, h storage.ID) bool {
	typ, data, err := s.st.read(h)
	if err != nil || typ != plumbing.TagObject {
		return false
	}
	t, err := gitobj.ParseTag(data)
	if err != nil || t.Name != "snap/"+session+"/"+name {
		return false
	}
	e, err := s.Entry(ctx, t.Target)
	return err == nil && e.Header.Session == session
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
	from, _, err := s.CheckpointsElsewhere(ctx)
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
			if err := s.refs.Update(ctx, m.To, storage.ID{}, h, "migrate: from "+ref); err != nil && !errors.Is(err, refs.ErrChanged) {
				return out, writeErr(err)
			}
		}
		if err := s.refs.Update(ctx, ref, h, storage.ID{}, "migrate: to "+m.To); err != nil && !errors.Is(err, refs.ErrChanged) {
			return out, writeErr(err)
		}
	}
	return out, nil
}
