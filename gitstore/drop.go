package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// DropMessage is the reflog message of the deletions Drop makes: Undrop
// looks for it.
const DropMessage = "drop"

// Dropped is a session Drop removed (or would remove), or Undrop brought
// back: its ref, its newest snapshot and its checkpoints (moved ones too).
type Dropped struct {
	Session     string
	Ref         string
	Tip         storage.ID
	Checkpoints []storage.Checkpoint
}

// Drop removes a session: its ref, its checkpoints and its cache; with
// dryRun, it only says what it would remove. Its objects stay, named by
// the reflogs the removal writes (logs/refs/snap/<session>, kept), until
// git gc expires those: Undrop brings the session back until then.
func (s *Store) Drop(ctx context.Context, session string, dryRun bool) (Dropped, error) {
	if err := snapshot.CheckName("session", session); err != nil {
		return Dropped{}, &snapshot.InputError{Path: "session", Msg: err.Error()}
	}
	d := Dropped{Session: session, Ref: s.SessionRef(session)}
	tip, err := s.refs.Read(d.Ref)
	if err != nil {
		return Dropped{}, err
	}
	if tip.IsZero() {
		return Dropped{}, storage.NoSession(session)
	}
	d.Tip = tip
	if d.Checkpoints, err = s.Checkpoints(ctx, session, true); err != nil {
		return Dropped{}, err
	}
	if dryRun {
		return d, nil
	}
	for _, cp := range d.Checkpoints {
		if err := s.refs.Update(ctx, cp.Ref, cp.Tag, storage.ID{}, DropMessage); err != nil && !errors.Is(err, refs.ErrChanged) {
			return Dropped{}, err
		}
	}
	if err := s.refs.Update(ctx, d.Ref, tip, storage.ID{}, DropMessage); err != nil {
		return Dropped{}, err
	}
	s.dropTipState(d.Ref)
	s.dropTally(d.Ref)
	return d, nil
}

// Undrop brings back a session Drop removed, from the reflog the drop
// wrote: its ref at the tip it had, and those of its checkpoints that
// named snapshots of it. It refuses a session that exists, one whose
// last reflog entry is not a drop, and one whose snapshots git gc has
// removed.
func (s *Store) Undrop(ctx context.Context, session string) (Dropped, error) {
	if err := snapshot.CheckName("session", session); err != nil {
		return Dropped{}, &snapshot.InputError{Path: "session", Msg: err.Error()}
	}
	d := Dropped{Session: session, Ref: s.SessionRef(session)}
	if cur, err := s.refs.Read(d.Ref); err != nil {
		return Dropped{}, err
	} else if !cur.IsZero() {
		return Dropped{}, &storage.OptionsError{Msg: fmt.Sprintf("session %s exists; undrop brings back only a dropped session", session)}
	}
	last, ok, err := s.refs.LastLog(d.Ref)
	if err != nil {
		return Dropped{}, err
	}
	if !ok || !last.New.IsZero() || last.Message != DropMessage {
		return Dropped{}, &storage.NotFoundError{Name: session, Msg: "was not dropped, or its reflog has expired: logs/" + d.Ref + " ends in no drop"}
	}
	d.Tip = last.Old
	if _, err := s.Entry(ctx, d.Tip); err != nil {
		return Dropped{}, fmt.Errorf("session %s cannot come back: its newest snapshot %s is gone (git gc removed it): %w", session, d.Tip, err)
	}
	if d.Checkpoints, err = s.droppedCheckpoints(ctx, session, d.Tip); err != nil {
		return Dropped{}, err
	}
	for _, cp := range d.Checkpoints {
		if err := s.refs.Update(ctx, cp.Ref, storage.ID{}, cp.Tag, "undrop"); err != nil && !errors.Is(err, refs.ErrChanged) {
			return Dropped{}, err
		}
	}
	if err := s.refs.Update(ctx, d.Ref, storage.ID{}, d.Tip, "undrop"); err != nil {
		return Dropped{}, err
	}
	return d, nil
}

// droppedCheckpoints are the checkpoints of session whose logs end in a
// drop, whose tags are still there and whose snapshots tip reaches: a
// checkpoint of an earlier session of the same name, dropped before,
// stays dropped.
func (s *Store) droppedCheckpoints(ctx context.Context, session string, tip storage.ID) ([]storage.Checkpoint, error) {
	history, err := s.ancestors(ctx, tip)
	if err != nil {
		return nil, err
	}
	var out []storage.Checkpoint
	for _, prefix := range append(s.checkpointPrefixes(), MovedPrefix) {
		names, err := s.refs.Logged(prefix + session + "/")
		if err != nil {
			return nil, err
		}
		for _, ref := range names {
			last, ok, err := s.refs.LastLog(ref)
			if err != nil || !ok || !last.New.IsZero() || last.Message != DropMessage {
				continue
			}
			if cur, err := s.refs.Read(ref); err != nil || !cur.IsZero() {
				continue
			}
			cp, err := s.readCheckpoint(ref, last.Old, strings.HasPrefix(ref, MovedPrefix))
			if err == nil && history[cp.Target] {
				out = append(out, cp)
			}
		}
	}
	return out, nil
}
