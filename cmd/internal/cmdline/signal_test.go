//go:build linux

package cmdline

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
			for i, s := range tc.signals {
				if i > 0 {
					// Sent at once, two signals of different kinds may be
					// taken by two threads and reach the command in either
					// order: the next is sent when the last was taken.
					waitTaken(t, cmd.Process.Pid, tc.signals[i-1])
				}
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

// waitTaken waits until no thread of process pid has sig pending: a
// handler has taken it.
func waitTaken(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	bit := uint64(1) << (sig - 1)
	tasks := filepath.Join("/proc", strconv.Itoa(pid), "task")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if pendingMask(tasks)&bit == 0 {
			return
		}
	}
	t.Fatalf("signal %v still pending after 30s", sig)
}

// pendingMask is the signals pending for any thread under tasks, or for
// the process as a whole (SigPnd and ShdPnd in each thread's status).
func pendingMask(tasks string) uint64 {
	ents, _ := os.ReadDir(tasks)
	var mask uint64
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(tasks, e.Name(), "status"))
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && (k == "SigPnd" || k == "ShdPnd") {
				m, _ := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
				mask |= m
			}
		}
	}
	return mask
}
