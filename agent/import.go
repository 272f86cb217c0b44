package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/snapshot"
)

// subagentsDir is the folder beside a main transcript that holds its
// subagents' transcripts (Claude Code writes <session>/subagents/).
const subagentsDir = "subagents"

// ImportError is an import refused for what it was given: a path that
// cannot be read, a file that is not the agent's transcript, a name that
// makes no session name.
type ImportError struct {
	Msg string // the whole message, path included
	Err error  // the cause, when there is one
}

// Error says what was refused, naming the path as it was given.
func (e *ImportError) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *ImportError) Unwrap() error { return e.Err }

// FindTranscripts expands the files and directories given to an import
// into the main transcripts to import, sorted. Below a directory, every
// .jsonl file is one, except in subagents folders: those come with their
// parent's session (see HookReader.Transcripts). Relative paths are taken
// from dir.
func FindTranscripts(dir string, paths []string) ([]string, error) {
	found, err := findAll(dir, paths, isJSONL)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range found {
		if !f.inDir || !strings.Contains(filepath.ToSlash(f.path), "/"+subagentsDir+"/") {
			out = append(out, f.path)
		}
	}
	if len(out) == 0 {
		return nil, &ImportError{Msg: fmt.Sprintf("no .jsonl transcripts in %s", strings.Join(paths, " "))}
	}
	return out, nil
}

// SubagentFiler is an Importer whose agent writes subagents' transcripts
// to files of their own that an import meets beside the main ones.
type SubagentFiler interface {
	// ParentOf names the session a subagent's transcript belongs to and
	// where that session's main transcript is; ok is false for a file
	// that is not a subagent's.
	ParentOf(path string) (session, parent string, ok bool)
}

// SessionIDReader is an Importer whose records carry their session's
// id: a file named otherwise (renamed, exported as turn-2.jsonl) is
// still its session.
type SessionIDReader interface {
	// SessionID is the session id a transcript's first records carry, ""
	// when they carry none.
	SessionID(first []any) string
}

// ImportPlan is what an import of files and directories records: each
// session once, with its main transcript (its subagents come with it, see
// HookReader.Transcripts), and what was left out and why.
type ImportPlan struct {
	Items   []ImportItem
	Skipped []Skipped // files found in a directory that are not transcripts
	// Notes say what was done that the user would not expect: a
	// subagent's transcript whose parent is missing.
	Notes []string
}

// ImportItem is one session to import.
type ImportItem struct {
	Session string
	Path    string // the main transcript; it may not exist (see ImportPlan.Notes)
}

// Skipped is a file an import left out.
type Skipped struct {
	Path   string
	Reason string
}

// PlanImport finds the transcripts of a's agent in the files and
// directories given (relative to dir) and checks each. A file named
// that is not a transcript is an ImportError; one found in a directory
// (Codex's history.jsonl, say) is skipped and listed. A subagent's
// transcript goes with its parent's session, and is recorded in it even
// when the parent's own file is missing.
func PlanImport(a Adapter, dir string, paths []string, lim snapshot.Limits) (ImportPlan, error) {
	var plan ImportPlan
	match := isJSONL
	if da, ok := a.(documentAgent); ok {
		match = da.IsTranscriptFile
	}
	found, err := findAll(dir, paths, match)
	if err != nil {
		return plan, err
	}
	seen := map[string]string{} // session → its main transcript
	add := func(session, path string) {
		if seen[session] == path {
			return
		}
		if first, taken := seen[session]; taken {
			name := session
			for n := 2; seen[name] != "" && seen[name] != path; n++ {
				name = fmt.Sprintf("%s-%d", session, n)
			}
			if seen[name] == path {
				return
			}
			plan.Notes = append(plan.Notes, fmt.Sprintf("%s and %s both name session %s and are not one transcript: %s is imported as session %s", first, path, session, path, name))
			session = name
		}
		seen[session] = path
		plan.Items = append(plan.Items, ImportItem{Session: session, Path: path})
	}
	sf, _ := a.(SubagentFiler)
	for _, f := range found {
		if sf != nil {
			if session, parent, ok := sf.ParentOf(f.path); ok {
				if _, err := os.Stat(parent); err != nil {
					plan.Notes = append(plan.Notes, fmt.Sprintf("%s is a subagent's transcript of session %s, whose own transcript %s is missing: recorded in session %s with its subagents alone", f.path, session, parent, session))
				}
				add(session, parent)
				continue
			}
		}
		name, err := CheckTranscript(a, f.path, lim)
		var ie *ImportError
		if errors.As(err, &ie) && f.inDir {
			plan.Skipped = append(plan.Skipped, Skipped{Path: f.path, Reason: err.Error()})
			continue
		}
		if err != nil {
			return plan, err
		}
		add(name, f.path)
	}
	switch {
	case len(plan.Items) == 0 && len(plan.Skipped) == 0:
		return plan, &ImportError{Msg: fmt.Sprintf("no .jsonl transcripts in %s", strings.Join(paths, " "))}
	case len(plan.Items) == 0:
		return plan, &ImportError{Msg: fmt.Sprintf("no %s transcript in %s (%d files, none of them one; the first: %s)", a.Name(), strings.Join(paths, " "), len(plan.Skipped), plan.Skipped[0].Reason)}
	}
	return plan, nil
}

// foundFile is a file given to an import, or found in a directory given.
type foundFile struct {
	path  string
	inDir bool
}

// isJSONL is the name of a transcript of lines.
func isJSONL(name string) bool { return strings.HasSuffix(name, ".jsonl") }

