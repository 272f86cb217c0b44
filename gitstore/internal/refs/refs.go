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
// writes the new value to the lock and renames it over the ref. A lock
// left by a killed process is recognised by a note of its holder, kept
// under <git dir>/snap/locks/, or by its age.
package refs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Options tune a Store.
type Options struct {
	// StaleLock is how old a lock file must be before it is taken to be
	// left by a killed process and removed; zero means two seconds.
	StaleLock time.Duration
	// Warnf, when set, is told of every stale lock removed.
	Warnf func(format string, args ...any)
}

// Store reads and updates the refs of one repository: loose files
// first, then packed-refs; updates under <ref>.lock. It holds no state
// between calls, so any number of processes may use the same refs.
type Store struct {
	dir  string // the common git dir
	opts Options
}

// New returns a Store for the refs of the repository whose common git
// dir (the one holding refs/ and packed-refs) is dir.
func New(dir string, opts Options) *Store {
	if opts.StaleLock <= 0 {
		opts.StaleLock = 2 * time.Second
	}
	return &Store{dir: dir, opts: opts}
}

// ErrChanged means a compare-and-swap lost a race: the ref no longer
// holds the expected value.
var ErrChanged = errors.New("ref changed")

// Read returns the ref's value, or ZeroHash when it does not exist (a
// name git would refuse names no ref).
func (r *Store) Read(name string) (plumbing.Hash, error) {
	if CheckName(name) != nil {
		return plumbing.ZeroHash, nil
	}
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(name)))
	switch {
	case err == nil:
		return ParseValue(name, b)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EISDIR),
		errors.Is(err, syscall.ENAMETOOLONG), errors.Is(err, syscall.EINVAL): // no file can hold such a ref
	default:
		return plumbing.ZeroHash, fmt.Errorf("read ref %s: %w", name, err)
	}
	return r.readPacked(name)
}

// ParseValue reads the content of a loose ref file (name is for errors
// only). A symbolic ref is an error: refs here hold object ids.
func ParseValue(name string, b []byte) (plumbing.Hash, error) {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, "ref:") {
		return plumbing.ZeroHash, fmt.Errorf("ref %s is symbolic (%s); git-snap refs hold commit ids", name, s)
	}
	if len(s) != 40 || !plumbing.IsHash(s) {
		return plumbing.ZeroHash, fmt.Errorf("ref %s holds %q, not a commit id", name, s)
	}
	return plumbing.NewHash(s), nil
}

// packed reads packed-refs into a map; a missing file is no refs.
func (r *Store) packed() (map[string]plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(r.dir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]plumbing.Hash{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	out := map[string]plumbing.Hash{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hash, name, ok := strings.Cut(line, " ")
		if ok && plumbing.IsHash(hash) {
			out[name] = plumbing.NewHash(hash)
		}
	}
	return out, sc.Err()
}

// List returns every ref under prefix (e.g. "refs/snap/"), loose and
// packed, loose winning.
func (r *Store) List(prefix string) (map[string]plumbing.Hash, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	packed, err := r.packed()
	if err != nil {
		return nil, err
	}
	out := map[string]plumbing.Hash{}
	for name, h := range packed {
		if strings.HasPrefix(name, prefix) {
			out[name] = h
		}
	}
	root := filepath.Join(r.dir, filepath.FromSlash(prefix))
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(path, ".lock") {
			return nil
		}
		rel, _ := filepath.Rel(r.dir, path)
		name := filepath.ToSlash(rel)
		h, err := r.Read(name)
		if err != nil || h.IsZero() {
			return err // a ref deleted since the walk saw it is simply gone
		}
		out[name] = h
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list refs %s: %w", prefix, err)
	}
	return out, nil
}

// Update moves ref name from old to new (ZeroHash old: the ref must not
// exist; ZeroHash new: delete it). It returns ErrChanged when the ref
// did not hold old, and waits while another process holds the ref's
// lock, until ctx ends.
func (r *Store) Update(ctx context.Context, name string, old, new plumbing.Hash) error {
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
		return nil
	}
	if err := lk.commit([]byte(new.String() + "\n")); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	return nil
}

