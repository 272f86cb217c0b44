// Package capture records agents' sessions into the store: a hook
// call's transcripts as they grow (Ingest), a transcript file given to
// import, a harness's lifecycle events (Recorder), and a commit marked
// on the sessions at work in its work tree (PostCommit). What the agents
// write is read through package agent; capture adds the writing.
package capture

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/snapshot"
	"github.com/git-snap/git-snap/storage"
)

// Ingest records what an agent's transcript files gained since the
// session's last snapshot. How far each file has been read is kept in the
// snapshot itself (see Layout), so each call reads only the lines added
// since, and two calls racing never record a line twice.
type Ingest struct {
	Store   storage.Storage
	Adapter agent.Adapter
	Limits  snapshot.Limits
	// WorkTree, when set, is where touched files are captured from.
	WorkTree string
	// Changed lists files changed in the work tree since its commit
	// (agents also edit through shell commands); nil: none.
	Changed func(ctx context.Context) ([]string, error)
	// MaxFileBytes bounds a captured file; larger ones are not read,
	// only listed with their sizes under "skipped_files".
	MaxFileBytes int
	// MaxReadBytes bounds what one step reads of each transcript file
	// (DefaultMaxReadBytes when 0): a longer transcript is read in
	// steps, each its own snapshot, so that memory stays bounded.
	MaxReadBytes int64
	// Budget, when not 0, is how long one Run may keep stepping through
	// a long transcript; the next Run goes on from where it stopped.
	Budget time.Duration
	// Warn, when set, is told of what a call went on without: a
	// transcript named that does not exist, a file the agent rewrote.
	Warn func(msg string)
}

// Run records one hook call. It returns false when nothing was new.
//
// A transcript with more to read than MaxReadBytes (the first call on a
// long session) is read in steps, each its own snapshot, so that memory
// stays bounded; with a Budget, no step starts that would likely end past
// it, and the next call goes on from where the last step stopped. Nothing
// is skipped: every step records its lines before the next is read.
func (in Ingest) Run(ctx context.Context, p agent.Payload, o storage.SaveOptions) (storage.Entry, bool, error) {
	extra, err := in.transcripts(p)
	if err != nil {
		return storage.Entry{}, false, err
	}
	return in.record(ctx, p, o, extra, stepping{})
}

// transcripts lists the subagents' transcripts of a call; what could not
// be read is told to Warn.
func (in Ingest) transcripts(p agent.Payload) (map[string]string, error) {
	extra, err := in.Adapter.Transcripts(p)
	switch {
	case agent.IsUnread(err) && in.Warn != nil:
		in.Warn(fmt.Sprintf("subagent transcripts: %v", err))
	case err != nil && !agent.IsUnread(err):
		return nil, fmt.Errorf("list subagent transcripts: %w", err)
	}
	return extra, nil
}

// stepping is how an import's steps differ from a hook call's.
type stepping struct {
	// ahead is the first update, read before the first step on the
	// session's tip; nil when none was.
	ahead *readAhead
}

// readAhead is an update read before the first step, on the tip whose
// members other than messages, events and files are rest (nil: no tip).
type readAhead struct {
	rest map[string]any
	u    agent.Update
}

// record appends what the transcripts gained, in steps, and sets the
// checkpoints their compactions call for.
func (in Ingest) record(ctx context.Context, p agent.Payload, o storage.SaveOptions, extra map[string]string, how stepping) (storage.Entry, bool, error) {
	o.Session, o.Label, o.Source = p.SessionID, p.Label(), in.Adapter.Name()
	var changed []string
	if in.Changed != nil && in.WorkTree != "" {
		var err error
		if changed, err = in.Changed(ctx); err != nil {
			return storage.Entry{}, false, fmt.Errorf("list changed files: %w", err)
		}
	}
	e, added, compacted, err := in.steps(ctx, p, o, extra, changed, how)
	if err != nil {
		return e, added, err
	}
	if !compacted.IsZero() {
		// An agent whose compaction shows only in its records (Gemini
		// CLI): the checkpoint is the snapshot before them.
		if _, err := in.Store.SetCheckpoint(ctx, agent.PreCompactCheckpoint, compacted, "before compaction", true); err != nil {
			return e, added, fmt.Errorf("checkpoint %s: %w", agent.PreCompactCheckpoint, err)
		}
	}
	if ev := in.Adapter.CompactEvent(); ev != "" && p.Event == ev {
		id := e.ID
		if !added {
			if id, err = in.Store.SessionTip(p.SessionID); err != nil || id.IsZero() {
				return e, added, err
			}
		}
		if _, err := in.Store.SetCheckpoint(ctx, agent.PreCompactCheckpoint, id, "before compaction", true); err != nil {
			return e, added, fmt.Errorf("checkpoint %s: %w", agent.PreCompactCheckpoint, err)
		}
	}
	return e, added, nil
}

