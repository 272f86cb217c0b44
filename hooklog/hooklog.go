// Package hooklog writes and reads hook.log, where every hook call
// leaves a line and every failure its message (docs/design.md §9):
// git snap hook writes it, doctor reads the last calls and failures back.
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
	"unicode/utf8"

	"github.com/git-snap/git-snap/internal/safefile"
)

// A hook call is passive: what goes wrong is written to a log in the
// repository, never to the agent. The log must stay readable and small
// however often and however badly calls fail.

// Bounds of the hook log: a line (an error can quote a whole payload), and
// the file, which is moved to hook.log.1 when a line would take it past.
const (
	MaxLine  = 2 << 10
	MaxBytes = 1 << 20
)

// Line makes one log line of a message: on one line, cut to
// MaxLine bytes (on a character boundary) with what was cut said.
func Line(msg string) string {
	msg = strings.ReplaceAll(strings.ReplaceAll(msg, "\r", " "), "\n", " ")
	if len(msg) > MaxLine {
		cut := MaxLine - 40
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = fmt.Sprintf("%s… (%d bytes cut)", msg[:cut], len(msg)-cut)
	}
	return msg + "\n"
}

// Append appends a line to a log file, making its folder if needed;
// a file that would grow past MaxBytes is first moved to
// <path>.1, replacing the one before. So is one that is not a regular
// file (a FIFO there would block every hook call, a link would have it
// write elsewhere): the log is git-snap's own, under .git/snap/.
func Append(path, line string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
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

// Call is one hook call as the log records it, failed or not, so
// that doctor can say when each agent last called and how long it took.
type Call struct {
	Time    time.Time     `json:"time"`
	Agent   string        `json:"agent"`
	Event   string        `json:"event"` // "-" when the payload could not be read
	Latency time.Duration `json:"latency_ns"`
	OK      bool          `json:"ok"`
}

// CallLine is the log line of a hook call:
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

// Error is a failure the log records: "<time> hook <agent>: <message>".
type Error struct {
	Time    time.Time `json:"time"`
	Agent   string    `json:"agent"`
	Message string    `json:"message"`
}

// Log is what a hook log says: each agent's last call and the last
// failures, oldest first.
type Log struct {
	Last   map[string]Call
	Errors []Error
}

// Read reads a hook log and the one it was rotated from
// (<path>.1), keeping the last keep failures. A log that does not exist,
// or is not a regular file, reads as empty; of a larger one than Append
// writes only the last MaxBytes are read; lines of another shape are
// skipped.
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

// readTail reads the last limit bytes of a regular file, from the start
// of a line.
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
