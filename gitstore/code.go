package gitstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-snap/git-snap/gitstore/internal/refs"
)

// CodeState is the code a snapshot was taken at.
type CodeState struct {
	Commit plumbing.Hash // HEAD's commit; ZeroHash when unborn or bare
	Dirty  bool          // tracked files differ from Commit
}

// CodeState reads the work tree's HEAD and whether tracked files differ
// from it, staged or not, as `git describe --dirty` does: untracked files
// do not count. It compares file stat data with the index and hashes
// only files whose stat data changed, so it costs about a stat per file.
func (s *Store) CodeState(ctx context.Context) (CodeState, error) {
	if s.paths.WorkTree == "" {
		return CodeState{}, nil
	}
	head, err := s.Head()
	if err != nil || head.IsZero() {
		return CodeState{}, err
	}
	idx, err := s.readIndex()
	if err != nil {
		return CodeState{Commit: head}, err
	}
	if idx == nil {
		return CodeState{Commit: head, Dirty: true}, nil
	}
	dirty, err := s.worktreeDiffers(ctx, idx)
	if err != nil || dirty {
		return CodeState{Commit: head, Dirty: dirty}, err
	}
	staged, err := s.indexDiffersFromHead(idx, head)
	return CodeState{Commit: head, Dirty: staged}, err
}

// Head returns the commit HEAD points at, ZeroHash when HEAD is unborn.
func (s *Store) Head() (plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(s.paths.GitDir, "HEAD"))
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read HEAD: %w", err)
	}
	line := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(line, "ref:"); ok {
		return s.refs.Read(strings.TrimSpace(target))
	}
	return refs.ParseValue("HEAD", []byte(line))
}

func (s *Store) readIndex() (*index.Index, error) {
	f, err := os.Open(filepath.Join(s.paths.GitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	idx := &index.Index{}
	if err := index.NewDecoder(bufio.NewReader(f)).Decode(idx); err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	return idx, nil
}

func (s *Store) worktreeDiffers(ctx context.Context, idx *index.Index) (bool, error) {
	for _, e := range idx.Entries {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if e.SkipWorktree || e.Mode == filemode.Submodule {
			continue
		}
		// Stage 0 is a merged entry; go-git's index.Merged constant says 1.
		if e.Stage != 0 || e.IntentToAdd {
			return true, nil
		}
		if changed, err := s.fileChanged(e); changed || err != nil {
			return changed, err
		}
	}
	return false, nil
}

// fileChanged trusts matching stat data, as git does, and hashes the
// file when size or time differ.
func (s *Store) fileChanged(e *index.Entry) (bool, error) {
	path := filepath.Join(s.paths.WorkTree, filepath.FromSlash(e.Name))
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	mode, err := filemode.NewFromOSFileMode(fi.Mode())
	if err != nil || mode != e.Mode {
		return true, nil
	}
	if uint32(fi.Size()) == e.Size && fi.ModTime().Equal(e.ModifiedAt) {
		return false, nil
	}
	var data []byte
	if mode == filemode.Symlink {
		target, err := os.Readlink(path)
		if err != nil {
			return false, err
		}
		data = []byte(target)
	} else if data, err = os.ReadFile(path); err != nil {
		return false, err
	}
	return plumbing.ComputeHash(plumbing.BlobObject, data) != e.Hash, nil
}

// indexDiffersFromHead uses the index's cached root tree when valid, and
// otherwise compares every entry with HEAD's tree.
func (s *Store) indexDiffersFromHead(idx *index.Index, head plumbing.Hash) (bool, error) {
	if idx.Cache != nil && len(idx.Cache.Entries) > 0 {
		if root := idx.Cache.Entries[0]; root.Path == "" && root.Entries >= 0 {
			tree, err := s.treeOfCommit(head)
			return root.Hash != tree, err
		}
	}
	c, err := object.GetCommit(s.st, head)
	if err != nil {
		return false, fmt.Errorf("read HEAD commit: %w", err)
	}
	tree, err := c.Tree()
	if err != nil {
		return false, err
	}
	n := 0
	differs := false
	err = tree.Files().ForEach(func(f *object.File) error {
		n++
		e, err := idx.Entry(f.Name)
		if err != nil || e.Hash != f.Hash || e.Mode != f.Mode {
			differs = true
			return errStopIter
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopIter) {
		return false, err
	}
	return differs || n != len(idx.Entries), nil
}

var errStopIter = errors.New("stop")

// CodeRef resolves a code revision of the repository, for matching
// snapshots to code: HEAD, a branch, a tag or a full ref name.
func (s *Store) CodeRef(name string) (plumbing.Hash, error) {
	if name == "HEAD" {
		h, err := s.Head()
		if err == nil && h.IsZero() {
			return h, &RevisionError{name, "HEAD has no commit yet"}
		}
		return h, err
	}
	for _, ref := range []string{name, "refs/heads/" + name, "refs/tags/" + name, "refs/remotes/" + name} {
		if !strings.HasPrefix(ref, "refs/") {
			continue
		}
		h, err := s.refs.Read(ref)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if !h.IsZero() {
			return s.peel(h)
		}
	}
	return plumbing.ZeroHash, &RevisionError{name, "names no commit: give a commit id, HEAD, a branch or a tag"}
}

// treeOfCommit returns a commit's tree id, from a one-line cache under
// .git/snap/ when it holds that commit: commits never change, and reading
// one from a pack means loading the pack's index, which a save should not
// pay for on every call.
func (s *Store) treeOfCommit(commit plumbing.Hash) (plumbing.Hash, error) {
	path := filepath.Join(s.paths.CommonDir, "snap", "cache", "head-tree")
	if b, err := os.ReadFile(path); err == nil {
		if c, t, ok := strings.Cut(strings.TrimSpace(string(b)), " "); ok && c == commit.String() && plumbing.IsHash(t) {
			return plumbing.NewHash(t), nil
		}
	}
	c, err := object.GetCommit(s.st, commit)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", commit, err)
	}
	writeFileAtomic(path, []byte(commit.String()+" "+c.TreeHash.String()+"\n"))
	return c.TreeHash, nil
}
