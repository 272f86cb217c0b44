package gitstore

import (
	"context"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/gitstore/internal/pack"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// SaveScanned is Save of a document read as text (snapshot.ScanDocument),
// and writes the same snapshot, byte for byte: the same blobs, trees and
// commit. It reads the messages and events one at a time: each is
// parsed from the text, redacted, encoded, counted and written as its
// blob before the next is read, so that a save holds the text and the
// ids of what it wrote, not the document (docs/design.md §7). The
// document was checked whole when scanned, so nothing is written for a
// document that is not valid.
//
// A document whose live records are not in stored order, or that only
// a reading of them all tells apart (Gemini CLI's JSONL chat), is parsed
// whole and saved as Save saves it.
func (s *Store) SaveScanned(ctx context.Context, d *snapshot.Scanned, o storage.SaveOptions) (storage.Entry, error) {
	if err := checkSession(o.Session); err != nil {
		return storage.Entry{}, err
	}
	sv, err := s.startScanned(d, o)
	if err != nil {
		return storage.Entry{}, err
	}
	if sv == nil { // read whole
		doc, err := d.Document()
		if err != nil {
			return storage.Entry{}, err
		}
		return s.Save(ctx, doc, o)
	}
	if err := sv.writeElements(ctx); err != nil {
		return storage.Entry{}, err
	}
	h, objs, err := sv.finish()
	if err != nil {
		return storage.Entry{}, err
	}
	return s.commitWritten(ctx, h, objs[len(objs)-1].Hash, objs, &sv.written, sv.kept)
}

// scannedSave is a SaveScanned under way.
type scannedSave struct {
	s     *Store
	d     *snapshot.Scanned
	o     storage.SaveOptions
	h     snapshot.Header
	parts *snapshot.Parts // the members but messages and events, redacted and split
	// redacted counts the secrets replaced.
	redacted int
	// tip is the session's tip as the save began: a message whose blob
	// it holds was stored unchanged, and is neither redacted nor written
	// (as Save's heldByTip); holds says there is one to ask.
	tip   tipState
	holds bool
	// The count: tally fed the live records (live, their indexes in
	// order, and thread, their files), or, when nothing counts them,
	// the span of the records' times.
	tally       storage.Tally
	live        []int
	thread      []string
	first, last time.Time
	kept        *keptTally
	written
	elems map[string][]storage.ID // the ids of the blobs written, by member
}

// written are the blobs a save wrote, or found in the tip, before it
// built its tree: their ids for the tip cache, and those it did not
// write because the tip it checked them against (on) held them.
type written struct {
	on     storage.ID
	ids    []storage.ID
	reused []storage.ID
}

// startScanned redacts, splits and checks the members a scanned document
// holds whole, and decides how it is counted; nil, with no error, says
// the document is to be read whole.
func (s *Store) startScanned(d *snapshot.Scanned, o storage.SaveOptions) (*scannedSave, error) {
	rest, r := d.Others, s.opts.Redactor
	var found []redact.Finding
	if r != nil {
		if r.RenamesKey(snapshot.MemberMessages) || r.RenamesKey(snapshot.MemberEvents) {
			return nil, nil // the member itself moves: Save's to do
		}
		rest, found = r.Document(rest)
	}
	parts, err := snapshot.Split(rest)
	if err != nil {
		return nil, err
	}
	sv := &scannedSave{s: s, d: d, o: o, h: s.header(o), parts: parts, redacted: len(found), elems: map[string][]storage.ID{}}
	switch {
	case o.Totals != nil:
		sv.h.Counted, sv.h.Totals = true, *o.Totals
	case s.counter != nil:
		live, thread, ok := s.counter.LiveIndex(rest, d.Len(snapshot.MemberMessages))
		if !ok || !increasing(live) {
			return nil, nil // counted as the whole document says
		}
		sv.tally, sv.live, sv.thread = s.counter.NewTally(sv.h.Source), live, thread
		sv.h.Counted = true
	}
	sv.readTip()
	return sv, nil
}

// increasing reports whether each index is above the one before: the
// live records are then counted in the order they are stored.
func increasing(index []int) bool {
	for i := 1; i < len(index); i++ {
		if index[i] <= index[i-1] {
			return false
		}
	}
	return true
}

// readTip reads the session's tip state, for the messages it holds and
// the objects it need not write. Failing to only means nothing is held.
func (sv *scannedSave) readTip() {
	sv.tip = tipState{known: mapHashes{}, recent: mapHashes{}}
	ref := sv.s.SessionRef(sv.o.Session)
	tip, err := sv.s.refs.Read(ref)
	if err != nil || tip.IsZero() {
		return
	}
	if st, err := sv.s.tipState(ref, tip); err == nil {
		sv.tip, sv.holds = st, true
	}
}

// writeElements reads, redacts, counts and writes every message, then
// every event.
func (sv *scannedSave) writeElements(ctx context.Context) error {
	sv.on = sv.tip.commit
	next := 0 // into sv.live
	for i := range sv.d.Len(snapshot.MemberMessages) {
		v, err := sv.element(ctx, snapshot.MemberMessages, i, sv.holds)
		if err != nil {
			return err
		}
		switch {
		case sv.tally != nil && next < len(sv.live) && sv.live[next] == i:
			sv.tally.Record(v, sv.thread[next])
			next++
		case !sv.h.Counted:
			sv.span(v)
		}
	}
	for i := range sv.d.Len(snapshot.MemberEvents) {
		v, err := sv.element(ctx, snapshot.MemberEvents, i, false)
		if err != nil {
			return err
		}
		if sv.tally != nil {
			sv.tally.Event(v)
		}
	}
	if len(sv.reused) > 0 {
		sv.s.freshenPacks() // as writeObjects does
	}
	return nil
}

// element reads element i of member, redacts it unless the tip holds it
// as it is (asked only when held), writes its blob, and returns it as
// the snapshot keeps it.
func (sv *scannedSave) element(ctx context.Context, member string, i int, held bool) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := sv.d.Element(member, i)
	if err != nil {
		return nil, err
	}
	var blob gitobj.Object
	if held {
		blob, err = encodeBlob(v)
		held = err == nil && sv.s.tipHolds(sv.tip.known, blob.Hash)
	}
	if r := sv.s.opts.Redactor; !held && r != nil {
		if out, found := r.Element(member, i, v); len(found) > 0 {
			v, blob.Data = out, nil
			sv.redacted += len(found)
		}
	}
	if blob.Data == nil {
		if blob, err = encodeBlob(v); err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", member, i, err)
		}
	}
	if err := sv.write(blob, held); err != nil {
		return nil, err
	}
	sv.elems[member] = append(sv.elems[member], blob.Hash)
	return v, nil
}

