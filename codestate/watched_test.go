package codestate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/watchman/watchmantest"
)

// edit is a change a shell command makes to a work tree, and whether
// the fast path is expected to follow it (false: it goes to git status,
// as it must after the index, HEAD or an ignore file moved).
type edit struct {
	name string
	do   func(t *testing.T, dir string)
	fast bool
}

func write(name, content string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func remove(name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) { must(t, os.RemoveAll(filepath.Join(dir, filepath.FromSlash(name)))) }
}

func rename(from, to string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		must(t, os.Rename(filepath.Join(dir, filepath.FromSlash(from)), filepath.Join(dir, filepath.FromSlash(to))))
	}
}

func chmod(name string, mode os.FileMode) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) { must(t, os.Chmod(filepath.Join(dir, filepath.FromSlash(name)), mode)) }
}

func symlink(target, name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		_ = os.Remove(p)
		must(t, os.Symlink(target, p))
	}
}

func gitDo(args ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) { git(t, dir, args...) }
}

func steps(fs ...func(t *testing.T, dir string)) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		for _, f := range fs {
			f(t, dir)
		}
	}
}

// shellEdits is the list every design is held to: each is what a shell
// command does to a work tree, in turn, on what the ones before left.
var shellEdits = []edit{
	{"create a file", write("new.txt", "new\n"), true},
	{"modify a tracked file", write("main.go", "package main // edited\n"), true},
	{"delete a tracked file", remove("lib/util.go"), true},
	{"rename a tracked file", rename("lib/strings.go", "lib/text.go"), true},
	{"make a file executable", chmod("run.sh", 0o755), true},
	{"make it not executable again", chmod("run.sh", 0o644), true},
	{"create an ignored file", write("debug.log", "log\n"), true},
	{"create a file in an ignored directory", write("build/out/app", "bin\n"), true},
	{"create a file a '!' pattern keeps", write("keep.log", "kept\n"), true},
	{"create nested new folders", write("a/b/c/d.txt", "deep\n"), true},
	{"create an empty folder", func(t *testing.T, dir string) { must(t, os.MkdirAll(filepath.Join(dir, "empty", "er"), 0o755)) }, true},
	{"create a symbolic link", symlink("main.go", "link.go"), true},
	{"point a tracked link elsewhere", symlink("README", "tracked-link"), true},
	{"change a file and change it back", steps(write("README", "changed\n"), write("README", "read me\n")), true},
	{"touch a file", func(t *testing.T, dir string) {
		p := filepath.Join(dir, "docs", "guide.md")
		b, _ := os.ReadFile(p)
		must(t, os.WriteFile(p, b, 0o644))
	}, true},
	{"create then delete a file", steps(write("tmp.txt", "x\n"), remove("tmp.txt")), true},
	{"rename a directory of tracked files", rename("docs", "manual"), true},
	{"delete a directory of tracked files", remove("pkg"), true},
	{"replace a tracked file with a directory", steps(remove("conf.yaml"), write("conf.yaml/inner.yaml", "x: 1\n")), true},
	{"a name with spaces and accents", write("notes/réunion du lundi.txt", "ok\n"), true},
	{"a file in a repository inside", steps(gitDo("init", "-q", "inner"), write("inner/x.txt", "x\n")), false},
	{"remove the repository inside", remove("inner"), false},
	{"stage a change", gitDo("add", "main.go"), false},
	{"change the staged file again", write("main.go", "package main // edited twice\n"), true},
	{"delete the staged file", remove("main.go"), true},
	{"edit .gitignore", write(".gitignore", "*.log\n!keep.log\nbuild/\n*.tmp\n"), false},
	{"create a file the new rule ignores", write("x.tmp", "tmp\n"), true},
	{"commit everything", steps(gitDo("add", "-A"), gitDo("commit", "-q", "-m", "all")), false},
	{"modify after the commit", write("new.txt", "newer\n"), true},
	{"switch branch", gitDo("checkout", "-q", "-b", "other"), false},
	{"delete the index's copy of a file (git rm --cached)", gitDo("rm", "-q", "--cached", "new.txt"), false},
	{"modify the file the index lost", write("new.txt", "newest\n"), true},
}

