package refs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gittest"
)

// leaveLock makes the lock (and owner note) a killed save would leave.
func leaveLock(t *testing.T, r *Store, ref string, pid int, age time.Duration) string {
	t.Helper()
	lock := filepath.Join(r.dir, filepath.FromSlash(ref)) + ".lock"
	must(t, os.MkdirAll(filepath.Dir(lock), 0o755))
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if age > 0 {
		when := time.Now().Add(-age)
		must(t, os.Chtimes(lock, when, when))
	}
	if pid > 0 { // written after the lock, as a holder does
		host, _ := os.Hostname()
		note := r.ownerPath(lock)
		must(t, os.MkdirAll(filepath.Dir(note), 0o755))
		must(t, os.WriteFile(note, []byte(fmt.Sprintf("%d %s\n", pid, host)), 0o644))
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
	dir := gittest.Repo(t)
	var warnings []string
	r := New(filepath.Join(dir, ".git"), Options{StaleLock: 2 * time.Second,
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }})
	id := plumbing.NewHash(gittest.Git(t, dir, "rev-parse", "HEAD"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, not a measure
	defer cancel()

	// The holder's process is gone: cleared for that reason, not by age.
	pid := deadPid(t)
	lock := leaveLock(t, r, "refs/snap/a", pid, 0)
	if err := r.Update(ctx, "refs/snap/a", plumbing.ZeroHash, id); err != nil {
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
	if err := r.Update(ctx, "refs/snap/b", plumbing.ZeroHash, id); err != nil {
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
	err := r.Update(short, "refs/snap/c", plumbing.ZeroHash, id)
	if err == nil || !strings.Contains(err.Error(), "held by another process") {
		t.Errorf("live lock: %v", err)
	}
	if len(warnings) != 2 {
		t.Errorf("a live lock was reported stale: %q", warnings)
	}

	// A note older than the lock belongs to an earlier holder.
	lock = leaveLock(t, r, "refs/snap/d", pid, 0)
	past := time.Now().Add(-time.Minute)
	must(t, os.Chtimes(r.ownerPath(lock), past, past))
	short3, cancel3 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel3()
	if err := r.Update(short3, "refs/snap/d", plumbing.ZeroHash, id); err == nil {
		t.Error("a lock was taken on the word of an older holder's note")
	}
	gittest.Git(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestRefUpdatesAgreeWithGit(t *testing.T) {
	dir := gittest.Repo(t)
	r := New(filepath.Join(dir, ".git"), Options{StaleLock: time.Second})
	ctx := context.Background()
	head := plumbing.NewHash(gittest.Git(t, dir, "rev-parse", "HEAD"))
	if err := r.Update(ctx, "refs/snap/x", plumbing.ZeroHash, head); err != nil {
		t.Fatal(err)
	}
	if err := r.Update(ctx, "refs/snap/x", plumbing.ZeroHash, head); err != ErrChanged {
		t.Errorf("create over an existing ref: %v", err)
	}
	gittest.Git(t, dir, "pack-refs", "--all")
	if got, _ := r.Read("refs/snap/x"); got != head {
		t.Errorf("packed ref reads %s", got)
	}
	// Delete a packed ref: gone for git too, and packed-refs stays valid.
	if err := r.Update(ctx, "refs/snap/x", head, plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	if out := gittest.Git(t, dir, "for-each-ref", "refs/snap"); out != "" {
		t.Errorf("git still sees %s", out)
	}
	if got := gittest.Git(t, dir, "rev-parse", "main"); got != head.String() {
		t.Errorf("main damaged: %s", got)
	}
}

// List sees packed and loose refs as git does, the loose value winning,
// and no lock file as a ref.
func TestListAgreesWithGit(t *testing.T) {
	dir := gittest.Repo(t)
	r := New(filepath.Join(dir, ".git"), Options{})
	first := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	second := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "update-ref", "refs/snap/a", first)
	gittest.Git(t, dir, "update-ref", "refs/snap/deep/b", first)
	gittest.Git(t, dir, "update-ref", "refs/other/c", first)
	gittest.Git(t, dir, "pack-refs", "--all")
	gittest.Git(t, dir, "update-ref", "refs/snap/a", second) // loose again, over the packed value
	must(t, os.WriteFile(filepath.Join(dir, ".git", "refs", "snap", "x.lock"), []byte(first+"\n"), 0o644))

	got, err := r.List("refs/snap/")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(gittest.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/snap/"), "\n") {
		name, id, _ := strings.Cut(line, " ")
		want[name] = id
	}
	if len(got) != len(want) || want["refs/snap/a"] != second {
		t.Fatalf("listed %v, git lists %v", got, want)
	}
	for name, id := range want {
		if got[name].String() != id {
			t.Errorf("%s: %s, git says %s", name, got[name], id)
		}
	}
	if h, err := r.Read("refs/snap/none"); err != nil || !h.IsZero() {
		t.Errorf("missing ref reads %s, %v", h, err)
	}
	gittest.Git(t, dir, "symbolic-ref", "refs/snap/sym", "refs/heads/main")
	if _, err := r.Read("refs/snap/sym"); err == nil || !strings.Contains(err.Error(), "symbolic") {
		t.Errorf("symbolic ref: %v", err)
	}
}

// Of many updates racing from the same old value, exactly one wins; the
// others are told the ref changed, and git reads the winner.
func TestRacingUpdatesHaveOneWinner(t *testing.T) {
	dir := gittest.Repo(t)
	r := New(filepath.Join(dir, ".git"), Options{})
	var ids []plumbing.Hash
	for i := range 8 {
		gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(i))
		ids = append(ids, plumbing.NewHash(gittest.Git(t, dir, "rev-parse", "HEAD")))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := make(chan error, len(ids))
	for _, id := range ids {
		go func() { errs <- r.Update(ctx, "refs/snap/race", plumbing.ZeroHash, id) }()
	}
	won := 0
	for range ids {
		switch err := <-errs; err {
		case nil:
			won++
		case ErrChanged:
		default:
			t.Error(err)
		}
	}
	got := gittest.Git(t, dir, "rev-parse", "refs/snap/race")
	if won != 1 || !slices.Contains(ids, plumbing.NewHash(got)) {
		t.Errorf("%d updates won; git reads %s", won, got)
	}
	if h, _ := r.Read("refs/snap/race"); h.String() != got {
		t.Errorf("reads %s, git reads %s", h, got)
	}
}

// Deleting a packed annotated tag takes its peeled line with it and
// leaves the refs around it as git wrote them.
func TestDeletePackedKeepsOtherRefs(t *testing.T) {
	dir := gittest.Repo(t)
	r := New(filepath.Join(dir, ".git"), Options{})
	gittest.Git(t, dir, "tag", "-a", "-m", "a", "a")
	gittest.Git(t, dir, "tag", "-a", "-m", "b", "b")
	gittest.Git(t, dir, "tag", "-a", "-m", "c", "c")
	gittest.Git(t, dir, "pack-refs", "--all")
	packed, _ := os.ReadFile(filepath.Join(dir, ".git", "packed-refs"))
	if strings.Count(string(packed), "\n^") != 3 {
		t.Fatalf("git wrote no peeled lines to test:\n%s", packed)
	}
	before := gittest.Git(t, dir, "show-ref", "--dereference")
	if err := r.DeletePacked(context.Background(), "refs/tags/b"); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(before, "\n") {
		if !strings.Contains(line, " refs/tags/b") {
			want = append(want, line)
		}
	}
	if got := gittest.Git(t, dir, "show-ref", "--dereference"); got != strings.Join(want, "\n") {
		t.Errorf("git shows\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	gittest.Git(t, dir, "pack-refs", "--all") // git accepts the file it finds
	gittest.Git(t, dir, "fsck", "--strict", "--no-dangling")
}

// must fails the test at once when setting it up fails.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
