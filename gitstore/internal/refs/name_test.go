package refs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// CheckName agrees with git check-ref-format on every name tried under
// refs/, and refuses every name outside it.
func TestCheckNameAgreesWithGit(t *testing.T) {
	names := []string{
		"refs/snap/s1", "refs/tags/snap/s1/green", "refs/heads/main", "refs/snap/a.b-c_d",
		"refs/snap/../heads/x", "refs/snap/..", "refs/snap/.hidden", "refs/snap/x.lock", "refs/snap/x.",
		"refs/snap/a//b", "refs/snap/", "refs/", "heads/main", "refs/snap/a b", "refs/snap/a~1",
		"refs/snap/a^", "refs/snap/a:b", "refs/snap/a?", "refs/snap/a*", "refs/snap/a[b", "refs/snap/a\\b",
		"refs/snap/a@{1}", "refs/snap/\x01", "refs/snap/a..b", "refs/tags/snap/../../../../tmp/x",
	}
	for _, name := range names {
		gitOK := exec.Command("git", "check-ref-format", name).Run() == nil && strings.HasPrefix(name, "refs/") // and only refs/
		if ok := CheckName(name) == nil; ok != gitOK {
			t.Errorf("CheckName(%q) ok=%v, git check-ref-format ok=%v", name, ok, gitOK)
		}
	}
}

func TestRefusedNamesNeverTouchTheDisk(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "OUTSIDE")
	s := New(dir, Options{})
	id := storage.NewID("0123456789012345678901234567890123456789")
	for _, name := range []string{"refs/snap/../../" + outside, "refs/snap/../heads/main", "refs/snap/x.lock"} {
		if err := s.Update(context.Background(), name, storage.ID{}, id, "test"); err == nil {
			t.Errorf("Update(%q) succeeded", name)
		}
		if h, err := s.Read(name); err != nil || !h.IsZero() {
			t.Errorf("Read(%q) = %s, %v", name, h, err)
		}
	}
	if _, err := s.List("refs/snap/../"); err == nil {
		t.Error("List of a prefix with .. succeeded")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a file appeared outside the repository")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refs directory holds %d entries", len(entries))
	}
}