// newEditRepo makes the repository the edits start from.
func newEditRepo(t *testing.T) string {
	dir := newRepo(t)
	for name, content := range map[string]string{
		".gitignore": "*.log\n!keep.log\nbuild/\n", "lib/util.go": "package lib\n", "lib/strings.go": "package lib // s\n",
		"run.sh": "#!/bin/sh\n", "README": "read me\n", "docs/guide.md": "# guide\n", "docs/api/ref.md": "# ref\n",
		"pkg/a/a.go": "package a\n", "pkg/b.go": "package pkg\n", "conf.yaml": "x: 0\n",
	} {
		write(name, content)(t, dir)
	}
	must(t, os.Symlink("main.go", filepath.Join(dir, "tracked-link")))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "files")
	return dir
}

// fastOptions reads dir's state through watchman at sock.
func fastOptions(dir, sock, config string) Options {
	return Options{Dir: dir, Changed: true, Watchman: sock, GitDir: filepath.Join(dir, ".git"), CommonDir: filepath.Join(dir, ".git"), UserConfigDir: config}
}

// TestShellEditsAsGitStatusSeesThem runs the list of edits and checks
// after each that git status, as this package runs it, and the fast
// path through watchman say what git status says.
func TestShellEditsAsGitStatusSeesThem(t *testing.T) {
	wm := watchmantest.Start(t)
	dir := newEditRepo(t)
	config := t.TempDir()
	ctx := context.Background()
	if st, err := Read(ctx, fastOptions(dir, wm.Sock, config)); err != nil || st.Watched {
		t.Fatalf("first call: %+v, %v (a first call scans)", st, err)
	}
	for _, e := range shellEdits {
		e.do(t, dir)
		want := gitStatus(t, dir)
		if got := read(t, dir, true); !sameState(got, want) {
			t.Errorf("%s: git status through Read says %+v, git status %+v", e.name, got, want)
		}
		got, err := Read(ctx, fastOptions(dir, wm.Sock, config))
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if !sameState(got, want) {
			t.Errorf("%s: the fast path says %+v, git status %+v", e.name, got, want)
		}
		if got.Watched != e.fast {
			t.Errorf("%s: watched = %v, want %v", e.name, got.Watched, e.fast)
		}
	}
}

