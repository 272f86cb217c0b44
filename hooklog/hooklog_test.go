package hooklog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHookLogIsBounded checks the log's size limits. hook.log used to
// accept 30 KB lines and was never rotated. Now each message is cut to
// 2 KB on a single line, and past 1 MB the file is moved to hook.log.1.
func TestHookLogIsBounded(t *testing.T) {
	line := Line("payload: " + strings.Repeat("é", 15000) + "\nsecond line")
	if len(line) > MaxLine || !strings.HasSuffix(line, "bytes cut)\n") || strings.Count(line, "\n") != 1 || !utf8.ValidString(line) {
		t.Errorf("line of %d bytes: %.80q…", len(line), line)
	}
	path := filepath.Join(t.TempDir(), "snap", "hook.log")
	for range 1000 {
		if err := Append(path, line); err != nil {
			t.Fatal(err)
		}
	}
	// A repository removed while a follow-up call ran is not made again.
	gone := filepath.Join(t.TempDir(), "removed", ".git", "snap", "hook.log")
	if err := Append(gone, line); err == nil {
		t.Error("Append made the directories of a removed repository")
	}
	if _, err := os.Stat(filepath.Dir(filepath.Dir(gone))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Append left %v", err)
	}
	for _, p := range []string{path, path + ".1"} {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > MaxBytes {
			t.Errorf("%s: %v, %v", p, fi, err)
		}
	}
}

// TestLineKeepsControlsOut: an external agent's program refused a hook
// payload with "\x1b[2J…", and the log kept the escape, which cleared
// the screen of whoever read it with cat or tail.
func TestLineKeepsControlsOut(t *testing.T) {
	got := Line("bad\x1b[2Jpayload\r\nnext\tline\x00ü")
	if want := "bad?[2Jpayload  next\tline?ü\n"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}
