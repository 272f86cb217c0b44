package codestate

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-snap/git-snap/internal/watchman"
	"github.com/git-snap/git-snap/storage"
)

// maxWatched is how many changed paths the fast path looks at; past it
// one git status is quicker than a file at a time.
const maxWatched = 300

// watchmanWait bounds what is asked of watchman: its sync (the cookie
// file that proves it has seen every change made before the question),
// and the answer.
const watchmanWait = 3 * time.Second

// readWatched reads the state from the last one and what watchman saw
// change since, or, when that cannot be done as git would, from git
// status, keeping what it says for the next call.
func readWatched(ctx context.Context, o Options) (State, error) {
	root, err := filepath.Abs(o.Dir)
	if err != nil {
		return State{}, err
	}
	o.Dir = root
	wctx, cancel := context.WithTimeout(ctx, watchmanWait)
	defer cancel()
	wm, err := watchman.Dial(wctx, o.Watchman)
	if err != nil {
		st, err := status(ctx, o) // no server: as without one
		return st.state(), err
	}
	defer wm.Close()
	if c, ok := loadCache(o.GitDir, root); ok {
		st, ok, err := c.update(wm, o)
		if ok || err != nil {
			return st, err
		}
	}
	return scanAndKeep(ctx, wm, o)
}

// files are the files whose change the fast path cannot follow, so that
// a change sends the next call to git status: HEAD, the ref it names
// and packed-refs, the index, the ignore and attributes files outside
// the work tree, and the repository's settings.
func (c *cache) files(o Options) []string {
	names := []string{
		filepath.Join(o.GitDir, "HEAD"),
		filepath.Join(o.GitDir, "index"),
		filepath.Join(o.CommonDir, "packed-refs"),
		filepath.Join(o.CommonDir, "config"),
		filepath.Join(o.GitDir, "config.worktree"),
		filepath.Join(o.CommonDir, "info", "exclude"),
		filepath.Join(o.CommonDir, "info", "attributes"),
	}
	if c.HeadRef != "" {
		names = append(names, filepath.Join(o.CommonDir, filepath.FromSlash(c.HeadRef)))
	}
	if o.UserConfigDir != "" {
		names = append(names, filepath.Join(o.UserConfigDir, "git", "attributes"), filepath.Join(o.UserConfigDir, "git", "config"))
	}
	if c.Excludes != "" { // last: known only once git's settings are read
		names = append(names, c.Excludes)
	}
	return names
}

// update brings the cached state up to what watchman saw change. ok is
// false when git status must answer instead.
func (c *cache) update(wm *watchman.Client, o Options) (State, bool, error) {
	if !sameStamps(c.Stamps, stampsOf(c.files(o))) {
		return State{}, false, nil
	}
	changes, err := wm.Since(watchman.Watch{Root: c.Watch, Relative: c.Relative}, c.Clock, watchmanWait)
	if err != nil || changes.Fresh || len(changes.Paths) > maxWatched {
		return State{}, false, nil
	}
	for _, p := range changes.Paths {
		if base := path.Base(p); base == ".gitignore" || base == ".gitattributes" || strings.Contains("/"+p+"/", "/.git/") {
			return State{}, false, nil
		}
	}
	if len(changes.Paths) > 0 {
		ok, err := c.look(o, changes.Paths)
		if err != nil || !ok {
			return State{}, false, err
		}
		c.Clock = changes.Clock
		if err := c.save(o.GitDir); err != nil {
			return State{}, false, nil // the next call scans again
		}
	}
	st := c.state()
	st.Watched = true
	return st, true, nil
}

// state is the State the cached entries make.
func (c *cache) state() State {
	sc := scan{entries: map[string]*entry{}}
	for i := range c.Entries {
		sc.entries[c.Entries[i].Path] = &c.Entries[i]
	}
	if c.Commit != "" {
		sc.commit = storage.NewID(c.Commit)
	}
	sc.branch = c.Branch
	return sc.state()
}

