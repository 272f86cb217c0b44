package memory

import (
	"container/heap"
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// snap returns the stored snapshot with the given id.
func (s *Store) snap(ctx context.Context, id storage.ID) (*stored, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sn, ok := s.snaps[id]
	if !ok {
		return nil, fmt.Errorf("snapshot %s: %w", id, storage.ErrNotSnapshot)
	}
	return sn, nil
}

// object parses stored bytes back into a value.
func (s *Store) object(id storage.ID) (any, error) {
	s.mu.Lock()
	data, ok := s.objects[id]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("object %s is missing", id)
	}
	return parse(data)
}

// Entry reads a snapshot's header and ids.
func (s *Store) Entry(ctx context.Context, id storage.ID) (storage.Entry, error) {
	sn, err := s.snap(ctx, id)
	if err != nil {
		return storage.Entry{}, err
	}
	return sn.entry, nil
}

// Others reads the snapshot's members other than messages, events and
// files.
func (s *Store) Others(ctx context.Context, id storage.ID) (map[string]any, error) {
	sn, err := s.snap(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.rest(sn)
}

func (s *Store) rest(sn *stored) (map[string]any, error) {
	v, err := parse(sn.rest)
	if err != nil {
		return nil, err
	}
	rest, _ := v.(map[string]any)
	return rest, nil
}

// parts reads a snapshot back into its parts. It reads the messages only
// when messages is set.
func (s *Store) parts(ctx context.Context, sn *stored, messages bool) (*snapshot.Parts, error) {
	rest, err := s.rest(sn)
	if err != nil {
		return nil, err
	}
	p := &snapshot.Parts{Others: rest}
	if messages {
		for _, b := range sn.blocks {
			refs, err := s.BlockMessages(ctx, b)
			if err != nil {
				return nil, err
			}
			for _, r := range refs {
				m, err := s.Message(ctx, r.ID)
				if err != nil {
					return nil, err
				}
				p.Messages = append(p.Messages, m)
			}
		}
	}
	for _, id := range sn.events {
		ev, err := s.object(id)
		if err != nil {
			return nil, err
		}
		p.Events = append(p.Events, ev)
	}
	for _, f := range sn.files {
		s.mu.Lock()
		data := s.objects[f.Blob]
		s.mu.Unlock()
		p.Files = append(p.Files, snapshot.File{Path: f.Path, Mode: f.Mode, Content: data})
	}
	return p, nil
}

// Read returns a snapshot's document, JSON-equal to the one saved.
func (s *Store) Read(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	sn, err := s.snap(ctx, id)
	if err != nil {
		return nil, storage.Entry{}, err
	}
	p, err := s.parts(ctx, sn, true)
	if err != nil {
		return nil, storage.Entry{}, err
	}
	return p.Join(), sn.entry, nil
}

// ReadWithoutMessages reads the snapshot except for its messages.
func (s *Store) ReadWithoutMessages(ctx context.Context, id storage.ID) (map[string]any, storage.Entry, error) {
	sn, err := s.snap(ctx, id)
	if err != nil {
		return nil, storage.Entry{}, err
	}
	p, err := s.parts(ctx, sn, false)
	if err != nil {
		return nil, storage.Entry{}, err
	}
	return p.Join(), sn.entry, nil
}

// Diff compares two snapshots' documents.
func (s *Store) Diff(ctx context.Context, a, b storage.ID) (*snapshot.Diff, error) {
	da, _, err := s.Read(ctx, a)
	if err != nil {
		return nil, err
	}
	db, _, err := s.Read(ctx, b)
	if err != nil {
		return nil, err
	}
	return snapshot.Compare(da, db, s.opts.View)
}

// MessageBlocks lists the blocks that hold a snapshot's messages.
func (s *Store) MessageBlocks(ctx context.Context, e storage.Entry) ([]storage.BlockID, error) {
	sn, err := s.snap(ctx, e.ID)
	if err != nil {
		return nil, err
	}
	return append([]storage.BlockID(nil), sn.blocks...), nil
}

// FirstBlocks returns the first n blocks of MessageBlocks.
func (s *Store) FirstBlocks(ctx context.Context, e storage.Entry, n int) ([]storage.BlockID, error) {
	blocks, err := s.MessageBlocks(ctx, e)
	return blocks[:min(n, len(blocks))], err
}

// BlockMessages lists one block's messages.
func (s *Store) BlockMessages(ctx context.Context, b storage.BlockID) ([]storage.MessageRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	refs, ok := s.blocks[b]
	if !ok {
		return nil, fmt.Errorf("message block %s is missing", storage.ID(b))
	}
	return append([]storage.MessageRef(nil), refs...), nil
}

// Message reads one message.
func (s *Store) Message(ctx context.Context, id storage.MessageID) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.object(storage.ID(id))
}

