package memory

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// errNothingNew stops an append that adds nothing.
var errNothingNew = errors.New("nothing new")

// Save records doc as the next snapshot of a session.
func (s *Store) Save(ctx context.Context, doc map[string]any, o storage.SaveOptions) (storage.Entry, error) {
	return s.commit(ctx, &o, func(storage.ID, map[string]any) (map[string]any, error) { return doc, nil })
}

// Append records the next snapshot of a session as its newest snapshot
// plus the delta that next returns.
func (s *Store) Append(ctx context.Context, o storage.SaveOptions, next func(tipRest map[string]any) (storage.Delta, error)) (storage.Entry, bool, error) {
	e, err := s.commit(ctx, &o, func(tip storage.ID, tipDoc map[string]any) (map[string]any, error) {
		d, err := next(snapshot.Others(tipDoc))
		if err != nil {
			return nil, err
		}
		if !tip.IsZero() && d.Empty(tipDoc) {
			return nil, errNothingNew
		}
		if d.Turn > 0 {
			o.Turn = d.Turn
		}
		return applyDelta(tipDoc, d)
	})
	if errors.Is(err, errNothingNew) {
		return storage.Entry{}, false, nil
	}
	return e, err == nil, err
}

// applyDelta returns the document that results from applying d to the
// newest snapshot's document.
func applyDelta(tip map[string]any, d storage.Delta) (map[string]any, error) {
	doc := make(map[string]any, len(d.Others)+3)
	for k, v := range d.Others {
		if snapshot.StoredApart(k) {
			return nil, &snapshot.InputError{Path: "$." + k, Msg: k + " is appended, not replaced"}
		}
		doc[k] = v
	}
	msgs, _ := tip[snapshot.MemberMessages].([]any)
	if all := append(msgs[:len(msgs):len(msgs)], d.Messages...); len(all) > 0 {
		doc[snapshot.MemberMessages] = all
	}
	events, _ := tip[snapshot.MemberEvents].([]any)
	if all := append(events[:len(events):len(events)], d.Events...); len(all) > 0 {
		doc[snapshot.MemberEvents] = all
	}
	switch {
	case d.Files == nil:
		if files, ok := tip[snapshot.MemberFiles]; ok {
			doc[snapshot.MemberFiles] = files
		}
	case len(d.Files) > 0:
		files := make(map[string]any, len(d.Files))
		for _, f := range d.Files {
			entry := map[string]any{"content": string(f.Content)}
			if f.Mode != "" && f.Mode != snapshot.ModeRegular {
				entry["mode"] = f.Mode
			}
			if !utf8.Valid(f.Content) {
				entry["content"], entry["encoding"] = base64.StdEncoding.EncodeToString(f.Content), "base64"
			}
			files[f.Path] = entry
		}
		doc[snapshot.MemberFiles] = files
	}
	return doc, nil
}

// commit writes the document that build returns as the session's next
// snapshot, using compare-and-swap on the newest snapshot. When another
// writer updates the session in the meantime, build runs again on the
// new newest snapshot. build may change o.
func (s *Store) commit(ctx context.Context, o *storage.SaveOptions, build func(tip storage.ID, tipDoc map[string]any) (map[string]any, error)) (storage.Entry, error) {
	if err := snapshot.CheckName("session", o.Session); err != nil {
		return storage.Entry{}, &snapshot.InputError{Path: "session", Msg: err.Error()}
	}
	for {
		if err := ctx.Err(); err != nil {
			return storage.Entry{}, err
		}
		tip, _ := s.SessionTip(o.Session)
		var tipDoc map[string]any
		var tipEntry storage.Entry
		if !tip.IsZero() {
			var err error
			if tipDoc, tipEntry, err = s.Read(ctx, tip); err != nil {
				return storage.Entry{}, err
			}
		}
		doc, err := build(tip, tipDoc)
		if err != nil {
			return storage.Entry{}, err
		}
		snap, err := s.prepare(doc, *o, tipEntry)
		if err != nil {
			return storage.Entry{}, err
		}
		s.mu.Lock()
		if s.tips[o.Session] != tip {
			s.mu.Unlock()
			continue // another writer won: build again on its snapshot
		}
		s.snaps[snap.entry.ID] = snap
		s.tips[o.Session] = snap.entry.ID
		s.gen++
		s.mu.Unlock()
		return snap.entry, nil
	}
}