// steps appends snapshots until the transcripts are read to their end,
// the budget is spent, or the context is done; it returns the last one,
// and, when the records read hold the agent's first sign of a new
// compaction (agent.Update.Compacted), the snapshot before them.
func (in Ingest) steps(ctx context.Context, p agent.Payload, o storage.SaveOptions, extra map[string]string, changed []string, how stepping) (last storage.Entry, anyAdded bool, compacted storage.ID, err error) {
	start := time.Now()
	var slowest time.Duration
	var before storage.ID
	if agent.CompactsInRecords(in.Adapter) {
		if before, err = in.Store.SessionTip(p.SessionID); err != nil {
			return last, false, compacted, err
		}
	}
	warned := map[string]bool{}
	for {
		stepStart := time.Now()
		var u agent.Update
		e, added, err := in.Store.Append(ctx, o, func(tipRest map[string]any) (storage.Delta, error) {
			var err error
			// A retry on a moved tip replaces what the lost one found.
			if a := how.ahead; a != nil && sameRest(a.rest, tipRest) {
				u = a.u
			} else if u, err = agent.ReadUpdate(in.Adapter, p, extra, tipRest, agent.Reading{Limits: in.Limits, MaxReadBytes: in.MaxReadBytes}); err != nil {
				return storage.Delta{}, err
			}
			how.ahead = nil
			return in.delta(u, changed), nil
		})
		for _, w := range u.Warnings {
			if !warned[w] && in.Warn != nil {
				in.Warn(w)
			}
			warned[w] = true
		}
		if err != nil {
			return last, anyAdded, compacted, err
		}
		if added {
			if u.Compacted && compacted.IsZero() {
				compacted = before
			}
			last, anyAdded, before = e, true, e.ID
		}
		slowest = max(slowest, time.Since(stepStart))
		switch {
		case !added || !u.More || ctx.Err() != nil:
			return last, anyAdded, compacted, nil
		case in.Budget > 0 && time.Since(start)+2*slowest > in.Budget:
			return last, anyAdded, compacted, nil // the next call goes on from here
		}
	}
}

// delta is the snapshot an update makes, with the files it touched
// captured from the work tree.
func (in Ingest) delta(u agent.Update, changed []string) storage.Delta {
	d := storage.Delta{Messages: u.Messages, Others: u.Others, Turn: u.Turn}
	in.touch(&d, u.Others, u.Touched, changed)
	return d
}

// touch lists the touched files in rest and captures them, when the
// delta has records: files change only with the agent's work.
func (in Ingest) touch(d *storage.Delta, rest map[string]any, touched map[string]bool, changed []string) {
	if in.WorkTree == "" || len(d.Messages) == 0 {
		return
	}
	own := agent.OwnSettings()
	for _, c := range changed {
		if !own[c] {
			touched[c] = true
		}
	}
	paths := make([]any, 0, len(touched))
	for _, t := range sortedSet(touched) {
		paths = append(paths, t)
	}
	rest["touched_files"] = paths
	d.Files = in.captureInto(rest, sortedSet(touched))
}

// captureInto captures paths and notes in rest the files skipped.
func (in Ingest) captureInto(rest map[string]any, paths []string) []snapshot.File {
	files, skipped := in.capture(paths)
	if len(skipped) > 0 {
		rest["skipped_files"] = skipped
	} else {
		delete(rest, "skipped_files")
	}
	return files
}

