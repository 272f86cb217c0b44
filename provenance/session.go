package provenance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// sessionLines is what the index keeps of one session's ref: the
// snapshots whose captured files gained lines, which lines each gained,
// and the code commits the session's snapshots name. It is built from
// the snapshots' headers, captured files' trees and blobs, and then kept
// up to date a snapshot at a time.
type sessionLines struct {
	Ref     string
	Session string
	Remote  string // "" for a local session
	Tip     storage.ID
	TipSeq  int
	Agent   string // the header's Source
	Edits   []edit // by sequence number
	// Codes are the code commits the snapshots name, each with the
	// first snapshot that named it, in that order.
	Codes []codeSeen
	// Files are the captures of each path that gained lines.
	Files map[string][]capture
	// Prunes are the prunes the session's chain records.
	Prunes []pruneSeen
	// Started is when the session began; Kept the time of the oldest
	// snapshot its chain holds (later than Started after a prune).
	Started, Kept time.Time
	// What appending to the index needs of the tip.
	Last      map[string]storage.ID // each captured path's blob
	LastFiles storage.FileSetID
	LastCalls int
	LastModel string
	LastOut   map[string]int64 // output tokens by model
	// Prompts are the first lines of the session's prompts, turn by
	// turn, read from the snapshot PromptsAt when a blame first needed
	// them.
	Prompts   []string
	PromptsAt storage.ID
	// PromptsWhole says Prompts are all the prompts PromptsAt holds.
	PromptsWhole bool
}

// edit is a snapshot whose capture gained lines: the agent's edit.
type edit struct {
	ID    storage.ID
	Seq   int
	Turn  int
	Time  time.Time
	Model string
}

// capture is the lines one edit added to one path: hashes of the lines
// as they are, and with white space taken out, sorted; and where each
// line that proves nothing by itself was added.
type capture struct {
	Edit    int // into Edits
	Exact   []uint64
	Norm    []uint64
	Context []lineContext
}

// codeSeen is a code commit and the first snapshot that named it.
type codeSeen struct {
	Code storage.ID
	Seq  int
}

// pruneSeen is a prune of the session: the tip it pruned, how many
// snapshots it removed (0 when not known: that tip is gone), when.
type pruneSeen struct {
	Old     storage.ID
	Removed int
	At      time.Time
}

// pruned reports whether a prune took snapshots out of the session's
// chain, and how many, as far as is known.
func (sl *sessionLines) pruned() (bool, int) {
	n := 0
	for _, p := range sl.Prunes {
		n += p.Removed
	}
	return len(sl.Prunes) > 0, n
}

// reader reads what building a session's lines needs.
type reader struct {
	s Store
	// last holds, for the session being built, each path's newest
	// lines read, which the next capture of the path is compared with.
	last map[string]blobLines
}

