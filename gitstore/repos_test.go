package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"
)

func TestLinkedWorktreeWritesToCommonDir(t *testing.T) {
	ctx := context.Background()
	dir, _ := newRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	must(t, os.WriteFile(filepath.Join(wt, "new.go"), []byte("package x\n"), 0o644))
	git(t, wt, "add", ".")
	git(t, wt, "commit", "-q", "-m", "on feature")
	s := openStore(t, filepath.Join(wt))
	if s.Paths().WorkTree != wt || !strings.HasSuffix(s.Paths().CommonDir, filepath.Join(dir, ".git")) {
		t.Fatalf("paths = %+v", s.Paths())
	}
	head, err := s.Head()
	if err != nil {
		t.Fatal(err)
	}
	if want := git(t, wt, "rev-parse", "HEAD"); head.String() != want {
		t.Errorf("HEAD = %s, want %s (the worktree's HEAD, not main's)", head, want)
	}
	e, err := s.Save(ctx, conversation(2), storage.SaveOptions{Session: "wt", Code: head.String()})
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "rev-parse", "refs/snap/wt"); got != e.ID.String() {
		t.Errorf("main checkout sees refs/snap/wt = %s, want %s", got, e.ID)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestWorktreeConfigExtension(t *testing.T) {
	ctx := context.Background()
	dir, _ := newRepo(t)
	git(t, dir, "config", "core.repositoryformatversion", "1")
	git(t, dir, "config", "extensions.worktreeConfig", "true")
	git(t, dir, "config", "--worktree", "core.sparseCheckout", "false")
	s := openStore(t, dir)
	if _, err := s.Save(ctx, conversation(1), storage.SaveOptions{Session: "wc"}); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
	if got := git(t, dir, "rev-list", "--count", "snap/wc"); got != "1" {
		t.Errorf("git counts %s snapshots", got)
	}
}

func TestBareRepository(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "--bare")
	s := openStore(t, dir)
	if s.Paths().WorkTree != "" {
		t.Errorf("bare repository has work tree %q", s.Paths().WorkTree)
	}
	if head, err := s.Head(); err != nil || !head.IsZero() {
		t.Errorf("HEAD of a new bare repository = %s, %v", head, err)
	}
	if _, err := s.Save(ctx, conversation(3), storage.SaveOptions{Session: "bare"}); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestInitBareMakesARepositoryGitAccepts(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store.git")
	if _, err := InitBare(dir); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	if _, err := s.Save(ctx, conversation(3), storage.SaveOptions{Session: "standalone"}); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
	if _, err := InitBare(dir); err == nil {
		t.Error("InitBare over an existing repository succeeded")
	}
}

func TestUnbornHead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	s := openStore(t, dir)
	if head, err := s.Head(); err != nil || !head.IsZero() {
		t.Errorf("unborn HEAD = %s, %v", head, err)
	}
	if _, err := s.Save(ctx, conversation(1), storage.SaveOptions{Session: "unborn"}); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

func TestRefusesRepositoriesItCannotWrite(t *testing.T) {
	sha256 := t.TempDir()
	git(t, sha256, "init", "-q", "--object-format=sha256")
	reftable := t.TempDir()
	git(t, reftable, "init", "-q")
	git(t, reftable, "config", "core.repositoryformatversion", "1")
	git(t, reftable, "config", "extensions.refStorage", "reftable")
	unknown := t.TempDir()
	git(t, unknown, "init", "-q")
	git(t, unknown, "config", "core.repositoryformatversion", "1")
	git(t, unknown, "config", "extensions.someFutureThing", "true")
	for name, c := range map[string]struct{ dir, want string }{
		"sha256":   {sha256, "sha256 object ids"},
		"reftable": {reftable, "reftable"},
		"unknown":  {unknown, "extensions.somefuturething"},
	} {
		_, err := Open(context.Background(), c.dir, Options{Counter: session.Counter{}, View: session.View})
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want)) {
			t.Errorf("%s: Open = %v, want a FormatError about %s", name, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(c.dir, ".git", "snap")); err == nil {
			t.Errorf("%s: .git/snap was created", name)
		}
	}
}

func TestNotARepository(t *testing.T) {
	_, err := Open(context.Background(), t.TempDir(), Options{Counter: session.Counter{}, View: session.View})
	if !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open outside a repository = %v", err)
	}
}

// makeReadOnly stops writes under dir: by permissions for an ordinary
// user; as root, whom permissions do not bind, with the immutable flag.
func makeReadOnly(t *testing.T, dir string) {
	var dirs []string
	must(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	}))
	if os.Geteuid() != 0 {
		for _, d := range dirs {
			must(t, os.Chmod(d, 0o555))
		}
		t.Cleanup(func() {
			for _, d := range dirs {
				must(t, os.Chmod(d, 0o755))
			}
		})
		return
	}
	if out, err := exec.Command("chattr", append([]string{"+i"}, dirs...)...).CombinedOutput(); err != nil {
		t.Skipf("running as root and chattr +i is not available here: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("chattr", append([]string{"-i"}, dirs...)...).CombinedOutput(); err != nil {
			t.Errorf("chattr -i: %v %s", err, out)
		}
	})
}

