//go:build linux

package cmdline

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestSignalsEndABlockedRead: while a read that no context can stop was
// in progress (a FIFO given as input, its writer silent), a second
// Ctrl-C and SIGTERM were swallowed, since signal.NotifyContext stayed
// registered. A second Ctrl-C now ends the command at once with 130,
// SIGTERM within its grace with 143, and the repository stays valid.
func TestSignalsEndABlockedRead(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	for _, tc := range []struct {
		name    string
		signals []syscall.Signal
		code    int
	}{
		{"Ctrl-C twice", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}, 130},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}, 143},
		{"Ctrl-C then SIGTERM", []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run(t, dir, "git", "init", "-q")
			fifo := filepath.Join(dir, "doc.json")
			must(t, syscall.Mkfifo(fifo, 0o666))
			// The test keeps the FIFO open for writing and writes part of
			// a document: git-snap's read then waits for the rest.
			w, err := os.OpenFile(fifo, os.O_RDWR, 0)
			must(t, err)
			defer w.Close()
			_, err = w.WriteString(`{"messages":[`)
			must(t, err)
			cmd := exec.Command(bin, "save", "--session", "s", "doc.json")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
			must(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waitForOpen(t, cmd.Process.Pid, fifo)
			for _, s := range tc.signals {
				must(t, cmd.Process.Signal(s))
			}
			// Signals of one kind sent close together may arrive as one
			// (the kernel and Go's runtime keep one pending of each), as
			// two quick presses may: the last is sent again each second,
			// as a person presses again, at most 20 times.
			var err2 error
		wait:
			for i := 0; ; i++ {
				select {
				case err2 = <-exited:
					break wait
				case <-time.After(time.Second):
					if i == 20 {
						_ = cmd.Process.Kill()
						t.Fatalf("git-snap went on after %v, sent again 20 times", tc.signals)
					}
					_ = cmd.Process.Signal(tc.signals[len(tc.signals)-1])
				}
			}
			var ee *exec.ExitError
			if !errors.As(err2, &ee) || ee.ExitCode() != tc.code {
				t.Errorf("exit: %v, want status %d", err2, tc.code)
			}
			run(t, dir, "git", "fsck", "--strict", "--no-progress")
		})
	}
}

// waitForOpen waits until process pid has path open: then it is in its
// read, and its signal handling is set up (that comes first in Main).
func waitForOpen(t *testing.T, pid int, path string) {
	t.Helper()
	fds := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		ents, _ := os.ReadDir(fds)
		for _, e := range ents {
			if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && target == path {
				return
			}
		}
	}
	t.Fatalf("git-snap never opened %s", path)
}