// build reads the session whose ref is at tip into its lines, going on
// from old (the same ref, as indexed at an earlier tip) when tip's
// history holds old's tip, else from the session's start.
func (r *reader) build(ctx context.Context, ref string, tip storage.ID, old *sessionLines) (*sessionLines, error) {
	if old != nil && old.Tip == tip {
		return old, nil
	}
	if old != nil {
		sl, err := r.walk(ctx, old.clone(), tip)
		if err == nil {
			return sl, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		// A prune, a pull's replay, or objects gone: read it again whole.
	}
	session, remote, _ := r.s.SessionOfRef(ref)
	fresh := &sessionLines{Ref: ref, Session: session, Remote: remote, Files: map[string][]capture{},
		Last: map[string]storage.ID{}, LastOut: map[string]int64{}}
	return r.walk(ctx, fresh, tip)
}

// errRewritten says a session's history no longer holds the tip it was
// indexed at.
var errRewritten = errors.New("the session's history was rewritten")

// walk adds to sl the snapshots tip reaches and sl's tip does not.
func (r *reader) walk(ctx context.Context, sl *sessionLines, tip storage.ID) (*sessionLines, error) {
	rng := gitstore.RevRange{Include: []storage.ID{tip}}
	if !sl.Tip.IsZero() {
		rng.Exclude = []storage.ID{sl.Tip}
	}
	var added []storage.Entry
	err := r.s.WalkRange(ctx, rng, func(e storage.Entry) error {
		if e.Header.Seq <= sl.TipSeq {
			return errRewritten
		}
		added = append(added, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", sl.Session, err)
	}
	slices.SortStableFunc(added, func(a, b storage.Entry) int { return a.Header.Seq - b.Header.Seq })
	if len(added) > 0 && sl.Tip.IsZero() {
		sl.Started, sl.Kept = added[0].Header.Started, added[0].Header.Time
	}
	r.last = map[string]blobLines{}
	for _, e := range added {
		if err := r.add(ctx, sl, e); err != nil {
			return nil, fmt.Errorf("read session %s at %s: %w", sl.Session, e.ID, err)
		}
	}
	sl.Tip = tip
	if len(added) > 0 {
		last := added[len(added)-1].Header
		sl.TipSeq, sl.Agent = last.Seq, last.Source
	}
	return sl, nil
}

// add reads one snapshot into sl: its code commit, its model, and the
// lines its capture gained over the last one.
func (r *reader) add(ctx context.Context, sl *sessionLines, e storage.Entry) error {
	h := e.Header
	if err := r.notePrunes(ctx, sl, e); err != nil {
		return err
	}
	if storage.IsID(h.Code) && !slices.ContainsFunc(sl.Codes, func(c codeSeen) bool { return c.Code.String() == h.Code }) {
		sl.Codes = append(sl.Codes, codeSeen{storage.NewID(h.Code), h.Seq})
	}
	// In a session that calls tools, only a snapshot that recorded a
	// tool call holds the agent's work: a file that changed by the
	// prompt's snapshot changed by hand. A session that records none (a
	// harness, a document saved) has its captures taken as they come.
	work := !h.Counted || h.Totals.ToolCalls > sl.LastCalls || h.Totals.ToolCalls == 0
	if h.Counted {
		sl.LastCalls = h.Totals.ToolCalls
		sl.noteModel(h.Totals.ByModel)
	}
	if h.Files == 0 {
		return nil
	}
	fs, err := r.s.Files(ctx, e)
	if err != nil {
		return err
	}
	if fs.ID == sl.LastFiles {
		return nil
	}
	sl.LastFiles = fs.ID
	for _, f := range fs.Files {
		before, ok := sl.Last[f.Path]
		if ok && before == f.Blob || f.Mode == "120000" {
			continue
		}
		sl.Last[f.Path] = f.Blob
		var prev fileLines
		if ok {
			prev, _ = r.lines(ctx, f.Path, before)
		} else if storage.IsID(h.Code) {
			// The session's first capture of the file: what it added is
			// what the commit HEAD was on did not hold.
			prev = r.codeLines(ctx, storage.NewID(h.Code), f.Path)
		}
		cur, err := r.lines(ctx, f.Path, f.Blob)
		if err != nil || cur.exact == nil {
			continue // binary, or over the store's bound: no lines of it
		}
		c := introduce(prev, cur)
		if !work || len(c.Exact)+len(c.Norm) == 0 {
			continue
		}
		if n := len(sl.Edits); n == 0 || sl.Edits[n-1].ID != e.ID {
			sl.Edits = append(sl.Edits, edit{ID: e.ID, Seq: h.Seq, Turn: h.Turn, Time: h.Time, Model: sl.LastModel})
		}
		c.Edit = len(sl.Edits) - 1
		sl.Files[f.Path] = append(sl.Files[f.Path], c)
	}
	return nil
}

// notePrunes notes the prunes a snapshot records (a pruned tip's
// trailers): the one that wrote it removed what its old tip counted
// past the snapshots it kept.
func (r *reader) notePrunes(ctx context.Context, sl *sessionLines, e storage.Entry) error {
	prunes, err := r.s.PrunesOn(ctx, e.ID)
	if err != nil {
		return err
	}
	for i, p := range prunes {
		if slices.ContainsFunc(sl.Prunes, func(q pruneSeen) bool { return q.Old == p.Old }) {
			continue
		}
		removed := 0
		if old, err := r.s.Entry(ctx, p.Old); err == nil && i == 0 {
			removed = max(0, old.Header.Seq-e.Header.Seq)
		}
		sl.Prunes = append(sl.Prunes, pruneSeen{p.Old, removed, p.At})
	}
	return nil
}

// codeLines are the lines of path in a code commit; none when the store
// does not hold it (a new file; a store separate from the code).
func (r *reader) codeLines(ctx context.Context, commit storage.ID, path string) fileLines {
	data, ok, err := r.s.CodeFile(ctx, commit, path)
	if err != nil || !ok || isBinary(data) {
		return fileLines{}
	}
	return splitLines(data)
}

// blobLines are a blob's lines.
type blobLines struct {
	id    storage.ID
	lines fileLines
}

// lines reads the lines of path's blob id; a binary blob has none (nil
// exact). The last read of each path is kept: the next capture of the
// path is compared with it.
func (r *reader) lines(ctx context.Context, path string, id storage.ID) (fileLines, error) {
	if b, ok := r.last[path]; ok && b.id == id {
		return b.lines, nil
	}
	data, err := r.s.Blob(ctx, id)
	if err != nil {
		return fileLines{}, err
	}
	var f fileLines
	if !isBinary(data) {
		f = splitLines(data)
	}
	r.last[path] = blobLines{id, f}
	return f, nil
}

// noteModel takes, as the model of what comes next, the one whose
// output grew since the last snapshot (the most when several did).
func (sl *sessionLines) noteModel(by []snapshot.ModelUsage) {
	var grew int64
	for _, m := range by {
		if d := m.Output - sl.LastOut[m.Model]; d > grew {
			grew, sl.LastModel = d, m.Model
		}
		sl.LastOut[m.Model] = m.Output
	}
}

// clone copies sl deep enough to be appended to without changing it.
func (sl *sessionLines) clone() *sessionLines {
	c := *sl
	c.Edits = slices.Clone(sl.Edits)
	c.Codes = slices.Clone(sl.Codes)
	c.Prunes = slices.Clone(sl.Prunes)
	c.Files = maps.Clone(sl.Files)
	for p, cs := range c.Files {
		c.Files[p] = slices.Clip(cs)
	}
	c.Last = maps.Clone(sl.Last)
	c.LastOut = maps.Clone(sl.LastOut)
	return &c
}
