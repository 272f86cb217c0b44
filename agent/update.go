package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Update is what a session's transcript files gained since the state a
// snapshot keeps of them (see Layout): the records to store as new
// messages and the snapshot's other members as they are now. It holds
// no git: the caller stores it.
type Update struct {
	Messages []any
	// Others is the snapshot's members other than messages, events and
	// files, updated: read positions, turns, the agent and session.
	Others map[string]any
	Turn   int
	// Touched lists the files the session's tool calls wrote, those of
	// earlier snapshots included.
	Touched map[string]bool
	// More says a file has lines past what this update read: another
	// update goes on from where this one stopped.
	More bool
	// Warnings name what the update went on without: a transcript named
	// that does not exist, a file the agent rewrote.
	Warnings []string
	// Compacted says the records read hold a compaction not seen before,
	// for an agent whose compactions show only there (see
	// compactionMarker).
	Compacted bool
}

// compactionMarker is a RecordReader whose agent's compactions show only
// in its records, and may show again in later ones (Gemini CLI sets the
// whole compressed history again on resume): CompactionMarks are the ids
// of the compactions a record holds, so that each counts once.
type compactionMarker interface {
	CompactionMarks(record any) []string
}

// CompactsInRecords reports whether a's compactions show in its records
// (see compactionMarker) rather than by a hook event.
func CompactsInRecords(a Adapter) bool {
	_, ok := a.(compactionMarker)
	return ok
}

// Reading bounds what ReadUpdate reads.
type Reading struct {
	Limits snapshot.Limits
	// MaxReadBytes bounds what one update reads of each transcript file
	// (DefaultMaxReadBytes when 0).
	MaxReadBytes int64
}

// ReadUpdate reads what the transcripts of a hook call (the main one
// and extra, the adapter's Transcripts) gained since tipRest, the
// session's last snapshot's other members. A document transcript
// (Gemini CLI, OpenCode) is read whole and compared record by record.
func ReadUpdate(a Adapter, p Payload, extra map[string]string, tipRest map[string]any, r Reading) (Update, error) {
	rest := map[string]any{}
	for k, v := range tipRest {
		switch k {
		case snapshot.MemberMessages, snapshot.MemberEvents, snapshot.MemberFiles:
		default:
			rest[k] = v
		}
	}
	rest["agent"], rest["session_id"] = a.Name(), p.SessionID
	if p.CWD != "" {
		rest["cwd"] = p.CWD
	}
	if key, ok := documentKey(a, p.TranscriptPath, rest); ok {
		return documentUpdate(a, p, key, rest, r.Limits)
	}
	return linesUpdate(a, p, extra, rest, r)
}

// linesUpdate reads the lines a JSONL transcript and its subagents' gained.
func linesUpdate(a Adapter, p Payload, extra map[string]string, rest map[string]any, r Reading) (Update, error) {
	u := Update{Others: rest, Touched: StringSet(rest["touched_files"])}
	layout, err := LayoutFrom(rest)
	if err != nil {
		return u, err
	}
	goOnFromDocument(&layout, rest, p, &u)
	_, lags := a.(LateWriter) // its transcript may lag its calls: the follow-up call reports it missing
	turns, _ := num(rest["turns"])
	lr := lineRecords{a: a, limits: r.Limits, turns: turns, seen: StringSet(rest["compactions"])}
	lr.marker, _ = a.(compactionMarker)
	wf, _ := a.(wholeFiler)
	x, external := a.(External)
	for _, f := range sources(p, extra, layout) {
		if f.path == "" {
			continue
		}
		read := readSource
		switch {
		case wf != nil && f.name != "" && wf.IsWholeFile(f.name):
			read = readWhole
		case external:
			read = x.readSource
		}
		i, c, err := read(&layout, f, p.Event, lags, r.MaxReadBytes, fileDone(a, p, f), &u)
		if err != nil {
			return u, err
		}
		lr.add(&u, f, c.lines)
		if i >= 0 {
			if c.open && len(c.lines) > 0 {
				warnOpenLine(&u, f.path, layout.Files[i].Lines+len(c.lines), c.lines[len(c.lines)-1], r.Limits)
			}
			lf := &layout.Files[i]
			lf.Offset, lf.Fingerprint, lf.Path, lf.Open = c.next, c.fp, f.path, c.open
			layout.Add(i, len(c.lines))
		}
		u.More = u.More || c.more()
	}
	rest["transcript"] = layout.JSON()
	rest["turns"] = lr.turns
	if len(lr.seen) > 0 {
		rest["compactions"] = sortedIDs(lr.seen)
	}
	u.Turn = int(lr.turns)
	return u, nil
}

