package refs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/storage"
)

// A reflog is kept as git keeps one, in logs/<ref> under the common git
// dir, one line an update:
//
//	<old> <new> <name> <<email>> <unix time> <+hhmm>\t<message>
//
// so that git reflog, and git gc's reachability, read it. Unlike git,
// which removes a ref's log when it deletes the ref, a deletion is logged
// and the log kept: it is how a dropped session is found again.

// maxLogMessage bounds a log line's message; labels can be long.
const maxLogMessage = 200

// LogEntry is one line of a ref's log.
type LogEntry struct {
	Old, New storage.ID
	Who      string // "<name> <<email>> <time> <zone>"
	Message  string
}

// appendLog adds an entry to name's log, while the caller holds name's
// lock, as git does. One write of one line with O_APPEND: a reader never
// sees half of it.
func (r *Store) appendLog(name string, old, new storage.ID, msg string) error {
	if r.opts.Ident == nil {
		return nil
	}
	msg = strings.Join(strings.Fields(msg), " ") // one line, as git writes it
	if len(msg) > maxLogMessage {
		msg = msg[:maxLogMessage]
	}
	line := fmt.Sprintf("%s %s %s\t%s\n", old, new, r.opts.Ident(), msg)
	path := filepath.Join(r.dir, "logs", filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxLogTail is how much of the end of a log LastLog reads: a line is
// bounded (two ids, an identity, maxLogMessage), so this holds the last.
const maxLogTail = 8 << 10

// LastLog returns the newest entry of name's log; ok is false when the
// ref has no log.
func (r *Store) LastLog(name string) (e LogEntry, ok bool, err error) {
	if err := CheckName(name); err != nil {
		return LogEntry{}, false, err
	}
	f, err := os.Open(filepath.Join(r.dir, "logs", filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return LogEntry{}, false, nil
	}
	if err != nil {
		return LogEntry{}, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return LogEntry{}, false, err
	}
	if !fi.Mode().IsRegular() {
		return LogEntry{}, false, fmt.Errorf("log of %s is not a file", name)
	}
	start := max(0, fi.Size()-maxLogTail)
	buf := make([]byte, fi.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return LogEntry{}, false, err
	}
	buf = bytes.TrimRight(buf, "\n")
	if len(buf) == 0 { // emptied by git reflog expire
		return LogEntry{}, false, nil
	}
	lines := bytes.Split(buf, []byte("\n"))
	e, err = parseLogLine(string(lines[len(lines)-1]))
	if err != nil {
		return LogEntry{}, false, fmt.Errorf("log of %s: %w", name, err)
	}
	return e, true, nil
}

// LoggedIDs are the ids name held, as the end of its log (maxLogTail
// bytes of it) and git's own log of it say; none when it has no log.
func (r *Store) LoggedIDs(name string) ([]storage.ID, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(r.dir, "logs", filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, err
	}
	start := max(0, fi.Size()-8*maxLogTail)
	buf := make([]byte, fi.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var out []storage.ID
	for _, line := range bytes.Split(buf, []byte("\n")) {
		if e, err := parseLogLine(string(line)); err == nil {
			out = append(out, e.Old, e.New)
		}
	}
	return out, nil
}

func parseLogLine(line string) (LogEntry, error) {
	head, msg, _ := strings.Cut(line, "\t")
	ids := strings.SplitN(head, " ", 3)
	if len(ids) < 3 || !storage.IsID(ids[0]) || !storage.IsID(ids[1]) {
		return LogEntry{}, fmt.Errorf("unreadable line %.80q", line)
	}
	return LogEntry{Old: storage.NewID(ids[0]), New: storage.NewID(ids[1]), Who: ids[2], Message: msg}, nil
}

// Logged lists the refs under prefix that have a log, whether or not
// the ref still exists.
func (r *Store) Logged(prefix string) ([]string, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	logs := filepath.Join(r.dir, "logs")
	var out []string
	err := filepath.WalkDir(filepath.Join(logs, filepath.FromSlash(prefix)), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(logs, path)
			if name := filepath.ToSlash(rel); CheckName(name) == nil {
				out = append(out, name)
			}
		}
		return nil
	})
	return out, err
}
