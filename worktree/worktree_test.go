package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

func file(path, content string) snapshot.File {
	return snapshot.File{Path: path, Mode: snapshot.ModeRegular, Content: []byte(content)}
}

// writeOne writes one file and returns its result.
func writeOne(t *testing.T, root string, f snapshot.File, o Options) Result {
	t.Helper()
	res, err := Write(root, []snapshot.File{f}, o)
	if err != nil {
		t.Fatalf("Write(%q): %v", f.Path, err)
	}
	return res[0]
}

// listAll lists every file under dir, to prove that nothing appeared.
func listAll(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error { // skip what cannot be read
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func TestWritesFilesAndModes(t *testing.T) {
	root := t.TempDir()
	files := []snapshot.File{
		file("src/main.go", "package main\n"),
		{Path: "bin/run", Mode: snapshot.ModeExecutable, Content: []byte("#!/bin/sh\n")},
		{Path: "link", Mode: snapshot.ModeSymlink, Content: []byte("src/main.go")},
	}
	res, err := Write(root, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Action != Written {
			t.Errorf("%s: %s %s", r.Path, r.Action, r.Reason)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/main.go")); string(b) != "package main\n" {
		t.Errorf("content %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(root, "bin/run")); fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("bin/run not executable: %v", fi.Mode())
	}
	if l, _ := os.Readlink(filepath.Join(root, "link")); l != "src/main.go" {
		t.Errorf("link -> %q", l)
	}
	// A second write has nothing to do.
	res, _ = Write(root, files, Options{})
	for _, r := range res {
		if r.Action != Unchanged {
			t.Errorf("second write of %s: %s", r.Path, r.Action)
		}
	}
}

func TestRefusesToOverwriteChangesWithoutForce(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("mine\n"), 0o644))
	r := writeOne(t, root, file("a.txt", "theirs\n"), Options{})
	if r.Action != Refused || !strings.Contains(r.Reason, "--force") {
		t.Errorf("got %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "mine\n" {
		t.Error("file overwritten without --force")
	}
	if r := writeOne(t, root, file("a.txt", "theirs\n"), Options{Force: true}); r.Action != Written {
		t.Errorf("with force: %+v", r)
	}
	if r := writeOne(t, root, file("new.txt", "x"), Options{DryRun: true}); r.Action != WouldWrite {
		t.Errorf("dry run: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Error("dry run wrote a file")
	}
}

// For hostile snapshots, nothing is written outside the work tree or
// into .git, whatever the path or the work tree's contents.
func TestNeverWritesOutsideTheWorkTree(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "work")
	outside := filepath.Join(base, "outside")
	must(t, os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755))
	must(t, os.MkdirAll(outside, 0o755))
	must(t, os.Symlink(outside, filepath.Join(root, "escape"))) // a symlink inside the work tree
	must(t, os.Symlink(filepath.Join(root, ".git"), filepath.Join(root, "gitlink")))
	must(t, os.WriteFile(filepath.Join(root, "plain"), []byte("x"), 0o644))
	must(t, os.Symlink(filepath.Join(outside, "target"), filepath.Join(root, "dangling")))
	long := strings.Repeat("d/", 2100) + "f"
	for _, f := range []snapshot.File{
		file("../outside/x", "x"),
		file("/etc/passwd", "x"),
		file(".git/hooks/pre-commit", "#!/bin/sh\n"),
		file(".GIT/config", "x"),
		file(".Git/hooks/x", "x"),
		file(".g\u200cit/hooks/x", "x"),
		file(".git\ufeff/config", "x"),
		file(".git./config", "x"),
		file(".git /config", "x"),
		file(".git::$INDEX_ALLOCATION/config", "x"),
		file("GIT~1/config", "x"),
		file("sub/.git/config", "x"),
		file("escape/x", "x"),
		file("escape/deep/x", "x"),
		file("gitlink/hooks/pre-commit", "x"),
		file("plain/x", "x"),
		file("a\\..\\..\\x", "x"),
		file("a/../../x", "x"),
		file("a/./x", "x"),
		file("a//x", "x"),
		file("tab\there", "x"),
		file(long, "x"),
		file(strings.Repeat("n", 300), "x"),
		{Path: "dangling", Mode: snapshot.ModeRegular, Content: []byte("x")},
	} {
		r := writeOne(t, root, f, Options{Force: f.Path == "dangling"})
		if f.Path == "dangling" {
			// Replacing the symlink itself is allowed with force, but its
			// target outside the work tree must stay untouched.
			if r.Action != Written {
				t.Errorf("dangling: %+v", r)
			}
			continue
		}
		if r.Action != Refused {
			t.Errorf("%.60q was %s", f.Path, r.Action)
		}
	}
	if got := listAll(t, outside); len(got) != 0 {
		t.Errorf("files appeared outside the work tree: %v", got)
	}
	if got := listAll(t, filepath.Join(root, ".git")); len(got) != 1 || got[0] != "hooks" {
		t.Errorf(".git changed: %v", got)
	}
	if fi, err := os.Lstat(filepath.Join(root, "dangling")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("dangling symlink was not replaced by a file: %v %v", fi, err)
	}
}

func TestFileWhereDirectoryIsExpected(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "dir"), 0o755))
	if r := writeOne(t, root, file("dir", "x"), Options{Force: true}); r.Action != Refused || !strings.Contains(r.Reason, "directory") {
		t.Errorf("got %+v", r)
	}
}

// must fails the test immediately if a setup step fails.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
