package gitstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/pack"
	"github.com/git-snap/git-snap/gitstore/internal/refs"
	"github.com/git-snap/git-snap/storage"
)

// Batch gathers the snapshots of many sessions into one pack, as git
// fast-import does: the objects every write through its stores (Open)
// makes go to a pack being written, not to loose files, and the refs
// those writes move are noted, not moved. Commit puts the pack in place,
// reads back the objects the refs will name, then moves each ref by
// compare-and-swap, the way every snapshot's ref moves. A process killed
// before Commit leaves every ref as it was (and a temporary file, which
// the next batch, git snap gc or git prune removes); killed while Commit
// moves refs, each ref is at its old value or its new one, and every
// object it names is in place.
//
// A batch is for an import: many sessions read at once, each by its own
// goroutine and store. Commit must not run while a store of the batch
// writes.
type Batch struct {
	s    *Store // the store the batch was made from: it moves the refs
	opts BatchOptions

	mu    sync.Mutex
	w     *pack.Writer // nil until the first object
	moves map[string]*refMove
	order []string // refs in the order they were first moved
}

// refMove is a ref's move in a batch: from its value before the batch
// to the last value the batch gave it.
type refMove struct {
	old, new storage.ID
	msg      string
}

// BatchOptions tune a Batch.
type BatchOptions struct {
	// NewDeflater makes the zlib compressor of the pack's objects, at
	// best speed; the standard library's when nil. It is the caller's
	// so that a program that never writes a batch (the hook program)
	// does not link a faster one.
	NewDeflater func(w io.Writer) Deflater
}

// Deflater compresses as zlib does, and can be reused (Reset).
type Deflater interface {
	io.WriteCloser
	Reset(w io.Writer)
}

// NewBatch starts a batch on the store's repository. The temporary
// packs of batches whose processes are gone are removed first.
func (s *Store) NewBatch(ctx context.Context, opts BatchOptions) (*Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	removeDeadPacks(s.packDir())
	return &Batch{s: s, opts: opts, moves: map[string]*refMove{}}, nil
}

func (s *Store) packDir() string { return filepath.Join(s.paths.CommonDir, "objects", "pack") }

// Open returns a store for one goroutine whose writes go into the batch.
// It reads what the batch holds as if it were in place: the sessions it
// moved are at their new tips. Close it when done.
func (b *Batch) Open(ctx context.Context) (*Store, error) {
	s, err := OpenPaths(ctx, b.s.paths, b.s.opts)
	if err != nil {
		return nil, err
	}
	s.counter, s.view = b.s.counter, b.s.view
	s.cache = inMemory()
	// The batch's refs are read through the store's own, so that every
	// worker shares one copy of packed-refs as last read (and its index
	// of names by case): 100k session refs are megabytes each.
	own, ok := b.s.refs.(*refs.Store)
	if !ok {
		own = s.refs.(*refs.Store)
	}
	s.refs = batchRefs{Store: own, b: b}
	s.st.batch = b
	return s, nil
}

// Size is the bytes of the pack written so far.
func (b *Batch) Size() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w == nil {
		return 0
	}
	return b.w.Size()
}

// Forget drops what the batch would do to a session's ref and its
// checkpoints (a session whose import failed half-way); the objects
// written stay in the pack, unreferenced.
func (b *Batch) Forget(session string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	own := func(ref string) bool {
		if ref == b.s.SessionRef(session) {
			return true
		}
		for _, prefix := range b.s.checkpointPrefixes() {
			if strings.HasPrefix(ref, prefix+session+"/") {
				return true
			}
		}
		return false
	}
	kept := b.order[:0]
	for _, ref := range b.order {
		if own(ref) {
			delete(b.moves, ref)
		} else {
			kept = append(kept, ref)
		}
	}
	b.order = kept
}

// Abort drops the batch: its pack is removed and no ref moves.
func (b *Batch) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w != nil {
		b.w.Abort()
		b.w = nil
	}
	b.moves, b.order = map[string]*refMove{}, nil
}

// Commit puts the pack in place and moves the refs the batch noted, then
// starts the batch afresh. Before any ref moves, the object each will
// name is read back through the repository's packs. A ref another
// writer moved since the batch read it is left as that writer left it:
// its name is in lost, and what the batch made for it is unreferenced.
// On an error no ref of the batch has moved, unless the error says
// which one failed.
func (b *Batch) Commit(ctx context.Context) (moved, lost []string, err error) {
	b.mu.Lock()
	w, moves, order := b.w, b.moves, b.order
	b.w, b.moves, b.order = nil, map[string]*refMove{}, nil
	b.mu.Unlock()
	if w != nil {
		if _, err := w.Finish(); err != nil {
			return nil, nil, fmt.Errorf("write pack: %w", err)
		}
	}
	s := b.s
	s.st.reload()
	for _, ref := range order {
		if m := moves[ref]; !m.new.IsZero() {
			if _, err := s.st.EncodedObject(plumbing.AnyObject, m.new); err != nil {
				return nil, nil, fmt.Errorf("%s: the object it would name is not readable: %w", ref, err)
			}
		}
	}
	for _, ref := range order {
		m := moves[ref]
		if m.old == m.new {
			continue
		}
		err := s.refs.Update(ctx, ref, m.old, m.new, m.msg)
		switch {
		case errors.Is(err, refs.ErrChanged):
			lost = append(lost, ref)
		case err != nil:
			return moved, lost, fmt.Errorf("move %s: %w", ref, writeErr(err))
		default:
			moved = append(moved, ref)
		}
	}
	return moved, lost, nil
}

