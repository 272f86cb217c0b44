package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

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
	// MaxReadBytes bounds what one call reads of each transcript file
	// (DefaultMaxReadBytes when 0); the next call goes on from there.
	MaxReadBytes int64
}

// PreCompactCheckpoint is the checkpoint set before a compaction throws
// the conversation's detail away.
const PreCompactCheckpoint = "pre-compact"

// Run records one hook call. It returns false when nothing was new.
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
	e, added, err := in.Store.Append(ctx, o, func(tipRest map[string]any) (gitstore.Delta, error) {
		return in.delta(p, extra, changed, tipRest)
	})
	if err != nil {
		return e, false, err
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

func (in Ingest) delta(p Payload, extra map[string]string, changed []string, tipRest map[string]any) (gitstore.Delta, error) {
	if da, ok := in.Adapter.(documentAgent); ok {
		return in.documentDelta(p, da.RecordsKey(), changed, tipRest)
	}
	layout, err := LayoutFrom(tipRest)
	if err != nil {
		return gitstore.Delta{}, err
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
	files := []struct{ name, path string }{{"", p.TranscriptPath}}
	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		files = append(files, struct{ name, path string }{name, extra[name]})
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		i := layout.File(f.name, f.path)
		lines, next, err := Lines(f.path, layout.Files[i].Offset, in.MaxReadBytes)
		if errors.Is(err, fs.ErrNotExist) && layout.Files[i].Offset == 0 {
			continue // the agent has not written it yet (SessionStart comes first)
		}
		if err != nil {
			return gitstore.Delta{}, err
		}
		for _, line := range lines {
			rec := Element(line, in.Limits)
			if f.name == "" && in.Adapter.IsPrompt(rec) {
				turns++
			}
			for _, t := range in.Adapter.TouchedFiles(rec) {
				touched[t] = true
			}
			d.Messages = append(d.Messages, rec)
		}
		layout.Files[i].Offset = next
		layout.Add(i, len(lines))
	}
	rest["transcript"] = layout.JSON()
	rest["turns"] = turns
	in.touch(&d, rest, touched, changed)
	d.Rest = rest
	d.Turn = int(turns)
	return d, nil
}

// touch lists the touched files in rest and captures them, when the
// delta has records: files change only with the agent's work.
func (in Ingest) touch(d *gitstore.Delta, rest map[string]any, touched map[string]bool, changed []string) {
	if in.WorkTree == "" || len(d.Messages) == 0 {
		return
	}
	for _, c := range changed {
		touched[c] = true
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
	seen := map[string]bool{}
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
