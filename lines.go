package gitsnap

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/storage"
)

// BlameOptions say which file to blame, as git blame takes it.
type BlameOptions struct {
	// Dir is where the user is: FILE is read from there and git runs
	// there ("": the store's work tree).
	Dir    string
	Rev    string   // "" for HEAD
	File   string   // as the user gave it: relative to Dir, or absolute
	Ranges []string // -L, each as git blame takes it
	// Progress, when set, is told how far a first reading of many
	// sessions has got.
	Progress func(done, of int)
}

// Blame says who wrote each line of a file at a revision: the agent
// session, snapshot and prompt whose capture introduced it, when the
// commit that brought it in is the session's, a rewrite or a copy of
// one; else a person, or unknown (see package provenance). A path
// outside the repository, a binary file, a revision or a path that is
// not there are a *provenance.InputError.
func (r *Repository) Blame(ctx context.Context, o BlameOptions) (*provenance.File, error) {
	code := r.codeRepo(o.Dir)
	rel, err := code.inRepo(ctx, o.File, r.Paths().WorkTree)
	if err != nil {
		return nil, err
	}
	po, err := r.lineOptions(ctx, code, o.Progress)
	if err != nil {
		return nil, err
	}
	if wt := r.Paths().WorkTree; wt != "" && code.gitDir == "" && sameTree(code.dir, wt) {
		// HEAD is read from the refs: one process fewer beside git
		// blame. Other names are git's to read, as git reads them.
		po.Commit = func(rev string) (storage.ID, bool) {
			if rev != "HEAD" {
				return storage.ID{}, false
			}
			id, err := r.store.CodeRef(rev)
			return id, err == nil && !id.IsZero()
		}
	}
	return provenance.Blame(ctx, r.store, po, provenance.Query{Rev: o.Rev, Path: rel, Ranges: o.Ranges})
}

// RangeLines says who wrote the lines a range's commits added that its
// last commit still holds: per file, per session, per model.
func (r *Repository) RangeLines(ctx context.Context, cr CodeRange, progress func(done, of int)) (*provenance.Changes, error) {
	po, err := r.lineOptions(ctx, cr.code, progress)
	if err != nil {
		return nil, err
	}
	ids := make([]storage.ID, len(cr.Commits))
	for i, c := range cr.Commits {
		ids[i] = c.ID
	}
	return provenance.Range(ctx, r.store, po, cr.Base, cr.Head, ids)
}

// lineOptions are provenance's options for the code in code: git there,
// the index in the store's cache, the rewrites noted.
func (r *Repository) lineOptions(ctx context.Context, code codeRepo, progress func(done, of int)) (provenance.Options, error) {
	rw, err := r.ReadRewrites(ctx)
	if err != nil {
		return provenance.Options{}, err
	}
	return provenance.Options{
		Git:      provenance.Git{Dir: code.dir, GitDir: code.gitDir},
		CacheDir: filepath.Join(r.Paths().CommonDir, "snap", "cache", "lines"),
		Rewrites: rw,
		Progress: progress,
	}, nil
}

// codeRepo is where the code is for a user in dir ("": the store's own
// work tree, or its git dir when it has none).
func (r *Repository) codeRepo(dir string) codeRepo {
	p := r.Paths()
	switch {
	case dir != "":
		return codeRepo{dir: dir}
	case p.WorkTree != "":
		return codeRepo{dir: p.WorkTree}
	}
	return codeRepo{dir: p.GitDir, gitDir: p.GitDir}
}

// inRepo turns a path the user gave (relative to where git runs) into
// the path from the work tree's root; one outside it is an InputError.
// The root is the store's work tree (workTree) when git runs inside it,
// else asked of git.
func (c codeRepo) inRepo(ctx context.Context, file, workTree string) (string, error) {
	if file == "" {
		return "", &provenance.InputError{Msg: "give the FILE to blame"}
	}
	if c.gitDir != "" {
		return filepath.ToSlash(filepath.Clean(file)), nil // no work tree: paths are the repository's
	}
	dir, err := filepath.EvalSymlinks(c.dir)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(workTree)
	if workTree == "" || err != nil || !within(dir, root) {
		out, err := c.git(ctx, "rev-parse", "--show-toplevel")
		if err != nil {
			return "", fmt.Errorf("find the work tree: %w", err)
		}
		if root, err = filepath.EvalSymlinks(strings.TrimSpace(out)); err != nil {
			return "", err
		}
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, file)
	}
	rel, err := filepath.Rel(root, filepath.Clean(abs))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
		return "", &provenance.InputError{Msg: fmt.Sprintf("%s is outside the repository (%s): give a file of its work tree", file, root)}
	}
	return filepath.ToSlash(rel), nil
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sameTree reports whether dir is in the work tree wt.
func sameTree(dir, wt string) bool {
	d, err1 := filepath.EvalSymlinks(dir)
	w, err2 := filepath.EvalSymlinks(wt)
	return err1 == nil && err2 == nil && within(d, w)
}