// capture reads the touched files that are in the work tree now, and
// lists those over MaxFileBytes, not read, as {"path", "size"}.
func (in Ingest) capture(paths []string) ([]snapshot.File, []any) {
	files := []snapshot.File{}
	var skipped []any
	seen := agent.OwnSettings() // never captured: git-snap wrote them
	for _, p := range paths {
		rel := p
		if filepath.IsAbs(p) {
			r, err := filepath.Rel(in.WorkTree, p)
			if err != nil || strings.HasPrefix(r, "..") {
				continue // outside the work tree
			}
			rel = r
		}
		rel = filepath.ToSlash(rel)
		if seen[rel] || snapshot.CheckPath(rel) != nil {
			continue
		}
		seen[rel] = true
		f, size, ok := readWorkFile(in.WorkTree, rel, in.MaxFileBytes)
		if ok {
			files = append(files, f)
		} else if size > 0 {
			skipped = append(skipped, map[string]any{"path": rel, "size": size})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return dropDirConflicts(files), skipped
}

// dropDirConflicts keeps a tree-shaped set: a path that is also the
// directory of another cannot be stored (a symlink to a directory, say).
func dropDirConflicts(files []snapshot.File) []snapshot.File {
	out := files[:0]
	for i, f := range files {
		if i+1 < len(files) && strings.HasPrefix(files[i+1].Path, f.Path+"/") {
			continue
		}
		out = append(out, f)
	}
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Import records a transcript file, with its subagents' files, as the
// session named (see agent.CheckTranscript); importing it again adds only
// what the file gained since.
//
// Its snapshots take the time of the transcripts' newest record, and
// carry their totals as every append does.
func (in Ingest) Import(ctx context.Context, session, path string) (storage.Entry, bool, error) {
	p := agent.Payload{Agent: in.Adapter.Name(), Event: "import", SessionID: session, TranscriptPath: path}
	extra, err := in.transcripts(p)
	if err != nil {
		return storage.Entry{}, false, err
	}
	r := agent.Reading{Limits: in.Limits, MaxReadBytes: in.MaxReadBytes}
	tip, err := in.Store.SessionTip(session)
	if err != nil {
		return storage.Entry{}, false, err
	}
	var rest map[string]any
	if !tip.IsZero() {
		if rest, err = in.Store.Others(ctx, tip); err != nil {
			return storage.Entry{}, false, err
		}
	}
	u, err := agent.ReadUpdate(in.Adapter, p, extra, rest, r)
	if err != nil {
		return storage.Entry{}, false, err
	}
	var newest time.Time
	if tip.IsZero() && !u.More && !agent.IsDocumentFile(in.Adapter, path) {
		newest = newestRecord(u.Messages) // the update holds every record: no second read
	} else if newest, err = agent.NewestRecord(in.Adapter, p, r); err != nil {
		return storage.Entry{}, false, err
	}
	return in.record(ctx, p, storage.SaveOptions{Time: newest}, extra, stepping{ahead: &readAhead{rest: rest, u: u}})
}

// newestRecord is the time of the newest of records, as
// agent.NewestRecord reads them.
func newestRecord(records []any) time.Time {
	var newest time.Time
	for _, m := range records {
		if at, err := time.Parse(time.RFC3339Nano, agent.ViewMessage(m).Time); err == nil && at.After(newest) {
			newest = at
		}
	}
	return newest
}

// sameRest reports whether two tips' members other than messages,
// events and files are the same: the read-ahead was read on this tip.
func sameRest(a, b map[string]any) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return snapshot.Equal(a, b)
}

// Claim names the session a transcript at path is imported into: session,
// unless the store has a session of that name recorded from another
// transcript (its main transcript's first record is not the file's):
// then the first of session-2, session-3, … that holds this transcript,
// else the first that is free. renamed reports a new session made so,
// which the caller says; a later import finds the transcript there
// again, quietly.
func (in Ingest) Claim(ctx context.Context, session, path string) (name string, renamed bool, err error) {
	return in.claim(ctx, session, path, nil)
}

// claim is Claim, with reserve, when set, asked before a name is
// given: false passes the name over (another transcript of the same
// import has it).
func (in Ingest) claim(ctx context.Context, session, path string, reserve func(name string) bool) (name string, renamed bool, err error) {
	if agent.IsDocumentFile(in.Adapter, path) {
		return session, false, nil
	}
	var rec any // the transcript's first record, read once a session of the name is found
	for n := 1; ; n++ {
		name = session
		if n > 1 {
			name = fmt.Sprintf("%s-%d", session, n)
		}
		tip, err := in.Store.SessionTip(name)
		if err != nil {
			return name, false, err
		}
		ours := tip.IsZero()
		if !ours && rec == nil {
			first, _, err := agent.WholeLines(path, 0, agent.DefaultMaxReadBytes)
			if err != nil || len(first) == 0 {
				return session, false, nil // nothing yet: the import reports what is wrong
			}
			rec = agent.Element(first[0], in.Limits)
		}
		if !ours {
			if ours, err = in.holds(ctx, tip, rec); err != nil {
				return name, false, err
			}
		}
		if ours && (reserve == nil || reserve(name)) {
			return name, n > 1 && tip.IsZero(), nil
		}
	}
}

// holds reports whether the session at tip holds a transcript whose first
// record is rec.
func (in Ingest) holds(ctx context.Context, tip storage.ID, rec any) (bool, error) {
	doc, _, err := in.Store.Read(ctx, tip)
	if err != nil {
		return false, err
	}
	layout, err := agent.LayoutFrom(doc)
	if err != nil {
		return false, err
	}
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	pos := 0
	for _, run := range layout.Runs {
		if f := layout.Files[run[0]]; f.Name == "" && f.Gen == 0 {
			return pos < len(msgs) && snapshot.Equal(msgs[pos], rec), nil
		}
		pos += run[1]
	}
	return len(layout.Runs) > 0, nil // only subagents' files recorded: the parent's
}
