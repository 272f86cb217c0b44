//go:build linux

package cmdline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCtrlCEndsAReadingCommand: log, show and diff no longer watch
// Ctrl-C unless they page. Each, stopped by SIGINT while it writes a
// long session's output into a pipe nobody reads any more, ends at once
// (killed by the signal, as git log is, or with 130), and leaves no
// lock or temporary file in .git: they write nothing.
func TestCtrlCEndsAReadingCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := codeRepo(t)
	var doc strings.Builder
	doc.WriteString(`{"messages":[`)
	for i := range 2000 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"id":"%d","role":"user","content":"%s"}`, i, strings.Repeat("word ", 50))
	}
	doc.WriteString("]}")
	for range 2 { // two snapshots, for diff
		if code, out := runFor(t, bin, dir, doc.String(), "save", "--session", "big"); code != 0 {
			t.Fatalf("save: %d %s", code, out)
		}
		doc.Reset()
		doc.WriteString(`{"messages":[{"id":"new","role":"user","content":"x"}]}`)
	}
	for _, args := range [][]string{{"show", "big~1"}, {"diff", "big~1", "big"}, {"log", "--all", "-p"}, {"sessions"}} {
		t.Run(args[0], func(t *testing.T) {
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_SNAP_PAGER=", "PAGER=")
			stdout, err := cmd.StdoutPipe()
			must(t, err)
			must(t, cmd.Start())
			// Its first bytes: it is running, and then blocks on a
			// full pipe (or ends, for a short output).
			_, _ = io.ReadFull(stdout, make([]byte, 1))
			must(t, cmd.Process.Signal(syscall.SIGINT))
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			var err2 error
			select {
			case err2 = <-exited:
			case <-time.After(20 * time.Second): // a guard against a hang, the failure looked for
				_ = cmd.Process.Kill()
				t.Fatalf("git snap %s went on after SIGINT", strings.Join(args, " "))
			}
			var ee *exec.ExitError
			if err2 != nil && !errors.As(err2, &ee) {
				t.Fatal(err2)
			}
			if ee != nil {
				st := ee.Sys().(syscall.WaitStatus)
				if (!st.Signaled() || st.Signal() != syscall.SIGINT) && ee.ExitCode() != 130 {
					t.Errorf("ended with %v, want killed by SIGINT or 130", err2)
				}
			}
			if l := leftovers(t, dir); len(l) > 0 {
				t.Errorf("left %v", l)
			}
		})
	}
	gitIn(t, dir, "", "fsck", "--strict", "--no-progress")
}

// TestCtrlCOnceStopsASaveBeforeItWrites: save still watches Ctrl-C. One
// SIGINT while it waits on a FIFO document, then the rest of the
// document: it exits 130 and writes no snapshot, no object, no lock.
func TestCtrlCOnceStopsASaveBeforeItWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	gitIn(t, dir, "", "init", "-q")
	fifo := filepath.Join(dir, "doc.json")
	must(t, syscall.Mkfifo(fifo, 0o666))
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	must(t, err)
	defer w.Close()
	_, err = w.WriteString(`{"messages":[`)
	must(t, err)
	objects := gitFiles(t, dir)
	cmd := exec.Command(bin, "save", "--session", "s", "doc.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
	must(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitForOpen(t, cmd.Process.Pid, fifo)
	must(t, cmd.Process.Signal(syscall.SIGINT))
	// Only once the process has taken the signal does the rest come: on
	// a busy machine it could otherwise read the whole document first.
	waitTaken(t, cmd.Process.Pid, syscall.SIGINT)
	// The read cannot be stopped: the rest of the document ends it.
	_, err = w.WriteString(`{"id":"1","role":"user","content":"x"}]}`)
	must(t, err)
	must(t, w.Close())
	var err2 error
	select {
	case err2 = <-exited:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("save went on after SIGINT and the end of its document")
	}
	var ee *exec.ExitError
	if !errors.As(err2, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want status 130", err2)
	}
	if out, err := exec.Command("git", "-C", dir, "for-each-ref", "refs/snap/").Output(); err != nil || len(out) > 0 {
		t.Errorf("refs after an interrupted save: %q %v", out, err)
	}
	var added []string
	for _, f := range gitFiles(t, dir) {
		if strings.HasPrefix(f, "objects/") && !slices.Contains(objects, f) {
			added = append(added, f)
		}
	}
	if len(added) > 0 {
		t.Errorf("an interrupted save wrote %v", added)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left %v", l)
	}
}
