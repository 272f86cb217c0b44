package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// A hook call is passive: what goes wrong is written to a log in the
// repository, never to the agent. The log must stay readable and small
// however often and however badly calls fail.

// Bounds of the hook log: a line (an error can quote a whole payload), and
// the file, which is moved to hook.log.1 when a line would take it past.
const (
	LogMaxLine  = 2 << 10
	LogMaxBytes = 1 << 20
)

// LogLine makes one log line of a message: on one line, cut to
// LogMaxLine bytes (on a character boundary) with what was cut said.
func LogLine(msg string) string {
	msg = strings.ReplaceAll(strings.ReplaceAll(msg, "\r", " "), "\n", " ")
	if len(msg) > LogMaxLine {
		cut := LogMaxLine - 40
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = fmt.Sprintf("%s… (%d bytes cut)", msg[:cut], len(msg)-cut)
	}
	return msg + "\n"
}

// AppendLog appends a line to a log file, making its folder if needed;
// a file that would grow past LogMaxBytes is first moved to
// <path>.1, replacing the one before.
func AppendLog(path, line string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(line)) > LogMaxBytes {
		if err := os.Rename(path, path+".1"); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
