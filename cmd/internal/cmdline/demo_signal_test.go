//go:build linux

package cmdline

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDemoRemovesItsRepositoryWhenStopped stops the demo half way, with
// SIGINT, SIGTERM, SIGHUP and by closing the pipe it writes to, and
// checks each time that its temporary repository is gone. The pipe is
// made small, so that the demo waits on it after its first line and the
// stop comes while it runs.
func TestDemoRemovesItsRepositoryWhenStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	for _, tc := range []struct {
		name string
		stop func(p *os.Process, r *os.File)
	}{
		{"SIGINT", func(p *os.Process, r *os.File) { _ = p.Signal(syscall.SIGINT); _, _ = io.Copy(io.Discard, r) }},
		{"SIGTERM", func(p *os.Process, r *os.File) { _ = p.Signal(syscall.SIGTERM); _, _ = io.Copy(io.Discard, r) }},
		{"SIGHUP", func(p *os.Process, r *os.File) { _ = p.Signal(syscall.SIGHUP); _, _ = io.Copy(io.Discard, r) }},
		{"reader gone", func(_ *os.Process, r *os.File) { r.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			// F_SETPIPE_SZ (1031): the smallest pipe, a page, holds less
			// than the demo writes.
			if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), 1031, 4096); errno != 0 {
				t.Skip("cannot size the pipe:", errno)
			}
			cmd := exec.Command(bin, "demo")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "NO_COLOR=1")
			cmd.Stdout = w
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			first := readLine(t, r)
			dir := first[strings.LastIndex(first, " ")+1:]
			if !strings.HasPrefix(dir, filepath.Join(tmp, "git-snap-demo-")) {
				t.Fatalf("first line %q names no repository under %s", first, tmp)
			}
			tc.stop(cmd.Process, r)
			err = cmd.Wait()
			r.Close()
			var ee *exec.ExitError
			want := 130 // interrupted; 143 for SIGTERM, as a shell reports it
			if tc.name == "SIGTERM" {
				want = 143
			}
			if !errors.As(err, &ee) || ee.ExitCode() != want {
				t.Errorf("exit: %v (want status %d, interrupted); stderr:\n%s", err, want, stderr.String())
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the demo's repository %s is still there (%v)", dir, err)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("left in TMPDIR: %v", entries)
			}
		})
	}
}

// readLine reads one line a byte at a time, so that no more of the pipe
// is drained than the line.
func readLine(t *testing.T, r io.Reader) string {
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			t.Fatalf("reading the first line: %v (got %q)", err, b)
		}
		if one[0] == '\n' {
			return string(b)
		}
		b = append(b, one[0])
	}
}
