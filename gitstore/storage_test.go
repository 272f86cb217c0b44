package gitstore_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/storage"
	"github.com/git-snap/git-snap/storage/storagetest"
)

// TestStorage holds the git store to what every store does.
func TestStorage(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) func() storage.Storage {
		dir := t.TempDir()
		if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		return func() storage.Storage {
			s, err := gitstore.Open(context.Background(), dir, gitstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	})
}
