// Package refs reads and updates refs in git's files backend the way git
// itself does, so that git update-ref, git pack-refs and git gc can run
// beside it.
//
// It exists because go-git's CheckAndSetReference does not follow git's
// protocol: it takes an flock on the ref file itself, which git does not
// honour, and truncates and rewrites that file in place, so a git
// update-ref beside it is not excluded and git can read the ref empty.
// Here an update creates <ref>.lock exclusively (git's lock), re-reads
// the value from the loose ref and then packed-refs while holding it,
// and renames the new value over the ref while holding it. A lock left
// by a killed process is recognised by the note of its holder it is
// created with, naming a process of this host that no longer runs. A
// lock without such a note (git's own, another tool's) is never taken
// over, however old: git may hold one for as long as a transaction
// stays open.
package refs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/storage"
)

// Options tune a Store.
type Options struct {
	// Wait bounds the wait for a lock another process holds when the
	// context has no deadline; zero means ten seconds.
	Wait time.Duration
	// Warnf, when set, is told of every stale lock removed and every
	// log entry that could not be written.
	Warnf func(format string, args ...any)
	// Ident, when set, signs a log entry for every update (see
	// reflog.go): "<name> <<email>> <unix time> <+hhmm>", as git writes
	// it. Nil keeps no logs.
	Ident func() string
}

// Store reads and updates the refs of one repository: loose files
// first, then packed-refs; updates under <ref>.lock. It holds no state
// between calls but which broken refs it warned of and packed-refs as
// last read, checked against the file's stat on every read, so any
// number of processes may use the same refs.
type Store struct {
	dir    string // the common git dir
	opts   Options
	broken *sync.Map // names of broken refs warned of
	packed packedCache
}

// New returns a Store for the refs of the repository whose common git
// dir (the one holding refs/ and packed-refs) is dir.
func New(dir string, opts Options) *Store {
	if opts.Wait <= 0 {
		opts.Wait = 10 * time.Second
	}
	return &Store{dir: dir, opts: opts, broken: &sync.Map{}}
}

// ErrChanged means a compare-and-swap lost a race: the ref no longer
// holds the expected value.
var ErrChanged = errors.New("ref changed")

// Read returns the ref's value, or ZeroHash when it does not exist (a
// name git would refuse names no ref).
func (r *Store) Read(name string) (storage.ID, error) {
	if CheckName(name) != nil {
		return storage.ID{}, nil
	}
	var buf [512]byte // an id, or a symbolic ref's target; a file that fills it holds neither
	n, err := safefile.ReadQuick(filepath.Join(r.dir, filepath.FromSlash(name)), buf[:])
	switch {
	case err == nil:
		return ParseValue(name, buf[:n])
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EISDIR),
		errors.Is(err, syscall.ENAMETOOLONG), errors.Is(err, syscall.EINVAL): // no file can hold such a ref
	case errors.Is(err, syscall.ELOOP), errors.Is(err, fs.ErrPermission):
		return storage.ID{}, &BrokenError{name} // a link to itself, a file not ours to read
	default:
		return storage.ID{}, fmt.Errorf("read ref %s: %w", name, err)
	}
	return r.readPacked(name)
}

// SymbolicError is a symbolic ref read where an object id is wanted.
type SymbolicError struct{ Name, Value string }

// Error names the ref and where it points.
func (e *SymbolicError) Error() string {
	return fmt.Sprintf("ref %s is symbolic (%s); git-snap refs hold commit ids", e.Name, e.Value)
}

// BrokenError is a loose ref whose file holds no object id: junk, a
// link to another file (which git follows, as it does here), a link to
// itself, a file not ours to read.
type BrokenError struct{ Name string }

// Error names the ref and nothing of what it holds: behind a link that
// may be any file (/etc/passwd, a key).
func (e *BrokenError) Error() string {
	return fmt.Sprintf("ref %s is broken: no commit id can be read from its file (remove it, or git update-ref it)", e.Name)
}

