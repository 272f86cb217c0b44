package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"unicode/utf8"

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
// line longer than max is an error, and so is a file shorter than off.
func Lines(path string, off, max int64) (lines [][]byte, next int64, err error) {
	return readLines(path, off, max, false)
}

// WholeLines is Lines for a file the agent no longer writes (one given to
// an import): its last line is read whether or not a newline ends it, so
// that a transcript copied without its final newline loses nothing.
func WholeLines(path string, off, max int64) (lines [][]byte, next int64, err error) {
	return readLines(path, off, max, true)
}

func readLines(path string, off, max int64, whole bool) ([][]byte, int64, error) {
	c, err := readChunk(path, chunkRead{off: off, max: max, whole: whole})
	if err == nil && c.rewritten {
		err = fmt.Errorf("%s is shorter (%d bytes) than already read (%d): it was replaced or truncated", path, c.size, off)
	}
	return c.lines, c.next, err
}

// chunk is one bounded read of a transcript file.
type chunk struct {
	lines [][]byte
	next  int64 // where the next read starts
	size  int64 // the file's size when read
	// rewritten: the file is shorter than the offset, or its bytes before
	// the offset are not those read before (their fingerprint changed),
	// or a last line read without its newline went on: the agent rewrote
	// it instead of appending. Nothing was read.
	rewritten bool
	fp        string // the fingerprint of the bytes before next
	// open says the last line read had no newline: the file ended there
	// (see chunkRead.whole).
	open bool
}

// more reports whether the file holds bytes past what this read took.
func (c chunk) more() bool { return c.next < c.size && !c.rewritten }

// chunkRead is what readChunk reads: from off, at most max bytes.
type chunkRead struct {
	off, max int64
	// fp, when not empty, is the fingerprint of the bytes before off as
	// read before: bytes that differ now are a rewrite.
	fp string
	// whole says the agent no longer writes the file (an import, the
	// session's end): a last line without a newline is read too.
	whole bool
	// open says the read that stopped at off took a last line without
	// its newline: a newline there now ends that line and is passed
	// over; anything else made the line longer, a rewrite.
	open bool
}

// readChunk reads the lines of a file as Lines does, with the checks and
// the whole-file reading r asks for.
func readChunk(path string, r chunkRead) (chunk, error) {
	max, off := r.max, r.off
	if max <= 0 {
		max = DefaultMaxReadBytes
	}
	c := chunk{next: off, open: r.open}
	f, err := OpenRegular(path)
	if err != nil {
		return c, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return c, err
	}
	c.size = fi.Size()
	if c.size < off {
		c.rewritten = true
		return c, nil
	}
	if r.fp != "" {
		now, err := fingerprint(f, off)
		if err != nil {
			return c, err
		}
		if now != r.fp {
			c.rewritten = true
			return c, nil
		}
	}
	if r.open && c.size > off {
		nl := make([]byte, 1)
		if _, err := f.ReadAt(nl, off); err != nil {
			return c, err
		}
		if nl[0] != '\n' {
			c.rewritten = true
			return c, nil
		}
		off++ // the newline of the line read before
		c.next, c.open = off, false
	}
	data := make([]byte, min(c.size-off, max))
	n, err := f.ReadAt(data, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return c, err
	}
	data = data[:n]
	end := bytes.LastIndexByte(data, '\n') + 1
	if r.whole && off+int64(n) == c.size && end < n {
		end, c.open = n, true // the file's last line, ended by no newline
	}
	if end == 0 && int64(n) == max {
		return c, fmt.Errorf("%s: the line at byte %d is longer than %d bytes, the most read at once", path, off, max)
	}
	for rest := data[:end]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest)
		}
		c.lines = append(c.lines, rest[:i])
		rest = rest[min(i+1, len(rest)):]
	}
	c.next = off + int64(end)
	if c.fp, err = fingerprint(f, c.next); err != nil {
		return c, err
	}
	return c, nil
}

// fingerprintSpan is how much of a file's start and of the bytes before
// the read position a fingerprint covers: a rewrite changes one or the
// other, and reading 2 × 512 bytes costs nothing beside a hook call.
const fingerprintSpan = 512

// fingerprint identifies the bytes of f before off by their first and
// last fingerprintSpan bytes: "" for none.
func fingerprint(f io.ReaderAt, off int64) (string, error) {
	if off == 0 {
		return "", nil
	}
	head := make([]byte, min(off, fingerprintSpan))
	tail := make([]byte, min(off, fingerprintSpan))
	if _, err := f.ReadAt(head, 0); err != nil {
		return "", err
	}
	if _, err := f.ReadAt(tail, off-int64(len(tail))); err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(head)
	h.Write(tail)
	return fmt.Sprintf("%d:%x", off, h.Sum(nil)[:12]), nil
}

// Element turns one transcript line into a stored message: the JSON value
// it holds, or, for a line that is not JSON, the line itself as a string,
// so that nothing is lost and it is written back as it was. A line that
// is not valid UTF-8 cannot be a JSON string: it is stored as
// {RawBytesKey: base64 of the line}. A JSON line that is itself such an
// object is kept as a string, so that LineOf never mistakes the two.
func Element(line []byte, lim snapshot.Limits) any {
	if !utf8.Valid(line) {
		return map[string]any{RawBytesKey: base64.StdEncoding.EncodeToString(line)}
	}
	v, err := snapshot.Parse(line, lim)
	if err != nil {
		return string(line)
	}
	switch v := v.(type) {
	case string: // a JSON string line: keep it raw too
		return string(line)
	case map[string]any:
		if _, ok := rawBytes(v); ok {
			return string(line)
		}
	}
	return v
}