func TestReadOnlyRepositoryFailsClearly(t *testing.T) {
	dir, s := newRepo(t)
	before := git(t, dir, "count-objects")
	makeReadOnly(t, filepath.Join(dir, ".git", "objects"))
	_, err := s.Save(context.Background(), conversation(1), storage.SaveOptions{Session: "ro"})
	if err == nil || !strings.Contains(err.Error(), "write access") {
		t.Errorf("save into a read-only repository = %v", err)
	}
	if after := git(t, dir, "count-objects"); after != before {
		t.Errorf("objects changed: %s → %s", before, after)
	}
	if refs := git(t, dir, "for-each-ref", "refs/snap"); refs != "" {
		t.Errorf("a ref was written: %s", refs)
	}
}

// Writers with their own Store (as separate processes have) race on one
// session while git packs refs beside them: every snapshot lands, once,
// in one chain.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	ctx := context.Background()
	dir, _ := newRepo(t)
	const writers, saves = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	stop := make(chan struct{})
	go func() { // git rewrites packed-refs and prunes loose refs meanwhile
		for {
			select {
			case <-stop:
				return
			default:
				git(t, dir, "pack-refs", "--all")
			}
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(ctx, dir, Options{Counter: session.Counter{}, View: session.View})
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for i := range saves {
				doc := conversation(1 + i%5)
				doc["writer"] = fmt.Sprintf("%d/%d", w, i)
				if _, err := s.Save(ctx, doc, storage.SaveOptions{Session: "race"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := git(t, dir, "rev-list", "--count", "snap/race"); got != fmt.Sprint(writers*saves) {
		t.Fatalf("chain holds %s snapshots, want %d", got, writers*saves)
	}
	s := openStore(t, dir)
	tip, _ := s.SessionTip("race")
	seen := map[string]bool{}
	seq := writers * saves
	for id := tip; !id.IsZero(); {
		doc, e, err := s.Read(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if e.Header.Seq != seq {
			t.Fatalf("snapshot %s has seq %d, want %d", id, e.Header.Seq, seq)
		}
		seq--
		seen[doc["writer"].(string)] = true
		id = e.Parent
	}
	if len(seen) != writers*saves {
		t.Errorf("%d distinct snapshots in the chain, want %d", len(seen), writers*saves)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

// A snapshot made by someone else's tool, arriving by pull or bundle,
// may hold any tree git accepts: paths that fold onto .git are refused
// when it is read, before anything could write them.
func TestHostileTreeFromElsewhereIsRefused(t *testing.T) {
	ctx := context.Background()
	dir, s := newRepo(t)
	hashObject := func(content string) string {
		cmd := exec.Command("git", "hash-object", "-w", "--stdin")
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(content)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	mktree := func(listing string) string {
		cmd := exec.Command("git", "mktree")
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(listing)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mktree: %v %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, evil := range []string{".GIT", "git~1", ".git."} {
		hook := hashObject("#!/bin/sh\nrm -rf ~\n")
		inner := mktree(fmt.Sprintf("100755 blob %s\tpost-checkout\n", hook))
		gitdir := mktree(fmt.Sprintf("040000 tree %s\thooks\n", inner))
		files := mktree(fmt.Sprintf("040000 tree %s\t%s\n", gitdir, evil))
		root := mktree(fmt.Sprintf("100644 blob %s\t.git-snap\n100644 blob %s\tsnapshot.json\n040000 tree %s\tfiles\n",
			hashObject("git-snap format 1\n"), hashObject(`{"files":{}}`+"\n"), files))
		cmd := exec.Command("git", "commit-tree", root, "-m", "evil\n\nSnap-Session: evil\nSnap-Seq: 1\n")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@x", "GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@x")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSpace(string(out))
		_, _, err = s.Read(ctx, storage.NewID(id))
		if err == nil || !strings.Contains(err.Error(), "unsafe file") || !strings.Contains(err.Error(), ".git directory") {
			t.Errorf("%s: reading the hostile snapshot gave %v", evil, err)
		}
	}
}

// TestDiscoverFindsTheWorkTreeAsGitDoes: core.worktree was ignored (files
// restored landed next to .git), and GIT_DIR without GIT_WORK_TREE was
// taken as bare where git uses the current directory.
func TestDiscoverFindsTheWorkTreeAsGitDoes(t *testing.T) {
	root := t.TempDir()
	repo, elsewhere := filepath.Join(root, "repo"), filepath.Join(root, "wt")
	must(t, os.MkdirAll(elsewhere, 0o755))
	git(t, root, "init", "-q", repo)
	check := func(what, dir string, env GitEnv, want string) {
		t.Helper()
		p, err := Discover(dir, env)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if p.WorkTree != want {
			t.Errorf("%s: work tree %q, want %q", what, p.WorkTree, want)
		}
	}
	gitDir := filepath.Join(repo, ".git")
	check("found .git", repo, GitEnv{}, repo)
	check("GIT_DIR alone: the current directory", elsewhere, GitEnv{GitDir: gitDir}, elsewhere)
	check("GIT_DIR and GIT_WORK_TREE", root, GitEnv{GitDir: gitDir, WorkTree: "wt"}, elsewhere)
	git(t, repo, "config", "core.worktree", "../../wt")
	check("core.worktree, found .git", repo, GitEnv{}, elsewhere)
	check("core.worktree, GIT_DIR", root, GitEnv{GitDir: gitDir}, elsewhere)
	git(t, repo, "config", "--unset", "core.worktree")
	bare := filepath.Join(root, "bare.git")
	git(t, root, "init", "-q", "--bare", bare)
	check("bare, GIT_DIR", elsewhere, GitEnv{GitDir: bare}, "")
	check("bare, found", bare, GitEnv{}, "")
}
