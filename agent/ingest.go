package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// Ingest records what an agent's transcript files gained since the
// session's last snapshot. How far each file has been read is kept in the
// snapshot itself (see Layout), so each call reads only the lines added
// since, and two calls racing never record a line twice.
type Ingest struct {
	Store   *gitstore.Store
	Adapter Adapter
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

// PreCompactCheckpoint is the checkpoint set before a compaction throws
// the conversation's detail away.
const PreCompactCheckpoint = "pre-compact"

// Run records one hook call. It returns false when nothing was new.
//
// A transcript with more to read than MaxReadBytes (the first call on a
// long session) is read in steps, each its own snapshot, so that memory
// stays bounded; with a Budget, no step starts that would likely end past
// it, and the next call goes on from where the last step stopped. Nothing
// is skipped: every step records its lines before the next is read.
func (in Ingest) Run(ctx context.Context, p Payload, o gitstore.SaveOptions) (gitstore.Entry, bool, error) {
	o.Session, o.Label, o.Source = p.SessionID, p.Label(), in.Adapter.Name()
	extra, err := in.Adapter.Transcripts(p)
	if err != nil {
		return gitstore.Entry{}, false, fmt.Errorf("list subagent transcripts: %w", err)
	}
	var changed []string
	if in.Changed != nil && in.WorkTree != "" {
		if changed, err = in.Changed(ctx); err != nil {
			return gitstore.Entry{}, false, fmt.Errorf("list changed files: %w", err)
		}
	}
	e, added, err := in.steps(ctx, p, o, extra, changed)
	if err != nil {
		return e, added, err
	}
	if p.Event == in.Adapter.CompactEvent() {
		id := e.ID
		if !added {
			if id, err = in.Store.SessionTip(p.SessionID); err != nil || id.IsZero() {
				return e, added, err
			}
		}
		if _, err := in.Store.SetCheckpoint(ctx, PreCompactCheckpoint, id, "before compaction", true); err != nil {
			return e, added, fmt.Errorf("checkpoint %s: %w", PreCompactCheckpoint, err)
		}
	}
	return e, added, nil
}

// steps appends snapshots until the transcripts are read to their end,
// the budget is spent, or the context is done; it returns the last one.
func (in Ingest) steps(ctx context.Context, p Payload, o gitstore.SaveOptions, extra map[string]string, changed []string) (gitstore.Entry, bool, error) {
	start := time.Now()
	var last gitstore.Entry
	var slowest time.Duration
	anyAdded := false
	warned := map[string]bool{}
	for {
		stepStart := time.Now()
		var st step
		e, added, err := in.Store.Append(ctx, o, func(tipRest map[string]any) (gitstore.Delta, error) {
			d, s, err := in.delta(p, extra, changed, tipRest)
			st = s // a retry on a moved tip replaces what the lost one found
			return d, err
		})
		for _, w := range st.warnings {
			if !warned[w] && in.Warn != nil {
				in.Warn(w)
			}
			warned[w] = true
		}
		if err != nil {
			return last, anyAdded, err
		}
		if added {
			last, anyAdded = e, true
		}
		slowest = max(slowest, time.Since(stepStart))
		switch {
		case !added || !st.more || ctx.Err() != nil:
			return last, anyAdded, nil
		case in.Budget > 0 && time.Since(start)+2*slowest > in.Budget:
			return last, anyAdded, nil // the next call goes on from here
		}
	}
}

// step is what one delta found besides the delta.
type step struct {
	more     bool     // a file has lines past what this step read
	warnings []string // files named but missing, files rewritten
}

// source is one transcript file to read: its name in the layout and its
// path now.
type source struct{ name, path string }

// sources lists the files to read: the main transcript, the files the
// adapter found beside it, and those an earlier call read that neither
// names now (a subagent named once by its SubagentStop), sorted by name.
func sources(p Payload, extra map[string]string, l Layout) []source {
	out := []source{{"", p.TranscriptPath}}
	seen := map[string]bool{"": true}
	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out, seen[name] = append(out, source{name, extra[name]}), true
	}
	for _, f := range l.Files {
		if !seen[f.Name] && f.Path != "" {
			out, seen[f.Name] = append(out, source{f.Name, f.Path}), true
		} else if f.Name == "" && p.TranscriptPath == "" {
			out[0].path = f.Path
		}
	}
	return out
}

