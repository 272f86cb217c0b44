package provenance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/storage"
)

// Store is what provenance reads of a store: the sessions' refs, their
// snapshots' headers, captured files and records, and a walk of what a
// session gained since a snapshot.
type Store interface {
	storage.Reader
	WalkRange(ctx context.Context, r gitstore.RevRange, fn func(storage.Entry) error) error
	// PrunesOn reads the prunes a snapshot records (gitstore.Store's).
	PrunesOn(ctx context.Context, id storage.ID) ([]gitstore.Prune, error)
	// CodeFile reads a file of a code commit; ok is false when the
	// store does not hold it.
	CodeFile(ctx context.Context, commit storage.ID, path string) (data []byte, ok bool, err error)
}

// The index is a cache under .git/snap/cache/lines/, rebuilt from the
// sessions' refs whenever it is missing or damaged: a manifest that
// names each session ref's tip, how many of its snapshots were pruned
// and the paths its captures gained lines in, and a file per session
// ref with its lines (sessionLines). A blame lists the refs, brings the
// sessions that moved up to date (reading only the snapshots they
// gained), and reads the files of the sessions that captured the path.

// maxIndexFile bounds a file of the index as it is read.
const maxIndexFile = 1 << 30

// manifestEntry is one session ref as the manifest names it.
type manifestEntry struct {
	Ref    string
	Tip    storage.ID
	Pruned bool
	Paths  []string
}

// index is the manifest read, and the sessions read so far.
type index struct {
	dir     string // "" keeps nothing on disk
	s       Store
	entries map[string]*manifestEntry
	loaded  map[string]*sessionLines
	// damaged are the sessions that could not be read: left out, and
	// named after the answer, as a listing of sessions names them.
	damaged []storage.DamagedSession
	// Progress, when set, is told how many sessions of how many a
	// first reading has read.
	progress func(done, of int)
}

// openIndex reads the manifest in dir and brings it up to the sessions'
// refs, reading the sessions that moved and writing what it read.
func openIndex(ctx context.Context, s Store, dir string, progress func(done, of int)) (*index, error) {
	ix := &index{dir: dir, s: s, entries: map[string]*manifestEntry{}, loaded: map[string]*sessionLines{}, progress: progress}
	ix.readManifest(ctx)
	tips, err := s.Tips(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return ix, ix.update(ctx, tips)
}

// update reads the sessions whose tips moved, forgets those gone, and
// writes the manifest when anything changed.
func (ix *index) update(ctx context.Context, tips map[string]storage.ID) error {
	var moved []string
	for ref, tip := range tips {
		if m := ix.entries[ref]; m == nil || m.Tip != tip {
			moved = append(moved, ref)
		}
	}
	slices.Sort(moved)
	changed := false
	for ref := range ix.entries {
		if _, ok := tips[ref]; !ok {
			delete(ix.entries, ref)
			ix.remove(ref)
			changed = true
		}
	}
	r := &reader{s: ix.s}
	for i, ref := range moved {
		var old *sessionLines
		if ix.entries[ref] != nil {
			old, _ = ix.readSession(ctx, ref)
		}
		sl, err := r.build(ctx, ref, tips[ref], old)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			ix.leaveOut(ref, tips[ref], err)
			changed = true
			continue
		}
		ix.keep(sl)
		changed = true
		if ix.progress != nil && len(moved) > 1 {
			ix.progress(i+1, len(moved))
		}
	}
	if changed {
		ix.writeManifest()
	}
	return nil
}

// leaveOut forgets a session ref that could not be read, to be read
// again next time, and names it among the damaged.
func (ix *index) leaveOut(ref string, tip storage.ID, err error) {
	delete(ix.entries, ref)
	delete(ix.loaded, ref)
	session, _, _ := ix.s.SessionOfRef(ref)
	ix.damaged = append(ix.damaged, storage.DamagedSession{Name: session, Tip: tip, Err: err})
}

// damagedErr names the sessions left out, nil when none was.
func (ix *index) damagedErr() *storage.DamagedSessions {
	if len(ix.damaged) == 0 {
		return nil
	}
	return &storage.DamagedSessions{Sessions: ix.damaged}
}