// gitStatus is what git status says, read independently of Read.
func gitStatus(t *testing.T, dir string) State {
	out := git(t, dir, "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-renames", "--untracked-files=all")
	st, err := Parse([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func sameState(a, b State) bool {
	a.Watched, b.Watched = false, false
	if len(a.Changed) == 0 && len(b.Changed) == 0 {
		a.Changed, b.Changed = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// A restarted watchman knows nothing of the clock the state was kept
// at: the call scans again, and the one after it follows changes.
func TestWatchmanRestartedScansAgain(t *testing.T) {
	wm := watchmantest.Start(t)
	dir := newEditRepo(t)
	o := fastOptions(dir, wm.Sock, t.TempDir())
	ctx := context.Background()
	if _, err := Read(ctx, o); err != nil {
		t.Fatal(err)
	}
	wm.Restart()
	write("after.txt", "x\n")(t, dir)
	st, err := Read(ctx, o)
	if err != nil || st.Watched || !sameState(st, gitStatus(t, dir)) {
		t.Fatalf("after a restart: %+v, %v; want a scan that says %+v", st, err, gitStatus(t, dir))
	}
	write("later.txt", "x\n")(t, dir)
	if st, err := Read(ctx, o); err != nil || !st.Watched || !sameState(st, gitStatus(t, dir)) {
		t.Fatalf("the call after: %+v, %v; want the fast path saying %+v", st, err, gitStatus(t, dir))
	}
}

// Hundreds of changed files are quicker for git status to read than one
// at a time.
func TestManyChangesScanAgain(t *testing.T) {
	wm := watchmantest.Start(t)
	dir := newEditRepo(t)
	o := fastOptions(dir, wm.Sock, t.TempDir())
	ctx := context.Background()
	if _, err := Read(ctx, o); err != nil {
		t.Fatal(err)
	}
	for i := range maxWatched + 1 {
		write(fmt.Sprintf("many/f%03d.txt", i), "x\n")(t, dir)
	}
	st, err := Read(ctx, o)
	if err != nil || st.Watched || !sameState(st, gitStatus(t, dir)) {
		t.Fatalf("%d new files: %+v, %v; want a scan", maxWatched+1, st, err)
	}
}

// Without a server at the socket the state is git status's, and no call
// waits for one.
func TestNoWatchmanIsGitStatus(t *testing.T) {
	dir := newEditRepo(t)
	write("new.txt", "x\n")(t, dir)
	o := fastOptions(dir, filepath.Join(t.TempDir(), "no-such-sock"), t.TempDir())
	st, err := Read(context.Background(), o)
	if err != nil || st.Watched || !sameState(st, gitStatus(t, dir)) {
		t.Fatalf("%+v, %v", st, err)
	}
	if _, err := os.Stat(cachePath(o.GitDir)); err == nil {
		t.Error("a cache was kept without a watcher to keep it true")
	}
}

// The ignore rules read in Go are git's: each pattern against each path,
// compared with git check-ignore.
func TestIgnoreRulesAreGits(t *testing.T) {
	dir := newRepo(t)
	rules := strings.Join([]string{
		"*.o", "/top-only", "dir-only/", "a/**/z", "**/any", "x/**", "not\\#comment", "\\!bang", "tr\\ ",
		"[abc]?.txt", "[!a-c]x.txt", "*.[oa]", "doc/*.md", "!doc/keep.md", "deep/**/*.gen", "[[:digit:]]*.num", "sp ace  ",
		"logs/", "!logs/important.txt", "m/**/n/*.c", "**/o/p", "qq/**/", "*[[:upper:]]*", "[a-]z.dash", "[]]br", "w/*/v",
	}, "\n") + "\n"
	write(".gitignore", rules)(t, dir)
	write("sub/.gitignore", "local\n!*.o\n/anchored\n")(t, dir)
	paths := []string{
		"x.o", "sub/x.o", "top-only", "sub/top-only", "dir-only/f", "f/dir-only/g", "a/z", "a/b/z", "a/b/c/z", "b/a/z",
		"any", "q/any", "q/r/any", "x/y", "x/w/z", "#comment", "not#comment", "!bang", "bang", "tr ", "tr",
		"ax.txt", "dx.txt", "bx.txt", "abx.txt", "lib.a", "doc/a.md", "doc/keep.md", "doc/sub/b.md", "deep/q.gen", "deep/a/b/q.gen",
		"1.num", "a1.num", "sp ace", "sub/local", "sub/deeper/local", "sub/anchored", "sub/deeper/anchored", "plain.txt",
		"logs/important.txt", "logs/x", "m/n/f.c", "m/1/2/n/f.c", "m/n/g/f.c", "o/p", "z/o/p", "qq/f", "qq/r/f",
		"HasUpper", "az.dash", "-z.dash", "bz.dash", "]br", "w/1/v", "w/1/2/v",
	}
	ig, err := newIgnorer(dir, filepath.Join(dir, ".git", "info", "exclude"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		write(p, "x\n")(t, dir)
	}
	out := gitAllowFail(t, dir, append([]string{"check-ignore", "--no-index", "--"}, paths...)...)
	ignoredByGit := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		ignoredByGit[l] = true
	}
	for _, p := range paths {
		got, err := ig.ignored(p)
		if err != nil {
			t.Fatal(err)
		}
		if got != ignoredByGit[p] {
			t.Errorf("%s: ignored = %v, git check-ignore says %v", p, got, ignoredByGit[p])
		}
	}
}