// add writes objects into the batch's pack.
func (b *Batch) add(objs ...pack.Object) error {
	b.mu.Lock()
	if b.w == nil {
		o := pack.WriterOptions{Options: pack.Options{MaxObjectBytes: b.s.st.max}}
		if nd := b.opts.NewDeflater; nd != nil {
			o.NewDeflater = func(w io.Writer) pack.Deflater { return nd(w) }
		}
		w, err := pack.NewWriter(b.s.packDir(), tempPackPrefix(), o)
		if err != nil {
			b.mu.Unlock()
			return writeErr(fmt.Errorf("start a pack: %w", err))
		}
		b.w = w
	}
	w := b.w
	b.mu.Unlock()
	if err := w.Add(objs...); err != nil {
		return writeErr(fmt.Errorf("write objects: %w", err))
	}
	return nil
}

// writer is the pack being written, nil when none is.
func (b *Batch) writer() *pack.Writer {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w
}

// batchRefs are a batch store's refs: what the batch moved reads at its
// new value, and a move is noted in the batch, by compare-and-swap
// against what the batch or the repository holds.
type batchRefs struct {
	*refs.Store
	b *Batch
}

func (r batchRefs) Read(name string) (storage.ID, error) {
	r.b.mu.Lock()
	m, ok := r.b.moves[name]
	r.b.mu.Unlock()
	if ok {
		return m.new, nil
	}
	return r.Store.Read(name)
}

func (r batchRefs) Update(ctx context.Context, name string, old, new storage.ID, msg string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := refs.CheckName(name); err != nil {
		return err
	}
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	if m, ok := r.b.moves[name]; ok {
		if m.new != old {
			return refs.ErrChanged
		}
		m.new, m.msg = new, msg
		return nil
	}
	cur, err := r.Store.Read(name)
	if err != nil {
		return err
	}
	if cur != old {
		return refs.ErrChanged
	}
	r.b.moves[name] = &refMove{old: old, new: new, msg: msg}
	r.b.order = append(r.b.order, name)
	return nil
}

// tempPackPrefix names a batch's temporary pack: by this host and
// process, so that a later batch knows one whose process is gone.
func tempPackPrefix() string {
	return fmt.Sprintf("%s%s_%d_", batchTempPrefix, hostTag(), os.Getpid())
}

// batchTempPrefix starts the names of a batch's temporary files (git's
// own are tmp_pack_*, which are left to git).
const batchTempPrefix = "tmp_snap_pack_"

// hostTag is a short mark of this host for file names.
func hostTag() string {
	h, _ := os.Hostname()
	sum := sha1.Sum([]byte(h))
	return hex.EncodeToString(sum[:4])
}

// removeDeadPacks removes the temporary packs of batches of this host
// whose processes no longer run (an import killed mid-pack).
func removeDeadPacks(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	mine := batchTempPrefix + hostTag() + "_"
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), mine)
		if !ok {
			continue
		}
		digits, _, _ := strings.Cut(rest, "_")
		if pid, err := strconv.Atoi(digits); err == nil && pid > 0 && pid != os.Getpid() && !refs.Alive(pid) {
			_ = os.Remove(filepath.Join(dir, e.Name())) // gone already is as good
		}
	}
}

// has reports whether the batch's pack holds an object.
func (b *Batch) has(h storage.ID) bool {
	w := b.writer()
	return w != nil && w.Has(h)
}

// read reads an object of the batch's pack; plumbing.ErrObjectNotFound
// when it holds none of that id.
func (b *Batch) read(h storage.ID) (plumbing.ObjectType, []byte, error) {
	w := b.writer()
	if w == nil {
		return 0, nil, plumbing.ErrObjectNotFound
	}
	return w.Read(h)
}

// refStore is what a store does with refs: git's lock protocol
// (package refs), or, for a batch's store, a batch noting moves.
type refStore interface {
	Read(name string) (storage.ID, error)
	Update(ctx context.Context, name string, old, new storage.ID, msg string) error
	List(prefix string) (map[string]storage.ID, error)
	FoldTwin(prefix, name string) (string, error)
	LastLog(name string) (refs.LogEntry, bool, error)
	LoggedIDs(name string) ([]storage.ID, error)
	Logged(prefix string) ([]string, error)
	EditFile(ctx context.Context, path string, edit func(old []byte) ([]byte, error)) error
	Hold(ctx context.Context, path string, f func() error) error
}
