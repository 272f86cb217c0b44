package pack

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/gitstore/internal/gittest"
)

// packOf is what git pack-objects writes for the revisions given (one a
// line on its standard input, as --revs reads them).
func packOf(t *testing.T, dir string, revs string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", append([]string{"pack-objects", "--revs", "--stdout", "-q"}, args...)...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(revs)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git pack-objects: %v", err)
	}
	return out
}

// historyRepo is a repository of ten commits, each changing a file a
// little, so that git's packs hold deltas.
func historyRepo(t *testing.T) string {
	dir := gittest.Repo(t)
	var body strings.Builder
	for i := range 10 {
		fmt.Fprintf(&body, "line %d of a file that grows a little each commit\n", i)
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(body.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Git(t, dir, "add", ".")
		gittest.Git(t, dir, "commit", "-q", "-m", fmt.Sprint("c", i))
	}
	return dir
}

// Receive indexes a pack as git index-pack does: the same index, byte
// for byte, the pack in place under its checksum, and git reads every
// object of it.
func TestReceiveIndexesAsGit(t *testing.T) {
	src := historyRepo(t)
	data := packOf(t, src, "main\n")
	dst := gittest.Repo(t)
	dir := filepath.Join(dst, ".git", "objects", "pack")
	name, err := Receive(dir, "tmp_pack_", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if name == "" || !strings.HasPrefix(name, "pack-") {
		t.Fatalf("name %q", name)
	}
	gitIdx := filepath.Join(t.TempDir(), "git.idx")
	cmd := exec.Command("git", "index-pack", "-o", gitIdx, filepath.Join(dir, name+".pack"))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), strings.TrimPrefix(name, "pack-")) {
		t.Fatalf("git index-pack: %v %s", err, out)
	}
	ours, _ := os.ReadFile(filepath.Join(dir, name+".idx"))
	theirs, _ := os.ReadFile(gitIdx)
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("index of %d bytes, git index-pack's %d", len(ours), len(theirs))
	}
	gittest.Git(t, dst, "verify-pack", filepath.Join(dir, name+".idx"))
	if got := gittest.Git(t, dst, "rev-list", "--objects", gittest.Git(t, src, "rev-parse", "main")); got == "" {
		t.Fatal("git lists nothing")
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "tmp_pack_*"))
	if len(leftovers) != 0 {
		t.Fatalf("left %v", leftovers)
	}
}

// A pack Receive cannot take leaves nothing: one whose deltas name
// objects it does not hold (git's --thin), one cut short, one with a
// byte changed, and one of no object.
func TestReceiveRefusesAndLeavesNothing(t *testing.T) {
	src := historyRepo(t)
	full := packOf(t, src, "main\n")
	damaged := bytes.Clone(full)
	damaged[len(damaged)/2] ^= 0xff
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"thin", packOf(t, src, "main\n^main~1\n", "--thin"), false},
		{"cut short", full[:len(full)-30], false},
		{"a byte changed", damaged, false},
		{"not a pack", []byte("PACK but no"), false},
		{"no object", packOf(t, src, "main\n^main\n"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name, err := Receive(dir, "tmp_pack_", bytes.NewReader(tc.data))
			if (err == nil) != tc.ok || name != "" {
				t.Fatalf("Receive gave %q, %v", name, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left %d files", len(left))
			}
		})
	}
}
