package gitstore

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/redact"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Append records the next snapshot of a session as its tip plus a delta,
// without reading or writing what the tip already holds: appending one
// message writes one blob and the few trees above it. next is given the
// tip's members other than messages, events and files (snapshot.Others:
// no file notes, no empty arrays; nil for a new session), so that
// returning them as Delta.Others keeps them. It is called again, on the
// new tip, when another writer moved the session meanwhile, so a delta
// computed from state kept in the document (a read position, say) is
// never applied twice. It returns false, and writes nothing, when the
// delta is empty.
func (s *Store) Append(ctx context.Context, o storage.SaveOptions, next func(tipRest map[string]any) (storage.Delta, error)) (storage.Entry, bool, error) {
	if err := checkSession(o.Session); err != nil {
		return storage.Entry{}, false, err
	}
	ref := s.SessionRef(o.Session)
	e, err := s.commitOnTip(ctx, s.header(o), func(tip storage.ID, h *snapshot.Header, st tipState) (built, error) {
		return s.buildAppend(ctx, ref, tip, h, st, next)
	})
	if errors.Is(err, errNothingNew) {
		return storage.Entry{}, false, nil
	}
	return e, err == nil, err
}

// buildAppend is Append's treeBuilder: it asks next for the delta on
// this tip and lays it out on the tip's tree.
func (s *Store) buildAppend(ctx context.Context, ref string, tip storage.ID, h *snapshot.Header, st tipState, next func(map[string]any) (storage.Delta, error)) (built, error) {
	var base opened // a new session's: empty
	if !tip.IsZero() {
		var err error
		if base, err = s.openSnapshot(ctx, tip); err != nil {
			return built{}, err
		}
	}
	d, err := next(snapshot.Others(base.rest))
	if err != nil {
		return built{}, err
	}
	if !tip.IsZero() && d.Empty(base.rest) {
		return built{}, errNothingNew
	}
	if d.Turn > 0 {
		h.Turn = d.Turn
	}
	// A new session starts at its oldest record. The snapshot keeps the
	// time it was taken (or the caller's): a live hook's records are of
	// now, and an import gives the newest record's time itself.
	first, _ := s.recordSpan(d.Messages)
	s.recordTimes(h, storage.SaveOptions{Time: h.Time}, first, time.Time{})
	d, found := s.redactDelta(d)
	h.Redacted += len(found) // and the header's, counted by s.header
	rest, err := deltaRest(d, base.rest)
	if err != nil {
		return built{}, err
	}
	var tally *keptTally
	if s.counter != nil {
		h.Counted = true
		if h.Totals, tally, err = s.appendTotals(ctx, ref, tip, base, h.Source, d, rest); err != nil {
			return built{}, err
		}
	}
	h.Messages, h.Events, h.Files = base.Header.Messages, base.Header.Events, base.Header.Files
	objs, err := layout.Build(s.reader, base.tree, &snapshot.Parts{Others: rest, Messages: d.Messages, Events: d.Events, Files: d.Files}, h)
	if err != nil {
		return built{}, err
	}
	// What an append adds is new but for a record written twice: the
	// objects written since the cache's base are enough to check, and
	// the base is not read.
	if err := s.writeObjects(objs, st.recent); err != nil {
		return built{}, err
	}
	return built{root: objs[len(objs)-1].Hash, objs: objs, onTip: true, listed: true, tally: tally}, nil
}

// deltaRest makes the new snapshot.json: the delta's members and the
// file notes, of the captured files or, when the tip's files are kept,
// the tip's.
func deltaRest(d storage.Delta, tipRest map[string]any) (map[string]any, error) {
	rest := make(map[string]any, len(d.Others)+1)
	for k, v := range d.Others {
		if snapshot.StoredApart(k) {
			return nil, &snapshot.InputError{Path: "$." + k, Msg: k + " is appended, not replaced"}
		}
		rest[k] = v
	}
	switch {
	case len(d.Files) > 0:
		meta := make(map[string]any, len(d.Files))
		for _, f := range d.Files {
			if err := snapshot.CheckPath(f.Path); err != nil {
				return nil, &snapshot.InputError{Path: "$.files", Msg: err.Error()}
			}
			m := map[string]any{}
			if f.Mode != snapshot.ModeRegular {
				m["mode"] = f.Mode
			}
			if !utf8.Valid(f.Content) {
				m["encoding"] = "base64"
			}
			meta[f.Path] = m
		}
		rest[snapshot.MemberFiles] = meta
	case d.Files == nil && tipRest[snapshot.MemberFiles] != nil:
		rest[snapshot.MemberFiles] = tipRest[snapshot.MemberFiles]
	}
	return rest, nil
}

// redactDelta replaces secrets in what the delta adds.
func (s *Store) redactDelta(d storage.Delta) (storage.Delta, []redact.Finding) {
	r := s.opts.Redactor
	if r == nil {
		return d, nil
	}
	doc := map[string]any{"rest": d.Others, "messages": d.Messages, "events": d.Events}
	out, found := r.Document(doc)
	red := storage.Delta{}
	red.Others, _ = out["rest"].(map[string]any)
	red.Messages, _ = out["messages"].([]any)
	red.Events, _ = out["events"].([]any)
	if d.Files != nil {
		red.Files = make([]snapshot.File, len(d.Files))
		for i, f := range d.Files {
			red.Files[i] = f
			content, ff := r.Bytes(f.Content) // text, or mostly text
			red.Files[i].Content = content
			for _, x := range ff {
				x.Path = snapshot.FormatPath([]any{snapshot.MemberFiles, f.Path, "content"})
				found = append(found, x)
			}
		}
	}
	return red, found
}

// Mark records a new snapshot of a session with the tip's content and a
// new header, e.g. the code commit a git hook saw. It fails for a
// session with no snapshot yet.
func (s *Store) Mark(ctx context.Context, o storage.SaveOptions) (storage.Entry, error) {
	ref := s.SessionRef(o.Session)
	return s.commitOnTip(ctx, s.header(o), func(tip storage.ID, h *snapshot.Header, _ tipState) (built, error) {
		if tip.IsZero() {
			return built{}, storage.NoSession(o.Session)
		}
		e, err := s.Entry(ctx, tip)
		if err != nil {
			return built{}, err
		}
		h.Turn, h.Messages, h.Events, h.Files = e.Header.Turn, e.Header.Messages, e.Header.Events, e.Header.Files
		h.Counted, h.Totals = e.Header.Counted, e.Header.Totals
		if o.Source == "" { // the tip's source, not the default: nothing new was taken
			h.Source = e.Header.Source
		}
		b := built{root: e.Tree, onTip: true, listed: true} // the same tree: the tip's objects stay known
		if h.Source == e.Header.Source {
			b.tally = s.cachedTally(ref, e) // and the same count
		}
		return b, nil
	})
}

// Others reads a snapshot's members other than messages, events and files
// (snapshot.Others), as Append's next is given them.
func (s *Store) Others(ctx context.Context, id storage.ID) (map[string]any, error) {
	o, err := s.openSnapshot(ctx, id)
	if err != nil {
		return nil, err
	}
	return snapshot.Others(o.rest), nil
}