// fileDone reports whether the agent writes no more to the file f at
// call p, so that its last line is read even without a newline: every
// file at an import or when the session ends (unless the agent writes
// the run's last lines after that call, see LateWriter), a subagent's
// file at the call that names it (SubagentStop). In the middle of a
// session a line without its newline is one being written: left for the
// next call.
func fileDone(a Adapter, p Payload, f source) bool {
	switch {
	case p.Event == "import":
		return true
	case strings.EqualFold(p.Event, "SessionEnd"):
		late, ok := a.(LateWriter)
		return !ok || !late.WritesAfter(p)
	}
	return f.name != "" && p.Subagent != "" && f.path == p.Subagent
}

// warnOpenLine says when a file's last line, read without its newline,
// is not JSON (a copy cut short): it is kept as the text it is, and the
// user should know the record may be incomplete.
func warnOpenLine(u *Update, path string, n int, line []byte, lim snapshot.Limits) {
	if _, err := snapshot.Parse(line, lim); err == nil {
		return
	}
	u.Warnings = append(u.Warnings, fmt.Sprintf("%s: line %d, the last, has no newline and is not JSON (the file may have been cut short): kept as it is, as text", path, n))
}

// goOnFromDocument sets the layout of a session recorded from a document
// that goes on in lines (Gemini CLI 0.61 resumes a .json chat into a
// .jsonl one holding it all again): the messages stored so far are the
// main file's first generation, restored as name~0, and the lines its
// next. The lines hold every prompt again, so the turns count from 0.
// Other sessions are left as they are.
func goOnFromDocument(layout *Layout, rest map[string]any, p Payload, u *Update) {
	st, ok := docStateFrom(rest)
	if !ok || len(layout.Files) != 0 || st.Stored <= 0 {
		return
	}
	layout.Files = []LayoutFile{{Path: st.Path, Lines: int(st.Stored)}}
	layout.Runs = [][2]int{{0, int(st.Stored)}}
	layout.NewGeneration(0, p.TranscriptPath)
	delete(rest, documentMember)
	rest["turns"] = 0
	u.Warnings = append(u.Warnings, fmt.Sprintf("the session's transcript went on from the document %s in the lines of %s: recorded from its start as generation 1, the document's records kept", st.Path, p.TranscriptPath))
}

// lineRecords turns the lines an update read into records, counting as
// it goes what the snapshot keeps across updates: the turns, and the
// compactions seen (when the agent's show only in its records), so that
// a compaction set again counts once.
type lineRecords struct {
	a      Adapter
	marker compactionMarker // nil when a's compactions show by a hook event
	limits snapshot.Limits
	turns  int64
	seen   map[string]bool // the ids of the compactions seen
}

// add reads the new lines of the file f into u: the records, the files
// their tool calls wrote, a compaction not seen before. Prompts count as
// turns, and compactions as the session's, only in the main transcript
// (f.name "").
func (lr *lineRecords) add(u *Update, f source, lines [][]byte) {
	for _, line := range lines {
		rec := Element(line, lr.limits)
		if f.name == "" && lr.a.IsPrompt(rec) {
			lr.turns++
		}
		for _, t := range lr.a.TouchedFiles(rec) {
			u.Touched[t] = true
		}
		if lr.marker != nil && f.name == "" {
			for _, id := range lr.marker.CompactionMarks(rec) {
				u.Compacted = u.Compacted || !lr.seen[id]
				lr.seen[id] = true
			}
		}
		u.Messages = append(u.Messages, rec)
	}
}

