package refs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/gitstore/internal/gittest"
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