func (in Ingest) delta(p Payload, extra map[string]string, changed []string, tipRest map[string]any) (gitstore.Delta, step, error) {
	var st step
	if da, ok := in.Adapter.(documentAgent); ok {
		d, err := in.documentDelta(p, da.RecordsKey(), changed, tipRest)
		return d, st, err
	}
	layout, err := LayoutFrom(tipRest)
	if err != nil {
		return gitstore.Delta{}, st, err
	}
	rest := map[string]any{}
	for k, v := range tipRest {
		switch k {
		case snapshot.MemberMessages, snapshot.MemberEvents, snapshot.MemberFiles:
		default:
			rest[k] = v
		}
	}
	rest["agent"], rest["session_id"] = in.Adapter.Name(), p.SessionID
	if p.CWD != "" {
		rest["cwd"] = p.CWD
	}
	turns, _ := num(rest["turns"])
	touched := stringSet(rest["touched_files"])
	var d gitstore.Delta
	for _, f := range sources(p, extra, layout) {
		if f.path == "" {
			continue
		}
		i, c, err := in.read(&layout, f, p.Event, &st)
		if err != nil {
			return gitstore.Delta{}, st, err
		}
		for _, line := range c.lines {
			rec := Element(line, in.Limits)
			if f.name == "" && in.Adapter.IsPrompt(rec) {
				turns++
			}
			for _, t := range in.Adapter.TouchedFiles(rec) {
				touched[t] = true
			}
			d.Messages = append(d.Messages, rec)
		}
		if i >= 0 {
			layout.Files[i].Offset, layout.Files[i].Fingerprint, layout.Files[i].Path = c.next, c.fp, f.path
			layout.Add(i, len(c.lines))
		}
		st.more = st.more || c.more()
	}
	rest["transcript"] = layout.JSON()
	rest["turns"] = turns
	in.touch(&d, rest, touched, changed)
	d.Rest = rest
	d.Turn = int(turns)
	return d, st, nil
}

// read reads the next lines of one file: from where the layout's newest
// generation of it stopped, or, when the agent rewrote the file, from its
// start as a new generation. A file that does not exist is reported in
// st (but for a main transcript at SessionStart, which comes before the
// agent writes it) and read as empty; i is then -1 when the layout does
// not know it.
func (in Ingest) read(l *Layout, f source, event string, st *step) (int, chunk, error) {
	i := l.latest(f.name)
	var off int64
	var fp string
	if i >= 0 {
		off, fp = l.Files[i].Offset, l.Files[i].Fingerprint
	}
	c, err := readChunk(f.path, off, in.MaxReadBytes, fp)
	if errors.Is(err, fs.ErrNotExist) {
		if f.name != "" || event != "SessionStart" {
			st.warnings = append(st.warnings, fmt.Sprintf("transcript %s does not exist (named by the %s call); nothing read from it", f.path, event))
		}
		if i < 0 && f.name == "" {
			i = l.File(f.name, f.path) // the session's layout names its transcript
		}
		return i, chunk{next: off, fp: fp}, nil
	}
	if err != nil {
		return i, c, err
	}
	if i < 0 {
		return l.File(f.name, f.path), c, nil
	}
	if c.rewritten {
		i = l.NewGeneration(i, f.path)
		st.warnings = append(st.warnings, fmt.Sprintf("transcript %s was rewritten, not appended to (%d bytes now, %d read before): recorded again from its start as generation %d, the earlier lines kept", f.path, c.size, off, l.Files[i].Gen))
		if c, err = readChunk(f.path, 0, in.MaxReadBytes, ""); err != nil {
			return i, c, err
		}
	}
	return i, c, nil
}

// touch lists the touched files in rest and captures them, when the
// delta has records: files change only with the agent's work.
func (in Ingest) touch(d *gitstore.Delta, rest map[string]any, touched map[string]bool, changed []string) {
	if in.WorkTree == "" || len(d.Messages) == 0 {
		return
	}
	own := ownSettings()
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
	seen := ownSettings() // never captured: git-snap wrote them
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

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	list, _ := v.([]any)
	for _, e := range list {
		if s, ok := e.(string); ok {
			out[s] = true
		}
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