// keep notes a session read or brought up to date, and writes it.
func (ix *index) keep(sl *sessionLines) {
	ix.loaded[sl.Ref] = sl
	pruned, _ := sl.pruned()
	ix.entries[sl.Ref] = &manifestEntry{Ref: sl.Ref, Tip: sl.Tip, Pruned: pruned, Paths: slices.Sorted(maps.Keys(sl.Files))}
	ix.write(ix.sessionFile(sl.Ref), sl.encode())
}

// session reads a session ref's lines at the tip the manifest names,
// from its file, or from the store when the file does not read whole.
func (ix *index) session(ctx context.Context, ref string) (*sessionLines, error) {
	if sl := ix.loaded[ref]; sl != nil {
		return sl, nil
	}
	m := ix.entries[ref]
	if m == nil {
		return nil, fmt.Errorf("session ref %s is not in the line index", ref)
	}
	sl, err := ix.readSession(ctx, ref)
	if err == nil && sl.Tip == m.Tip && sl.Ref == ref {
		ix.loaded[ref] = sl
		return sl, nil
	}
	if sl, err = (&reader{s: ix.s}).build(ctx, ref, m.Tip, nil); err != nil {
		return nil, err
	}
	ix.keep(sl)
	return sl, nil
}

// touching lists, sorted, the session refs whose captures gained lines
// in one of paths.
func (ix *index) touching(paths []string) []string {
	var refs []string
	for ref, m := range ix.entries {
		for _, p := range paths {
			if _, ok := slices.BinarySearch(m.Paths, p); ok {
				refs = append(refs, ref)
				break
			}
		}
	}
	slices.Sort(refs)
	return refs
}

func (ix *index) sessionFile(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return filepath.Join(ix.dir, "s", hex.EncodeToString(sum[:16]))
}

func (ix *index) readSession(ctx context.Context, ref string) (*sessionLines, error) {
	if ix.dir == "" {
		return nil, fs.ErrNotExist
	}
	data, err := safefile.ReadFile(ctx, ix.sessionFile(ref), "", maxIndexFile)
	if err != nil {
		return nil, err
	}
	return decodeSession(data)
}

func (ix *index) remove(ref string) {
	if ix.dir != "" {
		_ = os.Remove(ix.sessionFile(ref))
	}
}

// write puts data at path by renaming a file written beside it, so that
// a reader finds the old file or the new, whole. A cache that cannot be
// written is read again next time: it is never the command's failure.
func (ix *index) write(path string, data []byte) {
	if ix.dir == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
}

func (ix *index) manifestFile() string { return filepath.Join(ix.dir, "manifest") }

// readManifest reads the manifest; a missing or damaged one is empty,
// and every session is read again.
func (ix *index) readManifest(ctx context.Context) {
	if ix.dir == "" {
		return
	}
	data, err := safefile.ReadFile(ctx, ix.manifestFile(), "", maxIndexFile)
	if err != nil {
		return
	}
	d := open(data, manifestMagic)
	entries := map[string]*manifestEntry{}
	for range d.count() {
		m := &manifestEntry{Ref: d.str(), Tip: d.id(), Pruned: d.uint() == 1}
		for range d.count() {
			m.Paths = append(m.Paths, d.str())
		}
		entries[m.Ref] = m
	}
	if d.err == nil && len(d.b) == 0 {
		ix.entries = entries
	}
}

func (ix *index) writeManifest() {
	e := &encoder{}
	refs := slices.Sorted(maps.Keys(ix.entries))
	e.uint(uint64(len(refs)))
	for _, ref := range refs {
		m := ix.entries[ref]
		e.str(m.Ref)
		e.id(m.Tip)
		e.uint(map[bool]uint64{false: 0, true: 1}[m.Pruned])
		e.uint(uint64(len(m.Paths)))
		for _, p := range m.Paths {
			e.str(p)
		}
	}
	ix.write(ix.manifestFile(), e.seal(manifestMagic))
}

// pruned lists the session refs that lost snapshots to a prune.
func (ix *index) pruned() []string {
	var out []string
	for ref, m := range ix.entries {
		if m.Pruned {
			out = append(out, ref)
		}
	}
	slices.Sort(out)
	return out
}
