package refs

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/gitstore/internal/gittest"
	"github.com/git-snap/git-snap/storage"
)

// Every ref git packed is found by bisection, as git finds it, and names
// between them, before the first and after the last are not.
func TestReadPackedAgreesWithGit(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	var lines []string
	for i := 0; i < 300; i += 3 {
		lines = append(lines, fmt.Sprintf("create refs/snap/s%03d HEAD", i))
		if i%30 == 0 {
			lines = append(lines, fmt.Sprintf("create refs/tags/snap/s%03d/cp HEAD", i))
		}
	}
	gittest.GitIn(t, dir, strings.Join(lines, "\n")+"\n", "update-ref", "--stdin")
	for i := 0; i < 300; i += 30 { // annotated tags give peeled lines
		gittest.Git(t, dir, "tag", "-a", "-m", "x", fmt.Sprintf("t%03d", i))
	}
	gittest.Git(t, dir, "pack-refs", "--all")
	s := New(filepath.Join(dir, ".git"), Options{})
	want := map[string]string{}
	for _, line := range strings.Split(gittest.Git(t, dir, "for-each-ref", "--format=%(objectname) %(refname)"), "\n") {
		id, name, _ := strings.Cut(line, " ")
		want[name] = id
	}
	for i := -1; i < 302; i++ {
		for _, name := range []string{fmt.Sprintf("refs/snap/s%03d", i), fmt.Sprintf("refs/tags/t%03d", i), fmt.Sprintf("refs/tags/snap/s%03d/cp", i)} {
			h, err := s.Read(name)
			if err != nil {
				t.Fatal(err)
			}
			if got := h.String(); want[name] != "" && got != want[name] || want[name] == "" && !h.IsZero() {
				t.Errorf("Read(%s) = %s, git says %q", name, got, want[name])
			}
		}
	}
}

// A packed-refs file that does not say it is sorted is scanned.
func TestReadPackedUnsorted(t *testing.T) {
	dir := t.TempDir()
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	must(t, os.WriteFile(filepath.Join(dir, "packed-refs"), []byte("# pack-refs with: peeled\n"+b+" refs/snap/z\n"+a+" refs/snap/a\n"), 0o644))
	s := New(dir, Options{})
	for name, want := range map[string]string{"refs/snap/z": b, "refs/snap/a": a, "refs/snap/m": strings.Repeat("0", 40)} {
		if h, err := s.Read(name); err != nil || h.String() != want {
			t.Errorf("Read(%s) = %s, %v; want %s", name, h, err, want)
		}
	}
}

// List reads packed refs by bisection to the prefix, as git lists them:
// every prefix gives what git for-each-ref gives, whether the prefix
// sorts first, last, between others ("refs/snap-tags/" sorts before
// "refs/snap/"), among peeled tags or names nothing; and the same once
// packed-refs no longer says it is sorted.
func TestListPackedAgreesWithGit(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	var lines []string
	for i := 0; i < 200; i += 7 {
		lines = append(lines, fmt.Sprintf("create refs/snap/s%03d HEAD", i), fmt.Sprintf("create refs/snap-tags/s%03d/cp HEAD", i))
		if i%21 == 0 {
			lines = append(lines, fmt.Sprintf("create refs/tags/snap/s%03d/cp HEAD", i), fmt.Sprintf("create refs/snap-moved/s%03d/cp/x HEAD", i))
		}
	}
	gittest.GitIn(t, dir, strings.Join(lines, "\n")+"\n", "update-ref", "--stdin")
	for i := 0; i < 200; i += 40 {
		gittest.Git(t, dir, "tag", "-a", "-m", "x", fmt.Sprintf("t%03d", i))
		gittest.Git(t, dir, "tag", "-a", "-m", "x", fmt.Sprintf("snap/z%03d/cp", i))
	}
	gittest.Git(t, dir, "pack-refs", "--all")
	s := New(filepath.Join(dir, ".git"), Options{})
	prefixes := []string{"refs/snap/", "refs/snap-tags/", "refs/snap-moved/", "refs/tags/", "refs/tags/snap/",
		"refs/heads/", "refs/remotes/", "refs/a/", "refs/zzz/", "refs/snap/s000/", "refs/tags/snap/z040/"}
	wants := map[string]map[string]storage.ID{}
	for _, prefix := range prefixes {
		wants[prefix] = map[string]storage.ID{}
		if out := gittest.Git(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", prefix); out != "" {
			for _, line := range strings.Split(out, "\n") {
				id, name, _ := strings.Cut(line, " ")
				wants[prefix][name] = storage.NewID(id)
			}
		}
	}
	check := func(when string) {
		for _, prefix := range prefixes {
			got, err := s.List(prefix)
			if err != nil {
				t.Fatal(err)
			}
			if want := wants[prefix]; !maps.Equal(got, want) {
				t.Errorf("%s: List(%s) = %d refs %v, git: %d %v", when, prefix, len(got), got, len(want), want)
			}
		}
	}
	check("sorted")
	path := filepath.Join(dir, ".git", "packed-refs")
	b, err := os.ReadFile(path)
	must(t, err)
	header, rest, _ := strings.Cut(string(b), "\n")
	var recs []string // each with its peeled line
	for _, line := range strings.SplitAfter(rest, "\n") {
		if strings.HasPrefix(line, "^") {
			recs[len(recs)-1] += line
		} else {
			recs = append(recs, line)
		}
	}
	slices.Reverse(recs)
	must(t, os.WriteFile(path, []byte(strings.Replace(header, " sorted", "", 1)+"\n"+strings.Join(recs, "")), 0o644))
	check("unsorted")
}

// FoldTwin finds a name that differs only in case among loose and packed
// refs, by a scan the first time and an index after, and sees packed-refs
// rewritten in between.
func TestFoldTwin(t *testing.T) {
	dir := t.TempDir()
	a := strings.Repeat("a", 40)
	write := func(lines ...string) {
		must(t, os.WriteFile(filepath.Join(dir, "packed-refs"), []byte("# pack-refs with: peeled fully-peeled sorted \n"+strings.Join(lines, "\n")+"\n"), 0o644))
	}
	write(a+" refs/snap-tags/fix/cp", a+" refs/snap/Fix", a+" refs/snap/other", a+" refs/tags/fix")
	must(t, os.MkdirAll(filepath.Join(dir, "refs", "snap"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "refs", "snap", "Loose"), []byte(a+"\n"), 0o644))
	s := New(dir, Options{})
	check := func(name, want string) {
		t.Helper()
		if got, err := s.FoldTwin("refs/snap/", name); err != nil || got != want {
			t.Errorf("FoldTwin(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for range 3 { // a scan, then the index built, then the index read
		check("fix", "Fix")
		check("FIX", "Fix")
		check("loose", "Loose")
		check("Loose", "")
		check("other", "")
		check("cp", "")
		check("new", "")
	}
	time.Sleep(10 * time.Millisecond) // a new stat for the rewritten file
	write(a+" refs/snap/fiX", a+" refs/snap/other")
	check("fix", "fiX")
	check("Fix", "fiX")
	check("OTHER", "other")
}