// ParseValue reads the content of a loose ref file (name is for errors
// only). A symbolic ref is an error: refs here hold object ids.
func ParseValue(name string, b []byte) (storage.ID, error) {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, "ref:") {
		return storage.ID{}, &SymbolicError{name, s}
	}
	if len(s) != 40 || !storage.IsID(s) {
		return storage.ID{}, &BrokenError{name}
	}
	return storage.NewID(s), nil
}

// List returns every ref under prefix (e.g. "refs/snap/"), loose and
// packed, loose winning. A symbolic ref holds no object id and is left
// out: every clone has one under refs/remotes/ (origin/HEAD). A broken
// one is left out with a warning naming it, as git for-each-ref does:
// one junk file must not hide every session.
func (r *Store) List(prefix string) (map[string]storage.ID, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	out, err := r.listPacked(prefix)
	if err != nil {
		return nil, err
	}
	var names []string
	root := filepath.Join(r.dir, filepath.FromSlash(prefix))
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() && !strings.HasSuffix(path, ".lock") {
			rel, _ := filepath.Rel(r.dir, path)
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err == nil {
		err = r.readLoose(names, out)
	}
	if err != nil {
		return nil, fmt.Errorf("list refs %s: %w", prefix, err)
	}
	return out, nil
}

// FoldTwin returns the name of a ref under prefix that differs from
// prefix+name only in case, "" when there is none: what a file system
// that ignores case would take for the same file. Loose refs are read
// from prefix's folder alone (the names checked hold no "/"), packed
// ones from packed-refs, without listing every ref: a new session's
// first save checks it, and an import makes many.
func (r *Store) FoldTwin(prefix, name string) (string, error) {
	if err := checkPrefix(prefix); err != nil {
		return "", err
	}
	ents, err := os.ReadDir(filepath.Join(r.dir, filepath.FromSlash(prefix)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("list refs %s: %w", prefix, err)
	}
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && !strings.HasSuffix(n, ".lock") && n != name && strings.EqualFold(n, name) {
			return n, nil
		}
	}
	return r.packedFoldTwin(prefix, name)
}

// readLoose reads the loose refs names into out, passing over symbolic
// ones and ones deleted since they were listed. Ten thousand sessions
// are ten thousand files to open: past a few dozen they are read on as
// many goroutines as the process may run at once.
func (r *Store) readLoose(names []string, out map[string]storage.ID) error {
	const perWorker = 32 // fewer reads than this do not pay for a goroutine
	ids, errs := make([]storage.ID, len(names)), make([]error, len(names))
	var next atomic.Int64
	read := func() {
		for i := int(next.Add(1) - 1); i < len(names); i = int(next.Add(1) - 1) {
			ids[i], errs[i] = r.Read(names[i])
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)/perWorker) - 1 {
		wg.Go(read)
	}
	read()
	wg.Wait()
	for i, name := range names {
		var sym *SymbolicError
		var broken *BrokenError
		switch {
		case errors.As(errs[i], &sym):
		case errors.As(errs[i], &broken):
			r.warnBroken(name)
		case errs[i] != nil:
			return errs[i]
		case !ids[i].IsZero(): // a ref deleted since the walk saw it is simply gone
			out[name] = ids[i]
		}
	}
	return nil
}

// warnBroken says once per Store that a broken ref is left out.
func (r *Store) warnBroken(name string) {
	if _, said := r.broken.LoadOrStore(name, true); !said && r.opts.Warnf != nil {
		r.opts.Warnf("ignoring broken ref %s (no commit id can be read from its file)", name)
	}
}

// Update moves ref name from old to new (ZeroHash old: the ref must not
// exist; ZeroHash new: delete it), and logs it with msg. It returns
// ErrChanged when the ref did not hold old, and waits while another
// process holds the ref's lock, until ctx ends.
func (r *Store) Update(ctx context.Context, name string, old, new storage.ID, msg string) error {
	return r.update(ctx, name, old, new, func() {
		// The ref has moved: a log that cannot be written is said, not
		// made the update's failure.
		if err := r.appendLog(name, old, new, msg); err != nil && r.opts.Warnf != nil {
			r.opts.Warnf("reflog of %s not written: %v", name, err)
		}
	})
}

func (r *Store) update(ctx context.Context, name string, old, new storage.ID, logged func()) error {
	if err := CheckName(name); err != nil {
		return err
	}
	path := filepath.Join(r.dir, filepath.FromSlash(name))
	lk, err := r.lock(ctx, path)
	if err != nil {
		return fmt.Errorf("lock ref %s: %w", name, err)
	}
	defer lk.release()
	cur, err := r.Read(name)
	if err != nil {
		return err
	}
	if cur != old {
		return ErrChanged
	}
	if new.IsZero() {
		if err := r.DeletePacked(ctx, name); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete ref %s: %w", name, err)
		}
		logged() // under the lock, as git logs
		return nil
	}
	if err := lk.commitThen([]byte(new.String()+"\n"), logged); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	return nil
}

