// Package hooklog writes and reads hook.log, which holds a line for
// every hook call and the message of every failure (docs/design.md §9).
// git snap hook writes it, and doctor reads back the last calls and
// failures.
package hooklog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/git-snap/git-snap/internal/safefile"
)

// A hook call is passive: errors are written to a log in the repository,
// never reported to the agent. The log must stay readable and small
// however often and however badly calls fail.

// Size limits of the hook log. MaxLine limits a line, since an error can
// quote a whole payload. MaxBytes limits the file, which is moved to
// hook.log.1 when a new line would take it past the limit.
const (
	MaxLine  = 2 << 10
	MaxBytes = 1 << 20
)

// Line turns a message into one log line. Line breaks become spaces,
// other control characters '?' (an error can quote what an agent or its
// program wrote, and the log is read in a terminal), and a long message
// is cut to MaxLine bytes (on a character boundary) with a note of how
// many bytes were cut.
func Line(msg string) string {
	msg = strings.Map(func(r rune) rune {
		switch {
		case r == '\r' || r == '\n':
			return ' '
		case r != '\t' && unicode.IsControl(r):
			return '?'
		}
		return r
	}, msg)
	if len(msg) > MaxLine {
		cut := MaxLine - 40
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = fmt.Sprintf("%s… (%d bytes cut)", msg[:cut], len(msg)-cut)
	}
	return msg + "\n"
}

// Append appends a line to a log file, creating its directory if needed
// but not the directory above it: a follow-up call that outlives its
// repository (removed meanwhile) must not make it again.
// If the file would grow past MaxBytes, it is first moved to <path>.1,
// replacing any previous one. The same happens to a file that is not a
// regular file, since a FIFO would block every hook call and a symbolic
// link would redirect the writes elsewhere; the log belongs to git-snap,
// under .git/snap/, so it is safe to move.
func Append(path, line string) error {
	if err := os.Mkdir(filepath.Dir(path), 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && (!fi.Mode().IsRegular() || fi.Size()+int64(len(line)) > MaxBytes) {
		if err := os.Rename(path, path+".1"); err != nil {
			return err
		}
	}
	f, err := safefile.OpenAppend(path, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Call is one hook call as the log records it, whether it failed or not,
// so that doctor can report when each agent last called and how long the
// call took.
type Call struct {
	Time    time.Time     `json:"time"`
	Agent   string        `json:"agent"`
	Event   string        `json:"event"` // "-" when the payload could not be read
	Latency time.Duration `json:"latency_ns"`
	OK      bool          `json:"ok"`
}

// CallLine returns the log line of a hook call:
// "<time> call <agent> <event> <ms>ms ok|failed".
func CallLine(c Call) string {
	outcome, event := "ok", c.Event
	if !c.OK {
		outcome = "failed"
	}
	if event == "" || strings.ContainsAny(event, " \t") {
		event = "-"
	}
	return Line(fmt.Sprintf("%s call %s %s %dms %s", c.Time.UTC().Format(time.RFC3339), c.Agent, event, c.Latency.Milliseconds(), outcome))
}

// Error is a failure recorded in the log as
// "<time> hook <agent>: <message>".
type Error struct {
	Time    time.Time `json:"time"`
	Agent   string    `json:"agent"`
	Message string    `json:"message"`
}

// Log is the content of a hook log: each agent's last call, and the most
// recent failures, oldest first.
type Log struct {
	Last   map[string]Call
	Errors []Error
}

// Read reads a hook log and the previous log it was rotated to
// (<path>.1), keeping the last keep failures. A log that does not exist,
// or is not a regular file, is treated as empty. For a log larger than
// Append would write, only the last MaxBytes are read. Lines in any other
// format are skipped.
func Read(path string, keep int) (Log, error) {
	l := Log{Last: map[string]Call{}}
	for _, p := range []string{path + ".1", path} {
		data, err := readTail(p, MaxBytes)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, safefile.ErrRefused) {
			continue
		}
		if err != nil {
			return l, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			l.add(line, keep)
		}
	}
	return l, nil
}

// readTail reads the last limit bytes of a regular file, starting at the
// beginning of a line.
func readTail(path string, limit int64) ([]byte, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(0, fi.Size()-limit)
	data, err := io.ReadAll(io.NewSectionReader(f, off, limit))
	if err != nil {
		return nil, err
	}
	if off > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return data, nil
}

func (l *Log) add(line string, keep int) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return
	}
	at, err := time.Parse(time.RFC3339, f[0])
	if err != nil {
		return
	}
	switch {
	case f[1] == "call" && len(f) == 6:
		ms, err := strconv.ParseInt(strings.TrimSuffix(f[4], "ms"), 10, 64)
		if err != nil {
			return
		}
		l.Last[f[2]] = Call{Time: at, Agent: f[2], Event: f[3], Latency: time.Duration(ms) * time.Millisecond, OK: f[5] == "ok"}
	case f[1] == "hook" && strings.HasSuffix(f[2], ":"):
		_, msg, _ := strings.Cut(line, ": ")
		l.Errors = append(l.Errors, Error{Time: at, Agent: strings.TrimSuffix(f[2], ":"), Message: msg})
		if len(l.Errors) > keep {
			l.Errors = l.Errors[len(l.Errors)-keep:]
		}
	}
}
