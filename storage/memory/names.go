package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// minPrefix is the shortest prefix of an id or a session name that
// Resolve accepts, the same as gitstore's.
const minPrefix = 4

// Resolve returns the snapshot that a revision names: a session
// ("fix-bug"), a checkpoint ("snap/fix-bug/green"), an id, or a unique
// prefix of an id or session name, each optionally followed by ~N or ^N
// as in git.
func (s *Store) Resolve(ctx context.Context, rev string) (storage.ID, error) {
	if err := ctx.Err(); err != nil {
		return storage.ID{}, err
	}
	base, ops := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, ops = rev[:i], rev[i:]
	}
	id, err := s.resolveBase(base)
	if err != nil {
		return storage.ID{}, &storage.RevisionError{Rev: rev, Msg: err.Error()}
	}
	for ops != "" {
		op := ops[0]
		n, rest := 1, ops[1:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j > 0 {
			n, _ = strconv.Atoi(rest[:j])
		}
		ops = rest[j:]
		if id, err = s.parentOf(ctx, id, op, n); err != nil {
			return storage.ID{}, &storage.RevisionError{Rev: rev, Msg: err.Error()}
		}
	}
	return id, nil
}

// parentOf follows ~n (n first parents) or ^n (the nth parent).
func (s *Store) parentOf(ctx context.Context, id storage.ID, op byte, n int) (storage.ID, error) {
	steps := n
	if op == '^' {
		steps = 1
	}
	for range steps {
		e, err := s.Entry(ctx, id)
		if err != nil {
			return storage.ID{}, err
		}
		parents := append([]storage.ID{e.Parent}, e.Merged...)
		k := 0
		if op == '^' {
			k = n - 1
		}
		if n == 0 && op == '^' {
			return id, nil
		}
		if k >= len(parents) || parents[k].IsZero() {
			return storage.ID{}, fmt.Errorf("goes past the session's first snapshot")
		}
		id = parents[k]
	}
	return id, nil
}

// resolveBase returns the snapshot that a revision without ~ and ^
// names.
func (s *Store) resolveBase(base string) (storage.ID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.tips[strings.TrimPrefix(base, refPrefix)]; ok {
		return id, nil
	}
	if rest, ok := strings.CutPrefix(base, "snap/"); ok {
		session, name, _ := strings.Cut(rest, "/")
		if id, ok := s.tips[session]; ok && name == "" {
			return id, nil
		}
		if cp, ok := s.checkpoints[session][name]; ok {
			return cp.Target, nil
		}
	}
	if storage.IsID(base) {
		if _, ok := s.snaps[storage.NewID(base)]; ok {
			return storage.NewID(base), nil
		}
	}
	if len(base) < minPrefix {
		return storage.ID{}, fmt.Errorf("names no session, checkpoint or snapshot")
	}
	var found []storage.ID
	var sessions []string
	for id := range s.snaps {
		if strings.HasPrefix(id.String(), strings.ToLower(base)) {
			found = append(found, id)
		}
	}
	for name, id := range s.tips {
		if strings.HasPrefix(name, base) {
			sessions = append(sessions, name)
			found = append(found, id)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0:
		return storage.ID{}, fmt.Errorf("names no session, checkpoint or snapshot")
	}
	slices.Sort(sessions)
	return storage.ID{}, fmt.Errorf("is ambiguous: it starts %d snapshots or sessions %s", len(found), strings.Join(sessions, ", "))
}

// SetCheckpoint gives the snapshot target a name in its session.
func (s *Store) SetCheckpoint(ctx context.Context, name string, target storage.ID, msg string, force bool) (storage.Checkpoint, error) {
	if err := snapshot.CheckName("checkpoint", name); err != nil {
		return storage.Checkpoint{}, &snapshot.InputError{Path: "checkpoint", Msg: err.Error()}
	}
	e, err := s.Entry(ctx, target)
	if err != nil {
		return storage.Checkpoint{}, err
	}
	session := e.Header.Session
	s.mu.Lock()
	defer s.mu.Unlock()
	old, taken := s.checkpoints[session][name]
	switch {
	case taken && old.Target == target && msg == "":
		return old, nil
	case taken && !force:
		return storage.Checkpoint{}, &storage.CheckpointExistsError{Session: session, Name: name, Target: old.Target}
	case taken:
		old.Moved, old.Ref = true, "refs/snap-moved/"+session+"/"+name+"/"+old.Tag.String()
		s.moved = append(s.moved, old)
	}
	if msg = strings.TrimSpace(msg); msg == "" {
		msg = "checkpoint " + session + "/" + name
	}
	cp := storage.Checkpoint{Session: session, Name: name, Ref: "refs/snap-tags/" + session + "/" + name, Target: target,
		Message: msg, Time: s.opts.Now()}
	cp.Tag = hashOf("checkpoint", []byte(cp.Ref), target[:], []byte(msg), []byte(cp.Time.String()))
	if s.checkpoints[session] == nil {
		s.checkpoints[session] = map[string]storage.Checkpoint{}
	}
	s.checkpoints[session][name] = cp
	return cp, nil
}

// Checkpoints lists a session's checkpoints ("" for all sessions),
// oldest first. When moved is set, it also lists the previous targets of
// names that were moved.
func (s *Store) Checkpoints(ctx context.Context, session string, moved bool) ([]storage.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []storage.Checkpoint
	for sess, names := range s.checkpoints {
		if session != "" && sess != session {
			continue
		}
		for _, cp := range names {
			out = append(out, cp)
		}
	}
	if moved {
		for _, cp := range s.moved {
			if session == "" || cp.Session == session {
				out = append(out, cp)
			}
		}
	}
	slices.SortFunc(out, func(a, b storage.Checkpoint) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Ref, b.Ref)
	})
	return out, nil
}

// DeleteCheckpoint removes a checkpoint.
func (s *Store) DeleteCheckpoint(ctx context.Context, session, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.checkpoints[session][name]; !ok {
		return &storage.NotFoundError{Name: "snap/" + session + "/" + name, Msg: "names no checkpoint (see git snap checkpoint --list)"}
	}
	delete(s.checkpoints[session], name)
	return nil
}
