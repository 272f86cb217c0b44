package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/storage"
)

// Tips lists the tip of every session ref, local ones under the ref
// prefix and those fetched from remotes (refs/remotes/<remote>/snap/),
// full ref name → commit. It reads no commit, so that a reader that keeps
// entries by id (a viewer refreshing its list) reads only the tips that
// moved; and while the directories holding those refs and packed-refs
// are as they were at the last call, it reads no ref either (see
// refsStamp). The map returned is the caller's.
func (s *Store) Tips(ctx context.Context) (map[string]storage.ID, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stamp, stable := s.refsStamp()
	if stable && stamp == s.tips.stamp && s.tips.refs != nil {
		return s.tips.refs.tips(), nil
	}
	local, err := s.refs.List(s.prefix)
	if err != nil {
		return nil, err
	}
	remote, err := s.refs.List("refs/remotes/")
	if err != nil {
		return nil, err
	}
	for ref, h := range remote {
		if _, rest, ok := strings.Cut(strings.TrimPrefix(ref, "refs/remotes/"), "/snap/"); ok && rest != "" {
			local[ref] = h
		}
	}
	s.tips.stamp, s.tips.refs = "", nil
	if stable {
		s.tips.stamp, s.tips.refs = stamp, tipListOf(local)
	}
	return local, nil
}

// tipsCache is what Tips read last, and the stamp of the refs then.
type tipsCache struct {
	stamp string
	refs  tipList
}

// tipList is a map of refs to tips as a list: a third of the map's
// memory, which a viewer of 100k sessions keeps while it runs.
type tipList []tipRef

type tipRef struct {
	ref string
	id  storage.ID
}

func tipListOf(m map[string]storage.ID) tipList {
	l := make(tipList, 0, len(m))
	for ref, id := range m {
		l = append(l, tipRef{ref, id})
	}
	return l
}

// tips is the map l was made of, the caller's.
func (l tipList) tips() map[string]storage.ID {
	m := make(map[string]storage.ID, len(l))
	for _, t := range l {
		m[t.ref] = t.id
	}
	return m
}

// refsStamp describes the places session refs live: the modification
// time and size of packed-refs, of the session ref directory and of each
// remote's snap/ directory. Writing a ref creates its lock file in its
// directory and renames it into place, and packing rewrites packed-refs,
// so any ref that moved changes the stamp (session names hold no "/", so
// those directories are flat). A stamp with a time under two seconds old
// is not stable: another write in the same clock tick would leave it as
// it is, as git treats a racily clean index.
func (s *Store) refsStamp() (string, bool) {
	var b strings.Builder
	now, stable := time.Now(), true
	stat := func(p string) {
		info, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(&b, "%s -\n", p)
			return
		}
		if now.Sub(info.ModTime()) < 2*time.Second {
			stable = false
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, info.ModTime().UnixNano(), info.Size())
	}
	root := s.paths.CommonDir
	stat(filepath.Join(root, "packed-refs"))
	stat(filepath.Join(root, filepath.FromSlash(s.prefix)))
	remotes := filepath.Join(root, "refs", "remotes")
	stat(remotes)
	entries, _ := os.ReadDir(remotes)
	for _, e := range entries {
		if e.IsDir() {
			stat(filepath.Join(remotes, e.Name()))
			stat(filepath.Join(remotes, e.Name(), "snap"))
		}
	}
	return b.String(), stable
}

// SessionOfRef names the session a ref from Tips holds, and the remote it
// was fetched from ("" for a local session). ok is false for a ref that
// holds no session.
func (s *Store) SessionOfRef(ref string) (session, remote string, ok bool) {
	if name, found := strings.CutPrefix(ref, s.prefix); found {
		return name, "", name != ""
	}
	rest, found := strings.CutPrefix(ref, "refs/remotes/")
	if !found {
		return "", "", false
	}
	remote, session, found = strings.Cut(rest, "/snap/")
	return session, remote, found && session != "" && remote != ""
}

// Files lists the files captured at snapshot e, reading trees only,
// none of their contents. e is as Entry, Walk or Read return it.
func (s *Store) Files(ctx context.Context, e storage.Entry) (storage.FileSet, error) {
	_, files, err := s.snapshotTree(ctx, e.Tree)
	if err != nil {
		return storage.FileSet{}, err
	}
	set := storage.FileSet{ID: storage.FileSetID(files)}
	err = s.reader.WalkFiles(files, func(path string, t gitobj.TreeEntry) error {
		if t.Mode != filemode.Regular && t.Mode != filemode.Executable && t.Mode != filemode.Symlink {
			return fmt.Errorf("the snapshot holds %s with mode %o, which is not a file", path, uint32(t.Mode))
		}
		set.Files = append(set.Files, storage.FileID{Path: path, Mode: fmt.Sprintf("%06o", uint32(t.Mode)), Blob: t.Hash})
		return nil
	})
	if err != nil {
		return storage.FileSet{}, fmt.Errorf("snapshot %s: %w", e.ID, err)
	}
	return set, nil
}

// Blob reads one stored blob, a captured file's content, within the
// store's object size limit.
func (s *Store) Blob(ctx context.Context, id storage.ID) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.blob(id)
}
