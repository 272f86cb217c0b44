package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/storage"
)

// Head returns the commit HEAD points at, ZeroHash when HEAD is unborn.
func (s *Store) Head() (storage.ID, error) {
	b, err := os.ReadFile(filepath.Join(s.paths.GitDir, "HEAD"))
	if err != nil {
		return storage.ID{}, fmt.Errorf("read HEAD: %w", err)
	}
	line := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(line, "ref:"); ok {
		return s.refs.Read(strings.TrimSpace(target))
	}
	return refs.ParseValue("HEAD", []byte(line))
}

// CodeRef resolves a code revision of the repository, for matching
// snapshots to code: HEAD, a branch, a tag or a full ref name.
func (s *Store) CodeRef(name string) (storage.ID, error) {
	if name == "HEAD" {
		h, err := s.Head()
		if err == nil && h.IsZero() {
			return h, &storage.RevisionError{Rev: name, Msg: "HEAD has no commit yet"}
		}
		return h, err
	}
	for _, ref := range []string{name, "refs/heads/" + name, "refs/tags/" + name, "refs/remotes/" + name} {
		if !strings.HasPrefix(ref, "refs/") {
			continue
		}
		h, err := s.refs.Read(ref)
		if err != nil {
			return storage.ID{}, err
		}
		if !h.IsZero() {
			return s.peel(h)
		}
	}
	return storage.ID{}, &storage.RevisionError{Rev: name, Msg: "names no commit: give a commit id, HEAD, a branch or a tag"}
}

// CodeFile reads a file of a code commit: path (from the work tree's
// root, with slashes) in commit's tree. ok is false when the commit or
// the path is not there, or is no regular file: a store separate from
// the code holds none of its objects.
func (s *Store) CodeFile(ctx context.Context, commit storage.ID, path string) (data []byte, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	c, err := s.st.commit(commit)
	if err != nil {
		return nil, false, nil
	}
	id := c.Tree
	parts := strings.Split(path, "/")
	for i, name := range parts {
		t, err := s.st.tree(id)
		if err != nil {
			return nil, false, nil
		}
		found := false
		for _, e := range t.Entries {
			if e.Name != name {
				continue
			}
			last := i == len(parts)-1
			if last && e.Mode != filemode.Regular && e.Mode != filemode.Executable || !last && e.Mode != filemode.Dir {
				return nil, false, nil
			}
			id, found = e.Hash, true
			break
		}
		if !found {
			return nil, false, nil
		}
	}
	data, err = s.blob(id)
	return data, err == nil, err
}