// Files lists a snapshot's captured files.
func (s *Store) Files(ctx context.Context, e storage.Entry) (storage.FileSet, error) {
	sn, err := s.snap(ctx, e.ID)
	if err != nil || len(sn.files) == 0 {
		return storage.FileSet{}, err
	}
	var ids [][]byte
	for _, f := range sn.files {
		ids = append(ids, []byte(f.Path+"\x00"+f.Mode+"\x00"+f.Blob.String()))
	}
	return storage.FileSet{ID: storage.FileSetID(hashOf("files", ids...)), Files: append([]storage.FileID(nil), sn.files...)}, nil
}

// Blob reads a captured file's content.
func (s *Store) Blob(ctx context.Context, id storage.ID) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.objects[id]
	if !ok {
		return nil, fmt.Errorf("blob %s is missing", id)
	}
	return append([]byte(nil), data...), nil
}

// Walk visits snapshots from starts, newest first, each once.
func (s *Store) Walk(ctx context.Context, starts []storage.ID, fn func(storage.Entry) error) error {
	seen := map[storage.ID]bool{}
	var q byTime
	push := func(id storage.ID) error {
		if id.IsZero() || seen[id] {
			return nil
		}
		seen[id] = true
		e, err := s.Entry(ctx, id)
		if err != nil {
			return err
		}
		heap.Push(&q, e)
		return nil
	}
	for _, id := range starts {
		if err := push(id); err != nil {
			return err
		}
	}
	for q.Len() > 0 {
		e := heap.Pop(&q).(storage.Entry)
		if err := fn(e); err != nil {
			if err == storage.ErrStop {
				return nil
			}
			return err
		}
		for _, p := range append([]storage.ID{e.Parent}, e.Merged...) {
			if err := push(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// byTime orders entries newest first, as git log does by default.
type byTime []storage.Entry

func (q byTime) Len() int { return len(q) }
func (q byTime) Less(i, j int) bool {
	if !q[i].Header.Time.Equal(q[j].Header.Time) {
		return q[i].Header.Time.After(q[j].Header.Time)
	}
	return q[i].Header.Seq > q[j].Header.Seq
}
func (q byTime) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *byTime) Push(x any)   { *q = append(*q, x.(storage.Entry)) }
func (q *byTime) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// Tips maps every session's ref to its newest snapshot.
func (s *Store) Tips(ctx context.Context) (map[string]storage.ID, error) {
	tips, err := s.SessionTips(ctx)
	out := make(map[string]storage.ID, len(tips))
	for name, id := range tips {
		out[refPrefix+name] = id
	}
	return out, err
}

// SessionTips maps every session's name to its newest snapshot.
func (s *Store) SessionTips(ctx context.Context) (map[string]storage.ID, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.tips), nil
}

// TipsStamp returns a stamp that changes on every write.
func (s *Store) TipsStamp() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("memory:%d", s.gen)
}

// SessionOfRef returns the session that a ref listed by Tips holds.
func (s *Store) SessionOfRef(ref string) (session, remote string, ok bool) {
	name, ok := strings.CutPrefix(ref, refPrefix)
	return name, "", ok && name != ""
}

// SessionTip returns a session's newest snapshot.
func (s *Store) SessionTip(session string) (storage.ID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tips[session], nil
}