// lockFile is a held <path>.lock, with a note of who holds it under
// .git/snap/locks/ so that others can tell when the holder died.
type lockFile struct {
	f      *os.File
	target string
	owner  string
	done   bool
}

// commit writes data to the lock and renames it over the target.
func (l *lockFile) commit(data []byte) error {
	_, err := l.f.Write(data)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	os.Remove(l.owner) // before the rename: once renamed the lock name is free for others
	if err := os.Rename(l.f.Name(), l.target); err != nil {
		return err
	}
	l.done = true
	return nil
}

// release gives the lock up without changing the target.
func (l *lockFile) release() {
	if l.done {
		return
	}
	l.f.Close()
	os.Remove(l.owner)
	os.Remove(l.f.Name())
	l.done = true
}

func (r *Store) ownerPath(lockPath string) string {
	rel, err := filepath.Rel(r.dir, lockPath)
	if err != nil {
		rel = lockPath
	}
	return filepath.Join(r.dir, "snap", "locks", strings.ReplaceAll(filepath.ToSlash(rel), "/", "%"))
}

// lock creates path.lock exclusively, waiting while another process
// holds it. A lock whose holder is gone (its pid no longer runs on this
// host), or that is older than Options.StaleLock, was left by a killed process:
// it is removed, with a warning.
func (r *Store) lock(ctx context.Context, path string) (*lockFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	lockPath := path + ".lock"
	owner := r.ownerPath(lockPath)
	for wait := 100 * time.Microsecond; ; wait = min(wait*2, 20*time.Millisecond) {
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			writeOwner(owner)
			return &lockFile{f: f, target: path, owner: owner}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if why := r.stale(lockPath, owner); why != "" {
			if r.opts.Warnf != nil {
				r.opts.Warnf("removed %s: %s", lockPath, why)
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s is held by another process: %w", lockPath, ctx.Err())
		case <-time.After(wait/2 + rand.N(wait)):
		}
	}
}

func writeOwner(path string) {
	host, _ := os.Hostname()
	if os.MkdirAll(filepath.Dir(path), 0o777) == nil {
		_ = os.WriteFile(path, []byte(fmt.Sprintf("%d %s\n", os.Getpid(), host)), 0o666) // a lock without a note is judged by its age
	}
}

// stale says why an existing lock was left behind, or "" when it may
// still be held. It removes the lock (and its owner note) when stale,
// checking first that the lock is still the one it judged.
func (r *Store) stale(lockPath, owner string) string {
	fi, err := os.Lstat(lockPath)
	if err != nil {
		return ""
	}
	why := ""
	if pid, ok := deadOwner(owner); ok && !noteOlder(owner, fi) {
		why = fmt.Sprintf("its process %d is gone", pid)
	} else if age := time.Since(fi.ModTime()); age > r.opts.StaleLock {
		why = fmt.Sprintf("left %s ago by a process that did not finish", age.Round(time.Millisecond))
	}
	if why == "" {
		return ""
	}
	if now, err := os.Lstat(lockPath); err != nil || !os.SameFile(fi, now) {
		return "" // taken over meanwhile: look again
	}
	os.Remove(owner)
	if err := os.Remove(lockPath); err != nil {
		return ""
	}
	return why
}

// noteOlder reports whether the owner note predates the lock: then it
// was left by an earlier holder and says nothing of this one. File times
// are coarse, hence the margin.
func noteOlder(owner string, lock fs.FileInfo) bool {
	fi, err := os.Stat(owner)
	return err == nil && fi.ModTime().Before(lock.ModTime().Add(-50*time.Millisecond))
}

// deadOwner reads an owner note and reports a pid of this host that no
// longer runs.
func deadOwner(owner string) (int, bool) {
	b, err := os.ReadFile(owner)
	if err != nil {
		return 0, false
	}
	var pid int
	var host string
	if _, err := fmt.Sscanf(string(b), "%d %s", &pid, &host); err != nil || pid <= 0 {
		return 0, false
	}
	if h, _ := os.Hostname(); h != host {
		return 0, false
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
