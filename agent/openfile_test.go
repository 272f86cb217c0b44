//go:build unix

package agent

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLinesRefusesWhatIsNotARegularFile: a transcript path naming a FIFO
// blocked open() forever; a symbolic link to /etc/shadow was followed;
// a device was read without end.
func TestLinesRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	secret := filepath.Join(dir, "secret")
	must(t, os.WriteFile(secret, []byte("{\"secret\":1}\n"), 0o600))
	link := filepath.Join(dir, "link.jsonl")
	must(t, os.Symlink(secret, link))
	for _, path := range []string{fifo, link, "/dev/zero", dir} {
		done := make(chan error, 1)
		go func() { _, _, err := Lines(path, 0, 0); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Errorf("%s: %v", path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Lines blocked", path)
		}
	}
}

// TestLinesReadsInBoundedSteps: each call reads at most max bytes, whole
// lines only, and the next goes on from there; a line longer than max is
// an error, not a read of the whole file.
func TestLinesReadsInBoundedSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	line := `{"m":"` + strings.Repeat("x", 92) + `"}` + "\n" // 100 bytes
	must(t, os.WriteFile(path, []byte(strings.Repeat(line, 10)), 0o600))
	var off int64
	var got []int
	for off < 1000 {
		lines, next, err := Lines(path, off, 350)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, len(lines))
		off = next
	}
	if len(got) != 4 || got[0] != 3 || got[3] != 1 {
		t.Errorf("lines per step %v, want [3 3 3 1]", got)
	}
	if _, _, err := Lines(path, 0, 50); err == nil || !strings.Contains(err.Error(), "longer than 50 bytes") {
		t.Errorf("a line past the bound: %v", err)
	}
}
