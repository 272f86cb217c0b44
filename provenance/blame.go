package provenance

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/git-snap/git-snap/storage"
)

// Query is a file to blame.
type Query struct {
	Rev    string   // "" for HEAD
	Path   string   // from the repository's root
	Ranges []string // git blame's -L, each as git takes it
}

// Blame says who wrote each line of a file at a revision. git resolves
// the revision and blames the file while the index is brought up to the
// sessions' refs, so that a blame costs about what git blame does.
func Blame(ctx context.Context, s Store, o Options, q Query) (*File, error) {
	rev := cmp.Or(q.Rev, "HEAD")
	f := &File{Path: q.Path, Rev: rev}
	var (
		lines            []blamed
		commits          map[storage.ID]*commitInfo
		revErr, blameErr error
		wg               sync.WaitGroup
	)
	if id, ok := resolveQuick(o, rev); ok {
		f.Commit = id
	} else {
		wg.Go(func() { f.Commit, revErr = o.Git.commit(ctx, rev) })
	}
	wg.Go(func() { lines, commits, blameErr = o.Git.blame(ctx, rev, "", q.Path, q.Ranges) })
	ix, err := openIndex(ctx, s, o.CacheDir, o.Progress)
	wg.Wait()
	switch {
	case revErr != nil:
		return nil, revErr
	case blameErr != nil:
		return nil, blameErr
	case err != nil:
		return nil, err
	}
	if slices.ContainsFunc(lines, func(b blamed) bool { return strings.IndexByte(b.Text, 0) >= 0 }) {
		return nil, &InputError{fmt.Sprintf("%s is a binary file at %s: blame reads text", q.Path, rev)}
	}
	a, err := newAttributor(ctx, ix, o, pathsOf(q.Path, lines))
	if err != nil {
		return nil, err
	}
	f.Lines = a.attribute(q.Path, lines, commits, len(q.Ranges) == 0)
	f.Captured = len(ix.touching([]string{q.Path})) > 0
	f.Pruned = a.prunedSessions()
	if err := a.fillPrompts(ctx, f.Lines); err != nil {
		return nil, err
	}
	f.Damaged = ix.damagedErr()
	return f, nil
}

// resolveQuick resolves rev with o.Commit, when there is one.
func resolveQuick(o Options, rev string) (storage.ID, bool) {
	if o.Commit == nil {
		return storage.ID{}, false
	}
	return o.Commit(rev)
}

// pathsOf lists path and the paths the lines' commits had them at.
func pathsOf(path string, lines []blamed) []string {
	paths := []string{path}
	for _, b := range lines {
		if b.OrigPath != "" && !slices.Contains(paths, b.OrigPath) {
			paths = append(paths, b.OrigPath)
		}
	}
	return paths
}

// fillPrompts sets each edit's prompt, reading each session's prompts
// once.
func (a *attributor) fillPrompts(ctx context.Context, lines []Line) error {
	for i := range lines {
		e := lines[i].Edit
		if e == nil || e.Prompt != "" {
			continue
		}
		for _, sl := range a.sessions {
			if sl.Session != e.Session || sl.Remote != e.Remote {
				continue
			}
			// A prompt that cannot be read is left out: the line is
			// still the session's.
			p, err := a.ix.prompt(ctx, sl, e.Turn)
			if err != nil && ctx.Err() != nil {
				return err
			}
			e.Prompt = p
			break
		}
	}
	return nil
}

// Changes are the lines a range of commits added that are still there at
// its end, file by file: what a pull request adds.
type Changes struct {
	Base, Head storage.ID
	Files      []*File
	// Binary lists the files the range changed that are not text.
	Binary []string
	// Pruned names the sessions that lost snapshots to a prune.
	Pruned []Pruned
	// Damaged names the sessions that could not be read, left out.
	Damaged *storage.DamagedSessions
}

// Range says who wrote the lines the commits of base..head added that
// head still holds: each file the range changed is blamed over the range
// (git blame base..head), and only the lines of the range's commits are
// kept.
func Range(ctx context.Context, s Store, o Options, base, head storage.ID, commits []storage.ID) (*Changes, error) {
	ch := &Changes{Base: base, Head: head}
	var (
		ix     *index
		ixErr  error
		wg     sync.WaitGroup
		paths  []string
		numErr error
	)
	wg.Go(func() { ix, ixErr = openIndex(ctx, s, o.CacheDir, o.Progress) })
	paths, ch.Binary, numErr = o.Git.added(ctx, base, head)
	if numErr != nil {
		wg.Wait()
		return nil, numErr
	}
	blames, err := blameAll(ctx, o.Git, base, head, paths)
	wg.Wait()
	if err = errors.Join(err, ixErr); err != nil {
		return nil, err
	}
	inRange := map[storage.ID]bool{}
	for _, c := range commits {
		inRange[c] = true
	}
	var all []string
	for _, b := range blames {
		for _, p := range pathsOf(b.path, b.lines) {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
	}
	a, err := newAttributor(ctx, ix, o, all)
	if err != nil {
		return nil, err
	}
	for _, b := range blames {
		// The lines around one tell which edit wrote it: all are read,
		// the range's kept.
		lines := slices.DeleteFunc(a.attribute(b.path, b.lines, b.commits, true), func(l Line) bool { return !inRange[l.Commit] })
		f := &File{Path: b.path, Rev: head.String(), Commit: head, Lines: lines}
		f.Captured = len(ix.touching([]string{b.path})) > 0
		if err := a.fillPrompts(ctx, f.Lines); err != nil {
			return nil, err
		}
		ch.Files = append(ch.Files, f)
	}
	ch.Pruned = a.prunedSessions()
	ch.Damaged = ix.damagedErr()
	return ch, nil
}

// fileBlame is one file's blame over a range.
type fileBlame struct {
	path    string
	lines   []blamed
	commits map[storage.ID]*commitInfo
}

// blameAll blames each path over base..head, as many at once as the
// process may run.
func blameAll(ctx context.Context, g Git, base, head storage.ID, paths []string) ([]*fileBlame, error) {
	out := make([]*fileBlame, len(paths))
	errs := make([]error, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(len(paths), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				b := &fileBlame{path: paths[i]}
				b.lines, b.commits, errs[i] = g.blame(ctx, head.String(), base.String(), paths[i], nil)
				out[i] = b
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
}

// added lists the text files base..head added lines to, and separately those
// it changed that are binary (git diff --numstat).
func (g Git) added(ctx context.Context, base, head storage.ID) (text, bin []string, err error) {
	out, err := g.output(ctx, "diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", base.String(), head.String(), "--")
	if err != nil {
		return nil, nil, fmt.Errorf("list the files %s..%s changed: %w", base.String()[:12], head.String()[:12], err)
	}
	for _, rec := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		f := strings.SplitN(string(rec), "\t", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "-" {
			bin = append(bin, f[2])
		} else if n, _ := strconv.Atoi(f[0]); n > 0 {
			text = append(text, f[2])
		}
	}
	return text, bin, nil
}