// RawBytesKey is the only member of a stored message that holds a
// transcript line that was not valid UTF-8, base64-encoded.
const RawBytesKey = "git-snap:raw-bytes"

// rawBytes reads a message stored by Element for a line of invalid UTF-8.
func rawBytes(m map[string]any) ([]byte, bool) {
	s, ok := m[RawBytesKey].(string)
	if !ok || len(m) != 1 {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(s)
	return b, err == nil
}

// LineOf writes a stored message back as a transcript line.
func LineOf(elem any) ([]byte, error) {
	elem = withoutView(elem)
	switch v := elem.(type) {
	case string:
		return []byte(v), nil
	case map[string]any:
		if b, ok := rawBytes(v); ok {
			return b, nil
		}
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

// LayoutFile is one transcript file of a session, in one generation: a
// file the agent rewrote instead of appending to is read again from its
// start as a new LayoutFile of the same name and the next generation, so
// that the lines of the one before are kept.
type LayoutFile struct {
	Name   string // relative to the main transcript's directory; "" for the main one
	Path   string // where it was read from
	Offset int64  // bytes read so far
	Lines  int    // lines read so far
	Gen    int    // the generation: 0, then one more at each rewrite
	// Fingerprint identifies the bytes before Offset (see readChunk).
	Fingerprint string
	// Open says the last line read had no newline: the file ended there
	// when it was read whole (see WholeLines). A newline after it later
	// ends that line; more of the line is a rewrite.
	Open bool
}

// Key names the file's lines in what Split and Restore return: its name
// for the newest generation, name~N for an earlier one (as editors name
// a backup), so that "~0" is the main transcript before its first rewrite.
func (l Layout) Key(i int) string {
	f := l.Files[i]
	if l.latest(f.Name) == i {
		return f.Name
	}
	return f.Name + "~" + strconv.Itoa(f.Gen)
}

// latest is the index of the newest generation of the file name, -1
// when there is none.
func (l Layout) latest(name string) int {
	for i := len(l.Files) - 1; i >= 0; i-- {
		if l.Files[i].Name == name {
			return i
		}
	}
	return -1
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
		gen, _ := num(m["generation"])
		name, _ := m["name"].(string)
		path, _ := m["path"].(string)
		fp, _ := m["fingerprint"].(string)
		open, _ := m["open"].(bool)
		l.Files = append(l.Files, LayoutFile{Name: name, Path: path, Offset: off, Lines: int(lines), Gen: int(gen), Fingerprint: fp, Open: open})
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

// JSON is the layout as it is stored. A first generation without a
// fingerprint is stored as layouts were before either existed.
func (l Layout) JSON() map[string]any {
	files := make([]any, len(l.Files))
	for i, f := range l.Files {
		m := map[string]any{"name": f.Name, "path": f.Path, "offset": f.Offset, "lines": f.Lines}
		if f.Gen > 0 {
			m["generation"] = f.Gen
		}
		if f.Fingerprint != "" {
			m["fingerprint"] = f.Fingerprint
		}
		if f.Open {
			m["open"] = true
		}
		files[i] = m
	}
	runs := make([]any, len(l.Runs))
	for i, r := range l.Runs {
		runs[i] = []any{r[0], r[1]}
	}
	return map[string]any{"files": files, "runs": runs}
}

// File returns the index of the newest generation of the file with this
// name, adding it if new.
func (l *Layout) File(name, path string) int {
	if i := l.latest(name); i >= 0 {
		return i
	}
	l.Files = append(l.Files, LayoutFile{Name: name, Path: path})
	return len(l.Files) - 1
}

// NewGeneration starts the next generation of file i, read from path's
// start, and returns its index.
func (l *Layout) NewGeneration(i int, path string) int {
	l.Files = append(l.Files, LayoutFile{Name: l.Files[i].Name, Path: path, Gen: l.Files[i].Gen + 1})
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

// Split gives back each file's lines, from the messages in run order,
// keyed as Key says.
func (l Layout) Split(msgs []any) (map[string][]any, error) {
	out := map[string][]any{}
	pos := 0
	for _, r := range l.Runs {
		if pos+r[1] > len(msgs) {
			return nil, fmt.Errorf("the transcript layout counts more lines (%d+) than the snapshot holds (%d)", pos+r[1], len(msgs))
		}
		key := l.Key(r[0])
		out[key] = append(out[key], msgs[pos:pos+r[1]]...)
		pos += r[1]
	}
	if pos != len(msgs) {
		return nil, fmt.Errorf("the transcript layout counts %d lines, the snapshot holds %d", pos, len(msgs))
	}
	return out, nil
}

// RecordedName is the base name of the main transcript a snapshot was
// recorded from, "" when it names none or one that is not a plain file
// name.
func RecordedName(doc map[string]any) string {
	l, err := LayoutFrom(doc)
	if err != nil {
		return ""
	}
	for _, f := range l.Files {
		if base := filepath.Base(f.Path); f.Name == "" && f.Path != "" && snapshot.CheckPath(base) == nil {
			return base
		}
	}
	return ""
}