// findAll lists the files named and every file below the directories
// named whose name match accepts (.jsonl, or a document agent's names), subagents' folders included, sorted so that a main
// transcript comes before its subagents' (its folder sorts after it).
func findAll(dir string, paths []string, match func(name string) bool) ([]foundFile, error) {
	var out []foundFile
	for _, arg := range paths {
		path := arg
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, &ImportError{Msg: fmt.Sprintf("cannot read %s: %v", arg, err), Err: err}
		}
		if !fi.IsDir() {
			out = append(out, foundFile{path, false})
			continue
		}
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && match(d.Name()) {
				out = append(out, foundFile{p, true})
			}
			return nil
		})
		if err != nil {
			return nil, err // it names the path
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// CheckTranscript checks that a file is a transcript of the agent, by its
// first records, and names its session (see Importer.SessionName).
func CheckTranscript(a Adapter, path string, lim snapshot.Limits) (string, error) {
	if x, ok := a.(External); ok {
		if _, err := os.Stat(path); err != nil {
			return "", &ImportError{Msg: fmt.Sprintf("cannot read %s: %v", path, err), Err: err}
		}
		session, err := x.CheckFile(path)
		if err != nil {
			return "", &ImportError{Msg: fmt.Sprintf("%s is not a %s transcript: %v", path, a.Name(), err), Err: err}
		}
		if session == "" {
			session = x.SessionName(path)
		}
		if err := snapshot.CheckName("session", session); err != nil {
			return "", &ImportError{Msg: fmt.Sprintf("%s: its name does not make a session name", path), Err: err}
		}
		return session, nil
	}
	first, err := firstRecords(a, path, lim)
	var pe *fs.PathError
	if err != nil && (errors.As(err, &pe) || !IsDocumentFile(a, path)) {
		return "", &ImportError{Msg: fmt.Sprintf("cannot read %s: %v", path, err), Err: err}
	}
	if err == nil {
		err = a.Check(first)
	}
	if err != nil {
		if other := Recognise(path, lim, a.Name()); other != nil {
			in := registry[other.Name()].Info
			err = fmt.Errorf("this is a %s transcript; use --from %s", in.Title, in.Name)
		}
		return "", &ImportError{Msg: fmt.Sprintf("%s is not a %s transcript: %v", path, a.Name(), err), Err: err}
	}
	name := a.SessionName(path)
	if sid, ok := a.(SessionIDReader); ok && uuid().FindString(filepath.Base(path)) == "" {
		// A name the agent did not give (turn-2.jsonl) says less than the
		// id the records carry: two such files are two sessions.
		if id := sid.SessionID(first); id != "" && snapshot.CheckName("session", id) == nil {
			name = id
		}
	}
	if err := snapshot.CheckName("session", name); err != nil {
		return "", &ImportError{Msg: fmt.Sprintf("%s: its name does not make a session name", path), Err: err}
	}
	return name, nil
}

// Recognise finds the agent whose transcript the file at path is, by its
// first records, as each adapter's Check reads them; but is an agent
// not to ask (the one that already refused it). It is nil when no agent
// knows the file.
func Recognise(path string, lim snapshot.Limits, but string) Adapter {
	for _, other := range Adapters(Env{}) {
		if other.Name() == but {
			continue
		}
		if first, err := firstRecords(other, path, lim); err == nil && other.Check(first) == nil {
			return other
		}
	}
	return nil
}

// firstRecords are the first records of a transcript, for
// Importer.Check; of a document transcript, the document itself.
func firstRecords(a Adapter, path string, lim snapshot.Limits) ([]any, error) {
	if key, ok := documentKey(a, path, nil); ok {
		doc, _, err := documentRecords(a, path, key, lim)
		return []any{doc}, err
	}
	lines, _, err := WholeLines(path, 0, DefaultMaxReadBytes)
	if err != nil {
		return nil, err
	}
	var first []any
	for _, l := range lines[:min(len(lines), 20)] {
		first = append(first, Element(l, lim))
	}
	return first, nil
}

// NewestRecord is the time of the newest record of a session's files
// (the main transcript and its subagents'), zero when none carries one.
// An imported snapshot takes it as its time: it holds history up to
// then, and the day of the import says nothing about the session.
func NewestRecord(a Adapter, p Payload, r Reading) (time.Time, error) {
	if key, ok := documentKey(a, p.TranscriptPath, nil); ok {
		_, newest, err := documentRecords(a, p.TranscriptPath, key, r.Limits)
		return newest, err
	}
	extra, err := a.Transcripts(p)
	if err != nil && !IsUnread(err) { // what was not read is Run's to report
		return time.Time{}, fmt.Errorf("list subagent transcripts: %w", err)
	}
	paths := []string{p.TranscriptPath}
	for _, path := range extra {
		paths = append(paths, path)
	}
	var newest time.Time
	for _, path := range paths {
		err := eachLine(path, r.MaxReadBytes, func(line []byte) {
			m := ViewMessage(Element(line, r.Limits)) // records of every kind carry times
			if at, err := time.Parse(time.RFC3339Nano, m.Time); err == nil && at.After(newest) {
				newest = at
			}
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) { // a missing file is Run's to report
			return time.Time{}, err
		}
	}
	return newest, nil
}

// uuid finds the session and thread ids agents put in file names.
var uuid = lazy.Regexp(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// idInName is the first UUID in a file's name, else the name without
// its .jsonl.
func idInName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if id := uuid().FindString(name); id != "" {
		return id
	}
	return name
}

// eachLine calls fn with every line of a file the agent no longer writes, read in steps of
// at most maxRead bytes, so that memory stays bounded whatever its size.
func eachLine(path string, maxRead int64, fn func([]byte)) error {
	for off := int64(0); ; {
		lines, next, err := WholeLines(path, off, maxRead)
		if err != nil {
			return err
		}
		for _, line := range lines {
			fn(line)
		}
		if next == off {
			return nil
		}
		off = next
	}
}