// lockFile is a held <path>.lock. It is created holding a note of its
// holder ("<pid> <host>"), so that there is no moment when a git-snap
// lock exists without saying who holds it: others can tell when the
// holder died.
type lockFile struct {
	path   string // the lock
	target string
	tmpDir string // for the new content, on the same file system
	done   bool
}

// commit writes data to a new file and renames it over the target while
// the lock is held, then removes the lock: the target changes in one
// rename, as with git's rename of the lock itself, and the lock keeps its
// note until the end.
func (l *lockFile) commit(data []byte) error { return l.commitThen(data, func() {}) }

// commitThen is commit, calling then after the rename and before the
// lock goes.
func (l *lockFile) commitThen(data []byte, then func()) error {
	f, err := os.CreateTemp(l.tmpDir, "new-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename(f.Name(), l.target)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	then()
	os.Remove(l.path)
	l.done = true
	return nil
}

// release gives the lock up without changing the target.
func (l *lockFile) release() {
	if l.done {
		return
	}
	os.Remove(l.path)
	l.done = true
}

// lock creates path.lock exclusively, waiting while another process
// holds it, until ctx ends (or Options.Wait passes, when ctx has no
// deadline). A lock whose note names a process of this host that no
// longer runs was left by a killed process: it is removed, with a
// warning. Any other lock (git's own, another tool's) is waited on.
func (r *Store) lock(ctx context.Context, path string) (*lockFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	tmpDir := filepath.Join(r.dir, "snap", "locks")
	if err := os.MkdirAll(tmpDir, 0o777); err != nil {
		return nil, err
	}
	// The lock is made as a note under snap/locks/ and linked into
	// place: link, like O_EXCL, fails when the name exists.
	host, _ := os.Hostname()
	note, err := os.CreateTemp(tmpDir, "lock-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(note.Name())
	_, err = fmt.Fprintf(note, "%d %s\n", os.Getpid(), host)
	if cerr := note.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	lockPath := path + ".lock"
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.Wait)
		defer cancel()
	}
	start := time.Now()
	for wait := 100 * time.Microsecond; ; wait = min(wait*2, 20*time.Millisecond) {
		err := os.Link(note.Name(), lockPath)
		if err == nil {
			return &lockFile{path: lockPath, target: path, tmpDir: tmpDir}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if why := r.stale(lockPath); why != "" {
			if r.opts.Warnf != nil {
				r.opts.Warnf("removed %s: %s", lockPath, why)
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil, &LockedError{Path: lockPath, Waited: time.Since(start), Err: ctx.Err()}
		case <-time.After(wait/2 + rand.N(wait)):
		}
	}
}

// Hold runs f while holding path.lock, taken as a ref's lock is
// (waited on, one a crashed git-snap left removed), and gives it up
// after: for work on files other than refs that must not run twice at
// once, as git snap gc.
func (r *Store) Hold(ctx context.Context, path string, f func() error) error {
	lk, err := r.lock(ctx, path)
	if err != nil {
		return err
	}
	defer lk.release()
	return f()
}

// LockedError means a lock stayed held by another process for as long
// as the caller could wait.
type LockedError struct {
	Path   string
	Waited time.Duration
	Err    error // the context's
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is held by another process (waited %s); if no git or git-snap process is running in this repository, it was left by one that crashed: remove it (rm %s) and try again",
		e.Path, e.Waited.Round(time.Millisecond), e.Path)
}

func (e *LockedError) Unwrap() error { return e.Err }

// stale says why an existing lock was left behind, or "" when it may
// still be held: only a lock whose note names a process of this host
// that no longer runs is stale. It removes a stale lock, checking first
// that the lock is still the one it judged.
func (r *Store) stale(lockPath string) string {
	fi, err := os.Lstat(lockPath)
	if err != nil {
		return ""
	}
	pid, dead := deadHolder(lockPath)
	if !dead {
		return ""
	}
	if now, err := os.Lstat(lockPath); err != nil || !os.SameFile(fi, now) {
		return "" // taken over meanwhile: look again
	}
	if err := os.Remove(lockPath); err != nil {
		return ""
	}
	return fmt.Sprintf("its process %d is gone", pid)
}

// deadHolder reads a lock's note: the pid that holds it, and whether it
// is of this host and no longer runs. A lock without a note (git's, or one being written) says
// nothing.
func deadHolder(lockPath string) (int, bool) {
	f, err := os.Open(lockPath)
	if err != nil {
		return 0, false
	}
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	f.Close()
	var pid int
	var host string
	if _, err := fmt.Sscanf(string(b[:n]), "%d %s\n", &pid, &host); err != nil || pid <= 0 {
		return 0, false
	}
	if h, _ := os.Hostname(); h != host {
		return pid, false
	}
	return pid, !processAlive(pid)
}

// DeletePacked removes name, and the peeled value that may follow it,
// from packed-refs, if it is there, under packed-refs.lock. The loose
// ref, if any, is left alone: Update deletes both.
func (r *Store) DeletePacked(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	path := filepath.Join(r.dir, "packed-refs")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.Contains(b, []byte(" "+name+"\n")) {
		return nil
	}
	lk, err := r.lock(ctx, path)
	if err != nil {
		return fmt.Errorf("lock packed-refs: %w", err)
	}
	defer lk.release()
	b, err = os.ReadFile(path) // again, now that nobody else can change it
	if err != nil {
		return fmt.Errorf("read packed-refs: %w", err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	out := make([]string, 0, len(lines))
	skipPeeled := false
	for _, line := range lines {
		if skipPeeled && strings.HasPrefix(line, "^") {
			continue
		}
		_, ref, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		skipPeeled = ref == name && !strings.HasPrefix(line, "#")
		if !skipPeeled {
			out = append(out, line)
		}
	}
	if err := lk.commit([]byte(strings.Join(out, ""))); err != nil {
		return fmt.Errorf("write packed-refs: %w", err)
	}
	return nil
}

// Holder reads the note of a lock git-snap made: the process that holds
// it, and whether that process is of this host and no longer runs (the
// lock was left by a crash). A lock without a note (git's) gives 0.
func Holder(lockPath string) (pid int, dead bool) {
	return deadHolder(lockPath)
}

// EditFile changes a small file of git-snap's own (under the common git
// dir) as refs are changed: under path.lock, taken as for a ref, edit is
// given the file's content (nil when there is none) and what it returns
// replaces the file in one rename. An error from edit leaves the file as
// it was.
func (r *Store) EditFile(ctx context.Context, path string, edit func(old []byte) ([]byte, error)) error {
	lk, err := r.lock(ctx, path)
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer lk.release()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data, err := edit(old)
	if err != nil {
		return err
	}
	return lk.commit(data)
}
