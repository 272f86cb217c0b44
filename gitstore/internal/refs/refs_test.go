package refs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/gitstore/internal/gittest"
	"github.com/git-snap/git-snap/storage"
)

// leaveLock makes the lock a killed holder would leave: with a note of
// its pid when pid > 0, empty as git's otherwise.
func leaveLock(t *testing.T, r *Store, ref string, pid int, age time.Duration) string {
	t.Helper()
	lock := filepath.Join(r.dir, filepath.FromSlash(ref)) + ".lock"
	must(t, os.MkdirAll(filepath.Dir(lock), 0o755))
	var note []byte
	if pid > 0 {
		host, _ := os.Hostname()
		note = []byte(fmt.Sprintf("%d %s\n", pid, host))
	}
	must(t, os.WriteFile(lock, note, 0o644))
	if age > 0 {
		when := time.Now().Add(-age)
		must(t, os.Chtimes(lock, when, when))
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
	r := New(filepath.Join(dir, ".git"), Options{
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }})
	id := storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, not a measure
	defer cancel()

	// The holder's process is gone: cleared for that reason, not by age.
	pid := deadPid(t)
	lock := leaveLock(t, r, "refs/snap/a", pid, 0)
	if err := r.Update(ctx, "refs/snap/a", storage.ID{}, id, "test"); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], fmt.Sprintf("process %d is gone", pid)) {
		t.Errorf("dead holder: warnings %q", warnings)
	}
	if _, err := os.Stat(lock); err == nil {
		t.Error("lock still there")
	}

	// No note, however old: git's own or another tool's, never taken;
	// the error names the lock and what to do.
	lock = leaveLock(t, r, "refs/snap/b", 0, time.Hour)
	short0, cancel0 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel0()
	err := r.Update(short0, "refs/snap/b", storage.ID{}, id, "test")
	var le *LockedError
	if !errors.As(err, &le) || le.Path != lock || !strings.Contains(err.Error(), "rm "+lock) {
		t.Errorf("old lock without a note: %v", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Error("an old lock without a note was removed")
	}
	if len(warnings) != 1 {
		t.Errorf("old lock: warnings %q", warnings)
	}

	// Held by a live process (this one), and fresh: waited on, never
	// taken, until the context gives up.
	leaveLock(t, r, "refs/snap/c", os.Getpid(), 0)
	short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	err = r.Update(short, "refs/snap/c", storage.ID{}, id, "test")
	if err == nil || !strings.Contains(err.Error(), "held by another process") {
		t.Errorf("live lock: %v", err)
	}
	if len(warnings) != 1 {
		t.Errorf("a live lock was reported stale: %q", warnings)
	}

	// A note of another host says nothing of the holder.
	lock = leaveLock(t, r, "refs/snap/d", 0, time.Hour)
	must(t, os.WriteFile(lock, []byte(fmt.Sprintf("%d elsewhere.example\n", pid)), 0o644))
	short3, cancel3 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel3()
	if err := r.Update(short3, "refs/snap/d", storage.ID{}, id, "test"); err == nil {
		t.Error("a lock was taken on the word of another host's note")
	}
	// The locks of this store carry their note from the start.
	must(t, os.Remove(filepath.Join(r.dir, "refs", "snap", "d.lock")))
	lk, err := r.lock(ctx, filepath.Join(r.dir, "refs", "snap", "e"))
	must(t, err)
	if held, dead := deadHolder(lk.path); dead || held != os.Getpid() {
		t.Errorf("own lock judged: pid %d dead %v", held, dead)
	}
	if b, _ := os.ReadFile(lk.path); !strings.HasPrefix(string(b), fmt.Sprint(os.Getpid(), " ")) {
		t.Errorf("own lock holds %q", b)
	}
	lk.release()
	gittest.Git(t, dir, "fsck", "--strict", "--no-dangling")
}