// look sets the entries of the paths watchman says changed from what
// they are now. ok is false when git status must answer instead.
func (c *cache) look(o Options, paths []string) (ok bool, err error) {
	index := filepath.Join(o.GitDir, "index")
	t, err := loadTable(o.GitDir, stampOf(index))
	if err != nil || t.unfit != "" {
		return false, nil
	}
	f, err := os.Open(index)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	l := &looker{c: c, o: o, t: t, f: f, entries: map[string]*entry{}, seen: map[string]bool{}}
	for i := range c.Entries {
		l.entries[c.Entries[i].Path] = &c.Entries[i]
	}
	fi, err := f.Stat()
	if err != nil {
		return false, nil
	}
	l.indexTime = fi.ModTime()
	for _, p := range paths {
		if ok, err := l.path(p); !ok || err != nil {
			return false, err
		}
	}
	c.Entries = l.kept()
	return true, nil
}

// looker looks at changed files against the index.
type looker struct {
	c         *cache
	o         Options
	t         *indexTable
	f         *os.File
	indexTime time.Time
	entries   map[string]*entry
	seen      map[string]bool
	ignore    *ignorer
}

// kept are the entries that still say something, by path.
func (l *looker) kept() []entry {
	out := []entry{}
	for _, e := range l.entries {
		if e.XY != "" || e.Untracked {
			out = append(out, *e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// path looks at one changed path: a file, or a directory. The tracked
// files under a path that is no directory any more are looked at too
// (watchman lists them as well; some versions list a renamed
// directory's files only as the directory).
func (l *looker) path(p string) (bool, error) {
	if l.seen[p] {
		return true, nil
	}
	l.seen[p] = true
	fi, err := os.Lstat(filepath.Join(l.o.Dir, filepath.FromSlash(p)))
	gone := errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	if err != nil && !gone {
		return false, nil
	}
	if gone || !fi.IsDir() {
		under, more, err := l.t.under(l.f, p, maxWatched)
		if err != nil || more {
			return false, err
		}
		for _, e := range under {
			if ok, err := l.path(e.name); !ok || err != nil {
				return ok, err
			}
		}
	}
	switch {
	case gone:
		return l.file(p, nil)
	case fi.IsDir():
		if exists(filepath.Join(l.o.Dir, filepath.FromSlash(p), ".git")) {
			return false, nil // a repository inside: git lists it as one
		}
		return l.file(p, nil) // its files are listed separately
	}
	return l.file(p, fi)
}

// file sets the entry of path p, whose lstat is fi (nil: not a file
// there), from the index and the work tree.
func (l *looker) file(p string, fi fs.FileInfo) (bool, error) {
	ie, tracked, err := l.t.find(l.f, p)
	if err != nil {
		return false, nil
	}
	e, had := l.entries[p]
	if !had {
		e = &entry{Path: p}
		l.entries[p] = e
	}
	if tracked {
		y, ok, err := l.worktree(ie, p, fi)
		if !ok || err != nil {
			return ok, err
		}
		x := byte('.')
		if e.XY != "" {
			x = e.XY[0]
		}
		e.XY = ""
		if x != '.' || y != '.' {
			e.XY = string([]byte{x, y})
		}
		e.Untracked = false
		return true, nil
	}
	// Not in the index: untracked if there and not ignored. A file the
	// index lost since HEAD keeps its "D." entry.
	e.Untracked = false
	if !fileOrLink(fi) {
		return true, nil
	}
	if ok, err := l.inRepository(p); !ok || err != nil {
		return ok, err
	}
	ig, err := l.ignorer()
	if err != nil {
		return false, nil
	}
	ignored, err := ig.ignored(p)
	if err != nil {
		return false, nil
	}
	e.Untracked = !ignored
	return true, nil
}

// fileOrLink reports whether fi is of a file git tracks as a file: a
// regular one or a symbolic link.
func fileOrLink(fi fs.FileInfo) bool {
	return fi != nil && (fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0)
}

// inRepository reports whether p's directories hold no repository of
// their own (git status lists such a directory, not its files).
func (l *looker) inRepository(p string) (bool, error) {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if exists(filepath.Join(l.o.Dir, filepath.FromSlash(d), ".git")) {
			return false, nil
		}
	}
	return true, nil
}

func (l *looker) ignorer() (*ignorer, error) {
	if l.ignore == nil {
		ig, err := newIgnorer(l.o.Dir, filepath.Join(l.o.CommonDir, "info", "exclude"), l.c.Excludes)
		if err != nil {
			return nil, err
		}
		l.ignore = ig
	}
	return l.ignore, nil
}

// worktree is the second status letter of a tracked file: '.' when the
// work tree has what the index has, 'M' when not, 'D' when it is gone.
// ok is false when git must say (a filtered file whose bytes differ).
func (l *looker) worktree(ie indexEntry, p string, fi fs.FileInfo) (y byte, ok bool, err error) {
	switch {
	case ie.skipWorktree || ie.assumeValid:
		return '.', true, nil // git does not look at the work tree's copy
	case !fileOrLink(fi):
		return 'D', true, nil
	case l.statClean(ie, fi):
		return '.', true, nil
	}
	if mode := l.modeOf(ie, fi); mode != ie.mode {
		return 'M', true, nil
	}
	sum, err := blobHash(filepath.Join(l.o.Dir, filepath.FromSlash(p)), fi)
	if err != nil {
		return 0, false, nil
	}
	switch {
	case sum == ie.oid:
		return '.', true, nil
	case l.c.Filters && fi.Mode().IsRegular():
		return 0, false, nil // git may clean the bytes into the entry's
	}
	return 'M', true, nil
}

// statClean reports whether the file's stat is the entry's, as git
// compares them (or more strictly), and the entry was not written in
// the same moment as the file (git's racy case, which it hashes).
func (l *looker) statClean(ie indexEntry, fi fs.FileInfo) bool {
	cs, cn, ino, uid, gid := sysStat(fi)
	m := fi.ModTime()
	if uint32(fi.Size()) != ie.size || uint32(m.Unix()) != ie.mtimeS || uint32(m.Nanosecond()) != ie.mtimeN ||
		cs != ie.ctimeS || cn != ie.ctimeN || ino != ie.ino || uid != ie.uid || gid != ie.gid ||
		l.modeOf(ie, fi) != ie.mode {
		return false
	}
	return m.Before(l.indexTime)
}

// modeOf is the mode git would give the file in the index.
func (l *looker) modeOf(ie indexEntry, fi fs.FileInfo) uint32 {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return 0o120000
	case !l.c.FileMode && ie.mode&0o170000 == 0o100000:
		return ie.mode
	case fi.Mode()&0o100 != 0:
		return 0o100755
	}
	return 0o100644
}

// blobHash is the id git gives the file's content as a blob: the bytes
// of a file, or where a symbolic link points.
func blobHash(name string, fi fs.FileInfo) ([20]byte, error) {
	h := sha1.New()
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(name)
		if err != nil {
			return [20]byte{}, err
		}
		fmt.Fprintf(h, "blob %d\x00%s", len(target), target)
		return [20]byte(h.Sum(nil)), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return [20]byte{}, err
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil || !ofi.Mode().IsRegular() {
		return [20]byte{}, fmt.Errorf("%s is no longer a regular file", name)
	}
	h.Write([]byte("blob " + strconv.FormatInt(ofi.Size(), 10) + "\x00"))
	n, err := io.Copy(h, f)
	if err != nil || n != ofi.Size() {
		return [20]byte{}, fmt.Errorf("%s changed while read", name)
	}
	return [20]byte(h.Sum(nil)), nil
}

// Watcher says whether a hook call's state of the work tree at o.Dir
// would come from watchman at o.Watchman (a server answers there), and
// what it found: for doctor.
func Watcher(ctx context.Context, o Options) (answers bool, detail string) {
	if o.Watchman == "" {
		return false, "no watchman server found"
	}
	wctx, cancel := context.WithTimeout(ctx, watchmanWait)
	defer cancel()
	wm, err := watchman.Dial(wctx, o.Watchman)
	if err != nil {
		return false, fmt.Sprintf("watchman's socket %s does not answer", o.Watchman)
	}
	defer wm.Close()
	watched, err := wm.Watched(o.Dir)
	switch {
	case err != nil:
		return false, fmt.Sprintf("watchman at %s: %v", o.Watchman, err)
	case watched:
		return true, fmt.Sprintf("watchman at %s watches the work tree", o.Watchman)
	}
	return true, fmt.Sprintf("watchman answers at %s; the next hook call asks it to watch the work tree", o.Watchman)
}
