package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-snap/git-snap/storage"
)

// CodeFile reads a file of a code commit as git show COMMIT:PATH does,
// and says when there is none: a path not there, a folder, a commit not
// in the repository.
func TestCodeFile(t *testing.T) {
	dir, s := newRepo(t)
	must(t, os.MkdirAll(filepath.Join(dir, "pkg", "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "pkg", "sub", "a.go"), []byte("package sub\n"), 0o644))
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "second")
	head := storage.NewID(git(t, dir, "rev-parse", "HEAD"))
	ctx := context.Background()
	for _, c := range []struct {
		path, want string
		ok         bool
	}{
		{"pkg/sub/a.go", "package sub\n", true},
		{"main.go", "package main\n", true},
		{"pkg/sub", "", false},
		{"pkg/nosuch.go", "", false},
		{"main.go/x", "", false},
	} {
		data, ok, err := s.CodeFile(ctx, head, c.path)
		if err != nil || ok != c.ok || string(data) != c.want {
			t.Errorf("%s: %q, %v, %v", c.path, data, ok, err)
		}
	}
	if _, ok, err := s.CodeFile(ctx, storage.NewID("0123456789012345678901234567890123456789"), "main.go"); ok || err != nil {
		t.Errorf("a commit not in the repository: %v, %v", ok, err)
	}
}
