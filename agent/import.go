package agent

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore"
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
	return findFiles(dir, paths, appendMainTranscripts, ".jsonl transcripts")
}

// FindAgentTranscripts is FindTranscripts for an agent: below a
// directory, the files an agent whose transcripts are documents names
// (see documentAgent) rather than .jsonl files.
func FindAgentTranscripts(a Adapter, dir string, paths []string) ([]string, error) {
	da, ok := a.(documentAgent)
	if !ok {
		return FindTranscripts(dir, paths)
	}
	walk := func(out []string, root string) ([]string, error) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && da.IsTranscriptFile(d.Name()) {
				out = append(out, p)
			}
			return err
		})
		return out, err
	}
	return findFiles(dir, paths, walk, a.Name()+" transcripts")
}

// findFiles expands the files and directories given to an import, each
// directory by walk; what names what is looked for, to say none was found.
func findFiles(dir string, paths []string, walk func(out []string, root string) ([]string, error), what string) ([]string, error) {
	var out []string
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
			out = append(out, path)
			continue
		}
		if out, err = walk(out, path); err != nil {
			return nil, err // it names the path
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, &ImportError{Msg: fmt.Sprintf("no %s in %s", what, strings.Join(paths, " "))}
	}
	return out, nil
}

func appendMainTranscripts(out []string, root string) ([]string, error) {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == subagentsDir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// CheckTranscript checks that a file is a transcript of the agent, by its
// first records, and names its session (see Importer.SessionName).
func CheckTranscript(a Adapter, path string, lim snapshot.Limits) (string, error) {
	first, err := firstRecords(a, path, lim)
	if err != nil {
		return "", &ImportError{Msg: fmt.Sprintf("cannot read %s: %v", path, err), Err: err}
	}
	if err := a.Check(first); err != nil {
		return "", &ImportError{Msg: fmt.Sprintf("%s is not a %s transcript: %v", path, a.Name(), err), Err: err}
	}
	name := a.SessionName(path)
	if err := snapshot.CheckName("session", name); err != nil {
		return "", &ImportError{Msg: fmt.Sprintf("%s: its name does not make a session name", path), Err: err}
	}
	return name, nil
}

// firstRecords are the first records of a transcript, for
// Importer.Check; of a document transcript, the document itself.
func firstRecords(a Adapter, path string, lim snapshot.Limits) ([]any, error) {
	if da, ok := a.(documentAgent); ok {
		doc, _, err := documentRecords(a, path, da.RecordsKey(), lim)
		return []any{doc}, err
	}
	lines, _, err := Lines(path, 0, DefaultMaxReadBytes)
	if err != nil {
		return nil, err
	}
	var first []any
	for _, l := range lines[:min(len(lines), 20)] {
		first = append(first, Element(l, lim))
	}
	return first, nil
}

// Import records a transcript file, with its subagents' files, as the
// session named (see CheckTranscript); importing it again adds only what
// the file gained since.
func (in Ingest) Import(ctx context.Context, session, path string) (gitstore.Entry, bool, error) {
	p := Payload{Agent: in.Adapter.Name(), Event: "import", SessionID: session, TranscriptPath: path}
	newest, err := in.newestRecord(p)
	if err != nil {
		return gitstore.Entry{}, false, err
	}
	return in.Run(ctx, p, gitstore.SaveOptions{Time: newest})
}

// newestRecord is the time of the newest record of a session's files (the
// main transcript and its subagents'), zero when none carries one. An
// imported snapshot takes it as its time: it holds history up to then,
// and the day of the import says nothing about the session.
func (in Ingest) newestRecord(p Payload) (time.Time, error) {
	if da, ok := in.Adapter.(documentAgent); ok {
		_, newest, err := documentRecords(in.Adapter, p.TranscriptPath, da.RecordsKey(), in.Limits)
		return newest, err
	}
	extra, err := in.Adapter.Transcripts(p)
	if err != nil {
		return time.Time{}, fmt.Errorf("list subagent transcripts: %w", err)
	}
	paths := []string{p.TranscriptPath}
	for _, path := range extra {
		paths = append(paths, path)
	}
	var newest time.Time
	for _, path := range paths {
		if err := in.eachLine(path, func(line []byte) {
			m := ViewMessage(Element(line, in.Limits)) // records of every kind carry times
			if at, err := time.Parse(time.RFC3339Nano, m.Time); err == nil && at.After(newest) {
				newest = at
			}
		}); err != nil {
			return time.Time{}, err
		}
	}
	return newest, nil
}

// uuid finds the session and thread ids agents put in file names.
var uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// idInName is the first UUID in a file's name, else the name without
// its .jsonl.
func idInName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if id := uuid.FindString(name); id != "" {
		return id
	}
	return name
}

// eachLine calls fn with every complete line of a file, read in steps of
// at most MaxReadBytes, so that memory stays bounded whatever its size.
func (in Ingest) eachLine(path string, fn func([]byte)) error {
	for off := int64(0); ; {
		lines, next, err := Lines(path, off, in.MaxReadBytes)
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
