package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/git-snap/git-snap/snapshot"
)

// DefaultMaxReadBytes is how much of a transcript one call reads when
// the caller sets no bound: the rest is read by the next call, from the
// offset this one returns.
const DefaultMaxReadBytes = 8 << 20

// errNotRegular says why a named file was refused.
type errNotRegular string

func (e errNotRegular) Error() string {
	return string(e) + ": refused, transcripts are read only from regular files"
}

// Lines reads the complete lines of a file from byte offset off, at most
// max bytes of them (DefaultMaxReadBytes when max <= 0). A last line with
// no newline yet (the agent is still writing it), or past max, is left
// for the next call; next is where that call starts. The file must be a
// regular file, not reached through a symbolic link (see OpenRegular); a
// line longer than max is an error.
func Lines(path string, off, max int64) (lines [][]byte, next int64, err error) {
	if max <= 0 {
		max = DefaultMaxReadBytes
	}
	f, err := OpenRegular(path)
	if err != nil {
		return nil, off, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, off, err
	}
	if fi.Size() < off {
		return nil, off, fmt.Errorf("%s is shorter (%d bytes) than already read (%d): it was replaced or truncated", path, fi.Size(), off)
	}
	want := min(fi.Size()-off, max)
	data := make([]byte, want)
	n, err := f.ReadAt(data, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, off, err
	}
	data = data[:n]
	end := bytes.LastIndexByte(data, '\n') + 1
	if end == 0 && int64(n) == max {
		return nil, off, fmt.Errorf("%s: the line at byte %d is longer than %d bytes, the most read at once", path, off, max)
	}
	for rest := data[:end]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		lines = append(lines, rest[:i])
		rest = rest[i+1:]
	}
	return lines, off + int64(end), nil
}

// Element turns one transcript line into a stored message: the JSON value
// it holds, or, for a line that is not JSON, the line itself as a string,
// so that nothing is lost and it is written back as it was.
func Element(line []byte, lim snapshot.Limits) any {
	v, err := snapshot.Parse(line, lim)
	if err != nil {
		return string(line)
	}
	if _, isString := v.(string); isString { // a JSON string line: keep it raw too
		return string(line)
	}
	return v
}

// LineOf writes a stored message back as a transcript line.
func LineOf(elem any) ([]byte, error) {
	if s, ok := elem.(string); ok {
		return []byte(s), nil
	}
	return snapshot.Marshal(elem)
}

// Layout is kept in a snapshot under "transcript": which files the
// messages came from, how far each has been read, and in what order their
// lines arrived, so that each file can be written back line for line.
type Layout struct {
	Files []LayoutFile
	// Runs lists [file index, line count] in arrival order: the messages
	// are the runs' lines, one after another.
	Runs [][2]int
}

// LayoutFile is one transcript file of a session.
type LayoutFile struct {
	Name   string // relative to the main transcript's directory; "" for the main one
	Path   string // where it was read from
	Offset int64  // bytes read so far
	Lines  int    // lines read so far
}

// LayoutFrom reads the layout kept in a document's rest; a new session
// has none.
func LayoutFrom(rest map[string]any) (Layout, error) {
	var l Layout
	t, ok := rest["transcript"].(map[string]any)
	if !ok {
		return l, nil
	}
	files, _ := t["files"].([]any)
	for _, f := range files {
		m, _ := f.(map[string]any)
		off, _ := num(m["offset"])
		lines, _ := num(m["lines"])
		name, _ := m["name"].(string)
		path, _ := m["path"].(string)
		l.Files = append(l.Files, LayoutFile{Name: name, Path: path, Offset: off, Lines: int(lines)})
	}
	runs, _ := t["runs"].([]any)
	for _, r := range runs {
		pair, _ := r.([]any)
		if len(pair) != 2 {
			return l, fmt.Errorf("transcript.runs: %v is not [file, count]", r)
		}
		i, _ := num(pair[0])
		n, _ := num(pair[1])
		if i < 0 || int(i) >= len(l.Files) || n < 0 {
			return l, fmt.Errorf("transcript.runs: %v names no file", r)
		}
		l.Runs = append(l.Runs, [2]int{int(i), int(n)})
	}
	return l, nil
}

func num(v any) (int64, bool) {
	n, ok := v.(snapshot.Number)
	if !ok {
		return 0, false
	}
	return n.Int64()
}

// JSON is the layout as it is stored.
func (l Layout) JSON() map[string]any {
	files := make([]any, len(l.Files))
	for i, f := range l.Files {
		files[i] = map[string]any{"name": f.Name, "path": f.Path, "offset": f.Offset, "lines": f.Lines}
	}
	runs := make([]any, len(l.Runs))
	for i, r := range l.Runs {
		runs[i] = []any{r[0], r[1]}
	}
	return map[string]any{"files": files, "runs": runs}
}

// File returns the index of the file with this name, adding it if new.
func (l *Layout) File(name, path string) int {
	for i, f := range l.Files {
		if f.Name == name {
			return i
		}
	}
	l.Files = append(l.Files, LayoutFile{Name: name, Path: path})
	return len(l.Files) - 1
}

// Add records that n lines of file i arrived next.
func (l *Layout) Add(i, n int) {
	if n == 0 {
		return
	}
	l.Files[i].Lines += n
	if k := len(l.Runs) - 1; k >= 0 && l.Runs[k][0] == i {
		l.Runs[k][1] += n
		return
	}
	l.Runs = append(l.Runs, [2]int{i, n})
}

// Split gives back each file's lines, from the messages in run order.
func (l Layout) Split(msgs []any) (map[string][]any, error) {
	out := map[string][]any{}
	pos := 0
	for _, r := range l.Runs {
		if pos+r[1] > len(msgs) {
			return nil, fmt.Errorf("the transcript layout counts more lines (%d+) than the snapshot holds (%d)", pos+r[1], len(msgs))
		}
		name := l.Files[r[0]].Name
		out[name] = append(out[name], msgs[pos:pos+r[1]]...)
		pos += r[1]
	}
	if pos != len(msgs) {
		return nil, fmt.Errorf("the transcript layout counts %d lines, the snapshot holds %d", pos, len(msgs))
	}
	return out, nil
}