// encodeBlob is the blob that stores v.
func encodeBlob(v any) (gitobj.Object, error) {
	data, err := snapshot.MarshalIndent(v)
	return gitobj.Object{Type: plumbing.BlobObject, Data: data, Hash: layout.BlobHash(data)}, err
}

// write stores a blob as writeObjects would, unless the tip holds it
// (held: it was seen to).
func (sv *scannedSave) write(o gitobj.Object, held bool) error {
	sv.ids = append(sv.ids, o.Hash)
	switch s := sv.s; {
	case held || s.tipHolds(sv.tip.known, o.Hash):
		sv.reused = append(sv.reused, o.Hash)
	case s.st.batch != nil:
		return s.st.batch.add(pack.Object(o))
	default:
		return s.writeLoose(o)
	}
	return nil
}

// span widens the span of the records' times by a record's, for a save
// nothing counts (recordSpan).
func (sv *scannedSave) span(v any) {
	at, err := time.Parse(time.RFC3339Nano, sv.s.view(v).Time)
	if err != nil {
		return
	}
	if sv.first.IsZero() || at.Before(sv.first) {
		sv.first = at
	}
	if at.After(sv.last) {
		sv.last = at
	}
}

// finish dates and counts the header and lays out the tree: its objects,
// root last, but the blobs already written.
func (sv *scannedSave) finish() (snapshot.Header, []gitobj.Object, error) {
	h := sv.h
	h.Redacted += sv.redacted
	first, last := sv.first, sv.last
	if sv.tally != nil {
		h.Totals = sv.tally.Totals()
		sv.kept = &keptTally{Tally: sv.tally}
	}
	if h.Counted {
		first, last = h.Totals.First, h.Totals.Last
	}
	sv.s.recordTimes(&h, sv.o, first, last)
	objs, err := layout.BuildStored(sv.s.reader, sv.parts, sv.elems[snapshot.MemberMessages], sv.elems[snapshot.MemberEvents], &h)
	return h, objs, err
}

// recheck makes sure, for a tree to be committed on st, that the blobs
// a save did not write because the tip it began on held them are here:
// when another writer moved the tip, what the old one held may no
// longer be reachable (see commitTree), so those st does not hold are
// freshened, or written again from the repository.
func (w *written) recheck(s *Store, st tipState) error {
	if w == nil || w.on == st.commit {
		return nil
	}
	for _, h := range w.reused {
		if s.tipHolds(st.known, h) || s.st.batch != nil && s.st.batch.has(h) || s.st.batch == nil && s.freshenLoose(h) == fresh {
			continue
		}
		data, err := s.st.blobData(h)
		if err != nil {
			return fmt.Errorf("blob %s of the snapshot: %w", h, err)
		}
		o := gitobj.Object{Type: plumbing.BlobObject, Data: data, Hash: h}
		if s.st.batch != nil {
			err = s.st.batch.add(pack.Object(o))
		} else {
			_, err = s.storeObject(o)
		}
		if err != nil {
			return err
		}
	}
	w.on = st.commit
	return nil
}