// sortedIDs is a set of ids as a JSON array, sorted so that the member
// it is stored as does not change with map order.
func sortedIDs(set map[string]bool) []any {
	ids := make([]any, 0, len(set))
	for _, id := range slices.Sorted(maps.Keys(set)) {
		ids = append(ids, id)
	}
	return ids
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

// beforeTranscript reports whether a hook event may come before the
// agent has written the session's transcript, of which off bytes were
// read: SessionStart always, and the first prompt's UserPromptSubmit
// (Claude Code 2.1.3xx writes the file once the prompt's hooks return).
func beforeTranscript(event string, off int64) bool {
	switch event {
	case "SessionStart", "sessionStart": // Claude Code, Gemini CLI; Copilot CLI
		return true
	case "UserPromptSubmit", "userPromptSubmitted":
		return off == 0
	}
	return false
}

// readSource reads the next lines of one file: from where the layout's
// newest generation of it stopped, or, when the agent rewrote the file,
// from its start as a new generation. A file that does not exist is
// reported in u (but for a main transcript the agent has not written yet,
// see beforeTranscript, or that lags the agent's calls) and read as
// empty; i is then -1 when the layout does not know it.
func readSource(l *Layout, f source, event string, lags bool, maxRead int64, whole bool, u *Update) (int, chunk, error) {
	i := l.latest(f.name)
	r := chunkRead{max: maxRead, whole: whole}
	if i >= 0 {
		r.off, r.fp, r.open = l.Files[i].Offset, l.Files[i].Fingerprint, l.Files[i].Open
	}
	off, fp := r.off, r.fp
	c, err := readChunk(f.path, r)
	if errors.Is(err, fs.ErrNotExist) {
		if f.name != "" || !beforeTranscript(event, off) && !lags {
			u.Warnings = append(u.Warnings, fmt.Sprintf("transcript %s does not exist (named by the %s call); nothing read from it", f.path, event))
		}
		if i < 0 && f.name == "" {
			i = l.File(f.name, f.path) // the session's layout names its transcript
		}
		return i, chunk{next: off, fp: fp, open: r.open}, nil
	}
	if err != nil {
		return i, c, err
	}
	if i < 0 {
		return l.File(f.name, f.path), c, nil
	}
	if c.rewritten {
		i = l.NewGeneration(i, f.path)
		u.Warnings = append(u.Warnings, fmt.Sprintf("transcript %s was rewritten, not appended to (%d bytes now, %d read before): recorded again from its start as generation %d, the earlier lines kept", f.path, c.size, off, l.Files[i].Gen))
		if c, err = readChunk(f.path, chunkRead{max: maxRead, whole: whole}); err != nil {
			return i, c, err
		}
	}
	return i, c, nil
}

// readSource reads the records of an external agent's transcript past
// the layout's offset with its program (ReadRecords), as lines of JSON.
func (x External) readSource(l *Layout, f source, _ string, _ bool, _ int64, _ bool, _ *Update) (int, chunk, error) {
	i := l.latest(f.name)
	var off int64
	if i >= 0 {
		off = l.Files[i].Offset
	}
	recs, next, err := x.ReadRecords(f.path, off)
	if err != nil {
		return i, chunk{next: off}, err
	}
	c := chunk{next: next, size: next}
	for _, r := range recs {
		b, err := snapshot.Marshal(r)
		if err != nil {
			return i, chunk{next: off}, err
		}
		c.lines = append(c.lines, b)
	}
	if i < 0 {
		i = l.File(f.name, f.path)
	}
	return i, c, nil
}

// wholeFiler is a HookReader some of whose session's files are one
// JSON document the agent rewrites, beside the lines of its transcript
// (Droid's <session>.settings.json, which alone holds the session's
// tokens): such a file is read whole and stored as one record each time
// it changed, each time as a new generation of it (see readWhole).
type wholeFiler interface {
	// IsWholeFile reports whether the file of this name (relative to the
	// main transcript's folder) is one such document.
	IsWholeFile(name string) bool
}

// readWhole reads a file that is one JSON document (see wholeFiler): when
// its bytes differ from those last read (a fingerprint of all of them),
// the document, compacted to one line, is the next generation's one
// record. A missing file is reported as readSource does.
func readWhole(l *Layout, f source, event string, _ bool, _ int64, _ bool, u *Update) (int, chunk, error) {
	i := l.latest(f.name)
	var off int64
	var fp string
	if i >= 0 {
		off, fp = l.Files[i].Offset, l.Files[i].Fingerprint
	}
	data, err := readRegular(f.path, maxDocumentBytes)
	if errors.Is(err, fs.ErrNotExist) {
		u.Warnings = append(u.Warnings, fmt.Sprintf("transcript %s does not exist (named by the %s call); nothing read from it", f.path, event))
		return i, chunk{next: off, fp: fp}, nil
	}
	if err != nil {
		return i, chunk{next: off, fp: fp}, err
	}
	sum := sha256.Sum256(data)
	now := fmt.Sprintf("%d:%x", len(data), sum[:12])
	if now == fp {
		return i, chunk{next: off, fp: fp, size: off}, nil
	}
	var compact bytes.Buffer
	if json.Compact(&compact, data) != nil { // being written: the next call reads it again
		return i, chunk{next: off, fp: fp, size: off}, nil
	}
	line := compact.Bytes()
	switch {
	case i < 0:
		i = l.File(f.name, f.path)
	case l.Files[i].Lines > 0:
		i = l.NewGeneration(i, f.path)
	}
	return i, chunk{lines: [][]byte{line}, next: int64(len(data)), size: int64(len(data)), fp: now}, nil
}

// StringSet reads a JSON array of strings as a set.
func StringSet(v any) map[string]bool {
	out := map[string]bool{}
	list, _ := v.([]any)
	for _, e := range list {
		if s, ok := e.(string); ok {
			out[s] = true
		}
	}
	return out
}