// prepare stores a document's parts as a snapshot whose parent is tip
// (zero for a new session) and returns the snapshot, which is not yet
// added to the session.
func (s *Store) prepare(doc map[string]any, o storage.SaveOptions, tip storage.Entry) (*stored, error) {
	data, err := snapshot.Marshal(doc)
	if err != nil {
		return nil, err
	}
	back, err := parse(data) // exactly what a reader will get, including numbers
	if err != nil {
		return nil, err
	}
	doc, _ = back.(map[string]any)
	parts, err := snapshot.Split(doc)
	if err != nil {
		return nil, err
	}
	h := s.header(o, tip, parts, doc)
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &stored{}
	if snap.rest, err = snapshot.Marshal(parts.Others); err != nil {
		return nil, err
	}
	if snap.blocks, err = s.putMessages(parts.Messages); err != nil {
		return nil, err
	}
	for _, ev := range parts.Events {
		b, err := snapshot.MarshalIndent(ev)
		if err != nil {
			return nil, err
		}
		snap.events = append(snap.events, s.put("event", b))
	}
	for _, f := range parts.Files {
		snap.files = append(snap.files, storage.FileID{Path: f.Path, Mode: f.Mode, Blob: s.put("file", f.Content)})
	}
	tree := hashOf("tree", data)
	hb, err := snapshot.Marshal(map[string]any{"session": h.Session, "seq": h.Seq, "time": h.Time.Format(time.RFC3339Nano), "label": h.Label})
	if err != nil {
		return nil, err
	}
	snap.entry = storage.Entry{ID: hashOf("snapshot", tip.ID[:], tree[:], hb, []byte(h.Message)), Parent: tip.ID, Tree: tree, Header: h}
	return snap, nil
}

// putMessages stores messages one by one, in blocks of blockSize.
func (s *Store) putMessages(msgs []any) ([]storage.BlockID, error) {
	var out []storage.BlockID
	for from := 0; from < len(msgs); from += blockSize {
		var refs []storage.MessageRef
		var ids [][]byte
		for i := from; i < min(from+blockSize, len(msgs)); i++ {
			b, err := snapshot.MarshalIndent(msgs[i])
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			id := s.put("message", b)
			refs = append(refs, storage.MessageRef{Index: i, ID: storage.MessageID(id)})
			ids = append(ids, []byte(fmt.Sprintf("%d %s", i, id)))
		}
		block := storage.BlockID(hashOf("block", ids...))
		s.blocks[block] = refs
		out = append(out, block)
	}
	return out, nil
}

// header returns the header of a new snapshot whose parent is tip, with
// defaults applied to the options, and the snapshot's counts and
// totals.
func (s *Store) header(o storage.SaveOptions, tip storage.Entry, parts *snapshot.Parts, doc map[string]any) snapshot.Header {
	clean := func(v string) string { return strings.Join(strings.Fields(v), " ") }
	h := snapshot.Header{
		Session: o.Session, Seq: tip.Header.Seq + 1, Turn: o.Turn, Label: clean(o.Label), Source: clean(o.Source),
		Message: clean(o.Message), Time: o.Time, Code: clean(o.Code), Dirty: o.Dirty, RollbackOf: o.RollbackOf,
		Messages: len(parts.Messages), Events: len(parts.Events), Files: len(parts.Files),
	}
	if h.Source == "" {
		h.Source = "cli"
	}
	switch {
	case o.Totals != nil:
		h.Counted, h.Totals = true, *o.Totals
	case s.opts.Counter != nil:
		h.Counted, h.Totals = true, s.opts.Counter.TallyOf(doc, h.Source).Totals()
	}
	first, last := s.recordSpan(parts.Messages)
	if h.Time.IsZero() {
		h.Time = last
	}
	if h.Time.IsZero() {
		h.Time = s.opts.Now()
	}
	h.Started = tip.Header.Started
	if tip.ID.IsZero() {
		h.Started = h.Time
		if !first.IsZero() && first.Before(h.Time) {
			h.Started = first
		}
	}
	return h
}

// recordSpan returns the earliest and latest times the records carry.
func (s *Store) recordSpan(msgs []any) (first, last time.Time) {
	for _, m := range msgs {
		at, err := time.Parse(time.RFC3339Nano, s.opts.View(m).Time)
		if err != nil {
			continue
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if at.After(last) {
			last = at
		}
	}
	return first, last
}
