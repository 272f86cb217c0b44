package gitstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// leaveLock makes the lock (and owner note) a killed save would leave.
func leaveLock(t *testing.T, r *refs, ref string, pid int, age time.Duration) string {
	t.Helper()
	lock := filepath.Join(r.dir, filepath.FromSlash(ref)) + ".lock"
	os.MkdirAll(filepath.Dir(lock), 0o755)
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if age > 0 {
		when := time.Now().Add(-age)
		os.Chtimes(lock, when, when)
	}
	if pid > 0 { // written after the lock, as a holder does
		host, _ := os.Hostname()
		note := r.ownerPath(lock)
		os.MkdirAll(filepath.Dir(note), 0o755)
		os.WriteFile(note, []byte(fmt.Sprintf("%d %s\n", pid, host)), 0o644)
	}
	return lock
}

func deadPid(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestLocksLeftByKilledProcesses(t *testing.T) {
	dir, _ := newRepo(t)
	var warnings []string
	r := &refs{dir: filepath.Join(dir, ".git"), staleLock: 2 * time.Second,
		warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }}
	id := plumbing.NewHash(git(t, dir, "rev-parse", "HEAD"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, not a measure
	defer cancel()

	// The holder's process is gone: cleared for that reason, not by age.
	pid := deadPid(t)
	lock := leaveLock(t, r, "refs/snap/a", pid, 0)
	if err := r.update(ctx, "refs/snap/a", plumbing.ZeroHash, id); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], fmt.Sprintf("process %d is gone", pid)) {
		t.Errorf("dead holder: warnings %q", warnings)
	}
	if _, err := os.Stat(lock); err == nil {
		t.Error("lock still there")
	}

	// No note, but old: cleared by age.
	leaveLock(t, r, "refs/snap/b", 0, 10*time.Second)
	if err := r.update(ctx, "refs/snap/b", plumbing.ZeroHash, id); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[1], "did not finish") {
		t.Errorf("old lock: warnings %q", warnings)
	}

	// Held by a live process (this one), and fresh: waited on, never
	// taken, until the context gives up.
	leaveLock(t, r, "refs/snap/c", os.Getpid(), 0)
	short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	err := r.update(short, "refs/snap/c", plumbing.ZeroHash, id)
	if err == nil || !strings.Contains(err.Error(), "held by another process") {
		t.Errorf("live lock: %v", err)
	}
	if len(warnings) != 2 {
		t.Errorf("a live lock was reported stale: %q", warnings)
	}

	// A note older than the lock belongs to an earlier holder.
	lock = leaveLock(t, r, "refs/snap/d", pid, 0)
	past := time.Now().Add(-time.Minute)
	os.Chtimes(r.ownerPath(lock), past, past)
	short3, cancel3 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel3()
	if err := r.update(short3, "refs/snap/d", plumbing.ZeroHash, id); err == nil {
		t.Error("a lock was taken on the word of an older holder's note")
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestRefUpdatesAgreeWithGit(t *testing.T) {
	dir, _ := newRepo(t)
	r := &refs{dir: filepath.Join(dir, ".git"), staleLock: time.Second}
	ctx := context.Background()
	head := plumbing.NewHash(git(t, dir, "rev-parse", "HEAD"))
	if err := r.update(ctx, "refs/snap/x", plumbing.ZeroHash, head); err != nil {
		t.Fatal(err)
	}
	if err := r.update(ctx, "refs/snap/x", plumbing.ZeroHash, head); err != errRefChanged {
		t.Errorf("create over an existing ref: %v", err)
	}
	git(t, dir, "pack-refs", "--all")
	if got, _ := r.read("refs/snap/x"); got != head {
		t.Errorf("packed ref reads %s", got)
	}
	// Delete a packed ref: gone for git too, and packed-refs stays valid.
	if err := r.update(ctx, "refs/snap/x", head, plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	if out := git(t, dir, "for-each-ref", "refs/snap"); out != "" {
		t.Errorf("git still sees %s", out)
	}
	if got := git(t, dir, "rev-parse", "main"); got != head.String() {
		t.Errorf("main damaged: %s", got)
	}
}
