package gitstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

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

func checkpointRef(session, name string) string {
	return TagPrefix + session + "/" + name
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
	ref := checkpointRef(e.Header.Session, name)
	old, err := s.refs.Read(ref)
	if err != nil {
		return Checkpoint{}, err
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
	t := &object.Tag{
		Name:       "snap/" + name,
		Tagger:     s.identity(s.opts.Now()),
		Message:    strings.TrimRight(layout.NoControl(msg, true), "\n") + "\n", // no NUL in a tag: see layout.NoControl
		TargetType: plumbing.CommitObject,
		Target:     target,
	}
	return s.storeObject(t)
}

func (s *Store) readCheckpoint(ref string, tag plumbing.Hash, moved bool) (Checkpoint, error) {
	cp := Checkpoint{Ref: ref, Tag: tag, Moved: moved}
	rest := strings.TrimPrefix(strings.TrimPrefix(ref, TagPrefix), MovedPrefix)
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return Checkpoint{}, fmt.Errorf("unexpected checkpoint ref %s", ref)
	}
	cp.Session, cp.Name = parts[0], parts[1]
	o, err := s.st.EncodedObject(plumbing.AnyObject, tag)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("read checkpoint %s: %w", ref, err)
	}
	if o.Type() != plumbing.TagObject { // a lightweight tag made by hand
		cp.Target = tag
		return cp, nil
	}
	t, err := object.DecodeTag(s.st, o)
	if err != nil {
		return Checkpoint{}, err
	}
	cp.Target, cp.Message, cp.Time = t.Target, strings.TrimSpace(t.Message), t.Tagger.When
	return cp, nil
}

// Checkpoints lists checkpoints, of one session or of all (""), oldest
// first. With moved, former places of moved names are listed too.
func (s *Store) Checkpoints(ctx context.Context, session string, moved bool) ([]Checkpoint, error) {
	var out []Checkpoint
	prefixes := []string{TagPrefix}
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
			if err != nil {
				return nil, err
			}
			out = append(out, cp)
		}
	}
	slices.SortFunc(out, func(a, b Checkpoint) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Ref, b.Ref)
	})
	return out, nil
}

// DeleteCheckpoint removes a checkpoint of a session.
func (s *Store) DeleteCheckpoint(ctx context.Context, session, name string) error {
	ref := checkpointRef(session, name)
	old, err := s.refs.Read(ref)
	if err != nil {
		return err
	}
	if old.IsZero() {
		return &NotFoundError{"snap/" + session + "/" + name, "names no checkpoint (see git snap checkpoint --list)"}
	}
	if err := s.refs.Update(ctx, ref, old, plumbing.ZeroHash, "checkpoint: delete"); err != nil {
		return writeErr(err)
	}
	return nil
}