// TestGitTransactionLockIsNeverTaken: git update-ref --stdin holding a
// prepared transaction on a ref keeps its lock, without a note, for as
// long as it likes; an update waits, fails naming the lock, and git's
// transaction then commits.
func TestGitTransactionLockIsNeverTaken(t *testing.T) {
	dir := gittest.Repo(t)
	r := New(filepath.Join(dir, ".git"), Options{})
	head := storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD"))
	tree := storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"))
	ctx := context.Background()
	must(t, r.Update(ctx, "refs/snap/S", storage.ID{}, head, "test"))
	other := storage.NewID(gittest.GitIn(t, dir, "", "commit-tree", "-m", "other", tree.String()))

	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	must(t, err)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	must(t, cmd.Start())
	fmt.Fprintf(stdin, "start\nupdate refs/snap/S %s %s\nprepare\n", other, head)
	lock := filepath.Join(dir, ".git", "refs", "snap", "S.lock")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(lock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("git did not take the lock: %s", out.String())
		}
	}
	// Older than any age a lock was once judged stale by: its age says
	// nothing about whether git still holds it.
	old := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(lock, old, old))
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	err = r.Update(short, "refs/snap/S", head, storage.ID{}, "test")
	var le *LockedError
	if !errors.As(err, &le) || le.Path != lock {
		t.Errorf("update beside git's transaction: %v", err)
	}
	fmt.Fprint(stdin, "commit\n")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("git's transaction failed: %v\n%s", err, out.String())
	}
	if got, _ := r.Read("refs/snap/S"); got != other {
		t.Errorf("refs/snap/S is %s, want git's %s", got, other)
	}
	gittest.Git(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestRefUpdatesAgreeWithGit(t *testing.T) {
	dir := gittest.Repo(t)
	r := New(filepath.Join(dir, ".git"), Options{})
	ctx := context.Background()
	head := storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD"))
	if err := r.Update(ctx, "refs/snap/x", storage.ID{}, head, "test"); err != nil {
		t.Fatal(err)
	}
	if err := r.Update(ctx, "refs/snap/x", storage.ID{}, head, "test"); err != ErrChanged {
		t.Errorf("create over an existing ref: %v", err)
	}
	gittest.Git(t, dir, "pack-refs", "--all")
	if got, _ := r.Read("refs/snap/x"); got != head {
		t.Errorf("packed ref reads %s", got)
	}
	// Delete a packed ref: gone for git too, and packed-refs stays valid.
	if err := r.Update(ctx, "refs/snap/x", head, storage.ID{}, "test"); err != nil {
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
	var many []string // enough loose refs to be read on several goroutines
	for i := range 200 {
		many = append(many, fmt.Sprintf("create refs/snap/s%03d %s", i, []string{first, second}[i%2]))
	}
	gittest.GitIn(t, dir, strings.Join(many, "\n")+"\n", "update-ref", "--stdin")

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
	// A listing leaves symbolic refs out, as every clone's origin/HEAD:
	// they used to fail it, and with it git snap usage and pr in a clone.
	gittest.Git(t, dir, "update-ref", "refs/remotes/origin/snap/s", "refs/heads/main")
	gittest.Git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/snap/s")
	listed, err := r.List("refs/remotes/")
	if err != nil || len(listed) != 1 || listed["refs/remotes/origin/snap/s"].IsZero() {
		t.Errorf("refs/remotes/ with a symbolic origin/HEAD: %v, %v", listed, err)
	}
	if listed, err := r.List("refs/snap/"); err != nil || !listed["refs/snap/sym"].IsZero() {
		t.Errorf("refs/snap/ with a symbolic ref: %v, %v", listed, err)
	}
}

// Of many updates racing from the same old value, exactly one wins; the
// others are told the ref changed, and git reads the winner.
func TestRacingUpdatesHaveOneWinner(t *testing.T) {
	dir := gittest.Repo(t)
	r := New(filepath.Join(dir, ".git"), Options{})
	var ids []storage.ID
	for i := range 8 {
		gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(i))
		ids = append(ids, storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD")))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := make(chan error, len(ids))
	for _, id := range ids {
		go func() { errs <- r.Update(ctx, "refs/snap/race", storage.ID{}, id, "test") }()
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
	if won != 1 || !slices.Contains(ids, storage.NewID(got)) {
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

// TestRenameRetriesWhileBusy: a rename refused because the target is
// held open is tried again until it succeeds; any other error is
// returned at once, and a target held for good in about a second.
func TestRenameRetriesWhileBusy(t *testing.T) {
	held := errors.New("held open")
	isHeld := func(err error) bool { return errors.Is(err, held) }
	tries := 0
	mv := func(string, string) error {
		if tries++; tries < 4 {
			return held
		}
		return nil
	}
	if err := renameRetrying(mv, isHeld, "a", "b"); err != nil || tries != 4 {
		t.Errorf("held three times: %v after %d tries", err, tries)
	}
	other := errors.New("no such folder")
	tries = 0
	if err := renameRetrying(func(string, string) error { tries++; return other }, isHeld, "a", "b"); err != other || tries != 1 {
		t.Errorf("another error: %v after %d tries", err, tries)
	}
	tries = 0
	if err := renameRetrying(func(string, string) error { tries++; return held }, isHeld, "a", "b"); err != held || tries != 11 {
		t.Errorf("held for good: %v after %d tries", err, tries)
	}
}

// A junk file or a link to another file under refs/snap/ is left out of
// a listing with one warning naming it, as git for-each-ref does, and
// no message quotes what the file holds: behind a link it may be any
// file. It failed the whole listing, and quoted the file.
func TestBrokenRefsAreSkipped(t *testing.T) {
	dir := gittest.Repo(t)
	var warnings []string
	r := New(filepath.Join(dir, ".git"), Options{
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }})
	id := storage.NewID(gittest.Git(t, dir, "rev-parse", "HEAD"))
	must(t, r.Update(context.Background(), "refs/snap/good", storage.ID{}, id, "test"))
	secret := filepath.Join(t.TempDir(), "id_rsa")
	must(t, os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n"), 0o600))
	snap := filepath.Join(dir, ".git", "refs", "snap")
	must(t, os.WriteFile(filepath.Join(snap, "junk"), []byte("not a commit id at all\n"), 0o644))
	must(t, os.Symlink(secret, filepath.Join(snap, "linked")))
	must(t, os.Symlink("loop", filepath.Join(snap, "loop"))) // ELOOP failed the listing too
	for range 2 {
		got, err := r.List("refs/snap/")
		if err != nil || len(got) != 1 || got["refs/snap/good"] != id {
			t.Fatalf("List = %v, %v; want the good ref only", got, err)
		}
	}
	slices.Sort(warnings)
	if len(warnings) != 3 || !strings.Contains(warnings[0], "refs/snap/junk") || !strings.Contains(warnings[1], "refs/snap/linked") || !strings.Contains(warnings[2], "refs/snap/loop") {
		t.Errorf("warnings %q, want one for each broken ref", warnings)
	}
	_, err := r.Read("refs/snap/linked")
	for _, said := range append(warnings, fmt.Sprint(err)) {
		if strings.Contains(said, "OPENSSH") || strings.Contains(said, "b3Bl") || strings.Contains(said, "not a commit id at all") {
			t.Errorf("a message quotes a broken ref's file: %s", said)
		}
	}
	var broken *BrokenError
	if !errors.As(err, &broken) {
		t.Errorf("Read of a link to another file: %v, want a BrokenError", err)
	}
}
