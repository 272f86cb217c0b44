// Package pack reads objects out of git pack files through their
// version 2 indexes, which it maps into memory instead of decoding.
//
// It exists for the first read of a short-lived process: go-git v5
// decodes a whole pack index, and builds a reverse index for every offset
// delta, before its first packed read, about 250 ms on a repository of
// 100k snapshots; a lookup here is a binary search in the mapped index,
// about 0.1 ms. go-git v6 reads pack indexes lazily: once gitstore moves
// to go-git v6, its pack reader can replace this package.
//
// Pack files are input like any other: every offset, size, varint and
// delta instruction is checked, and a damaged pack gives an error, never
// a panic or an allocation that its data cannot back.
package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/storage"
)

// DefaultMaxObjectBytes is the bound on one object's size when
// Options.MaxObjectBytes is zero.
const DefaultMaxObjectBytes = 1 << 30

// maxDeltaDepth bounds delta chains; git's own default depth is 50, and
// a ref delta cycle in a damaged pack would otherwise never end.
const maxDeltaDepth = 10000

// ErrClosed is returned by reads after Close.
var ErrClosed = errors.New("pack set closed")

// Options tune a Set.
type Options struct {
	// MaxObjectBytes bounds the size of an object, and of every delta
	// base on the way to it: a pack entry that claims more is an error,
	// not an allocation. Zero means DefaultMaxObjectBytes.
	MaxObjectBytes int64
}

// Set reads the packs of one objects/pack directory. It is safe for
// concurrent use. The directory is listed on first use and again when an
// object is not found, so packs that git gc or a fetch wrote since are
// seen, and packs that git gc deleted are closed.
type Set struct {
	dir  string
	opts Options

	// mu is held shared by every read, for as long as it uses a mapped
	// index, and exclusively to change the list of packs: so a pack is
	// never unmapped under a reader.
	mu      sync.RWMutex
	scanned bool
	closed  bool
	gen     uint64   // counts changes to packs
	names   []string // the index files of the last listing
	packs   []*file

	cache baseCache
}

// Open returns a Set for the packs in dir (a repository's objects/pack).
// Nothing is read until the first lookup; a missing directory holds no
// packs.
func Open(dir string, opts Options) *Set {
	if opts.MaxObjectBytes <= 0 {
		opts.MaxObjectBytes = DefaultMaxObjectBytes
	}
	opts.MaxObjectBytes = min(opts.MaxObjectBytes, math.MaxInt)
	return &Set{dir: dir, opts: opts}
}

// Find reads an object: its type and content, deltas resolved. An object
// in none of the packs gives plumbing.ErrObjectNotFound, after the
// directory was listed again to see packs written since the last look.
// When several packs hold the object, a damaged copy in one is passed
// over for a good one in another.
func (s *Set) Find(h storage.ID) (plumbing.ObjectType, []byte, error) {
	typ, data, gen, err := s.find(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) && s.changedSince(gen) {
		typ, data, _, err = s.find(h)
	}
	return typ, data, err
}

// Lookup is Find among the packs listed so far (listed once, on first
// use): a miss costs no listing of the directory. A caller that finds
// the object nowhere else asks Find.
func (s *Set) Lookup(h storage.ID) (plumbing.ObjectType, []byte, error) {
	typ, data, _, err := s.find(h)
	return typ, data, err
}

func (s *Set) find(h storage.ID) (plumbing.ObjectType, []byte, uint64, error) {
	if err := s.rlock(); err != nil {
		return 0, nil, 0, err
	}
	defer s.mu.RUnlock()
	var first error
	for _, p := range s.packs {
		off, ok, err := p.find(h)
		if err == nil && ok {
			var typ plumbing.ObjectType
			var data []byte
			if typ, data, err = s.readAt(p, off, 0); err == nil {
				return typ, data, s.gen, nil
			}
		}
		if first == nil && err != nil {
			first = fmt.Errorf("read %s: %w", h, err)
		}
	}
	if first != nil {
		return 0, nil, s.gen, first
	}
	return 0, nil, s.gen, plumbing.ErrObjectNotFound
}

// Contains reports whether one of the packs listed so far holds the
// object, from their indexes alone: nothing is read from a pack.
func (s *Set) Contains(h storage.ID) (bool, error) {
	ok, _, err := s.contains(h)
	return ok, err
}

// Has is Contains after listing the directory again, when the object is
// in none of the packs listed so far, to see packs written since.
func (s *Set) Has(h storage.ID) (bool, error) {
	ok, gen, err := s.contains(h)
	if err == nil && !ok && s.changedSince(gen) {
		ok, _, err = s.contains(h)
	}
	return ok, err
}

func (s *Set) contains(h storage.ID) (bool, uint64, error) {
	if err := s.rlock(); err != nil {
		return false, 0, err
	}
	defer s.mu.RUnlock()
	for _, p := range s.packs {
		if _, ok, err := p.find(h); err == nil && ok {
			return true, s.gen, nil
		}
	}
	return false, s.gen, nil
}

// rlock takes mu shared, listing the directory first if that was never
// done.
func (s *Set) rlock() error {
	s.mu.RLock()
	for !s.scanned && !s.closed {
		s.mu.RUnlock()
		_ = s.Refresh() // an unreadable directory holds no packs for us
		s.mu.RLock()
	}
	if s.closed {
		s.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

// WithPrefix lists the packed objects whose id starts with the hex
// prefix (at least two digits, lower case), after listing the directory
// again so that packs written since are searched too.
func (s *Set) WithPrefix(prefix string) []storage.ID {
	first, ok := hexByte(prefix)
	if !ok {
		return nil
	}
	s.mu.RLock()
	gen := s.gen
	s.mu.RUnlock()
	s.changedSince(gen)
	if s.rlock() != nil {
		return nil
	}
	defer s.mu.RUnlock()
	var out []storage.ID
	for _, p := range s.packs {
		out = append(out, p.withPrefix(first, prefix)...)
	}
	return out
}

// Refresh lists the directory now: packs that appeared are opened, packs
// that are gone are closed once no read uses them, and packs that could
// not be opened before are tried again. When the directory cannot be
// read, the packs known so far stay.
func (s *Set) Refresh() error {
	names, err := listIndexes(s.dir)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.scanned = true
	if err != nil {
		return err
	}
	s.apply(names)
	return nil
}

// changedSince lists the directory and takes in its packs if they differ
// from the last listing; it reports whether the packs changed since
// generation gen, by this call or another.
func (s *Set) changedSince(gen uint64) bool {
	names, err := listIndexes(s.dir)
	if err != nil {
		return false
	}
	s.mu.RLock()
	same := s.gen == gen && s.scanned && slices.Equal(names, s.names)
	s.mu.RUnlock()
	if same {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.gen == gen && (!s.scanned || !slices.Equal(names, s.names)) {
		s.apply(names)
	}
	return s.gen != gen
}

// apply makes the packs those of the index files names, keeping the
// ones already open. A pack that cannot be opened (damaged, or removed
// meanwhile) is left out, as git leaves it: reads fall back to the
// caller's other readers, which say what is wrong with it. mu is held.
func (s *Set) apply(names []string) {
	open := make(map[string]*file, len(s.packs))
	for _, p := range s.packs {
		open[p.index] = p
	}
	packs := make([]*file, 0, len(names))
	for _, name := range names {
		if p, ok := open[name]; ok {
			packs = append(packs, p)
			delete(open, name)
		} else if p, err := openFile(filepath.Join(s.dir, name), name); err == nil {
			packs = append(packs, p)
		}
	}
	for _, p := range open {
		p.close()
	}
	if len(open) > 0 {
		s.cache.clear()
	}
	s.packs, s.names, s.scanned = packs, names, true
	s.gen++
}

// listIndexes returns the names of the pack indexes in dir, sorted. A
// missing directory is none.
func listIndexes(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".idx") {
			names = append(names, n)
		}
	}
	return names, nil
}

// Close unmaps the indexes and closes the packs, once no read uses them.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, p := range s.packs {
		errs = append(errs, p.close())
	}
	s.packs, s.names, s.closed = nil, nil, true
	s.cache.clear()
	return errors.Join(errs...)
}

// readAt reads the object at an offset of a pack, resolving deltas.
// A delta's base is resolved before the delta is inflated: a chain is
// walked by its headers alone, so a cycle or an overlong chain costs no
// inflating, and no delta is held in memory while its base is made.
func (s *Set) readAt(p *file, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, fmt.Errorf("pack %s: delta chain longer than %d at offset %d", p.name, maxDeltaDepth, off)
	}
	e, err := p.header(off)
	if err != nil {
		return 0, nil, err
	}
	if e.typ != plumbing.OFSDeltaObject && e.typ != plumbing.REFDeltaObject {
		data, err := p.inflate(e, s.opts.MaxObjectBytes)
		return e.typ, data, err
	}
	if e.typ == plumbing.REFDeltaObject {
		off, ok, err := p.find(e.baseHash)
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			return 0, nil, fmt.Errorf("pack %s: delta base %s of offset %d not in the pack", p.name, e.baseHash, e.off)
		}
		e.base = off
	}
	btyp, bdata, err := s.base(p, e.base, depth)
	if err != nil {
		return 0, nil, err
	}
	data, err := p.inflate(e, s.opts.MaxObjectBytes)
	if err != nil {
		return 0, nil, err
	}
	out, err := patch(bdata, data, s.opts.MaxObjectBytes)
	if err != nil {
		return 0, nil, fmt.Errorf("pack %s: delta at offset %d: %w", p.name, e.off, err)
	}
	return btyp, out, nil
}

// base reads a delta base, keeping the last few: the objects of one
// snapshot tend to share their bases.
func (s *Set) base(p *file, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	key := baseKey{p, off}
	if typ, data, ok := s.cache.get(key); ok {
		return typ, data, nil
	}
	typ, data, err := s.readAt(p, off, depth+1)
	if err != nil {
		return 0, nil, err
	}
	s.cache.put(key, typ, data)
	return typ, data, nil
}

type baseKey struct {
	pack   *file
	offset int64
}

// baseCache holds resolved delta bases, at most cacheEntries of them and
// cacheBytes in all: emptied when full, which is cheaper to keep than an
// LRU and as good for reads that go snapshot by snapshot.
type baseCache struct {
	mu    sync.Mutex
	bases map[baseKey]cachedBase
	bytes int
}

type cachedBase struct {
	typ  plumbing.ObjectType
	data []byte // shared: never changed once cached
}

const (
	cacheEntries = 256
	cacheBytes   = 64 << 20
)

func (c *baseCache) get(k baseKey) (plumbing.ObjectType, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.bases[k]
	return b.typ, b.data, ok
}

func (c *baseCache) put(k baseKey, typ plumbing.ObjectType, data []byte) {
	if len(data) > cacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bases == nil || len(c.bases) >= cacheEntries || c.bytes+len(data) > cacheBytes {
		c.bases, c.bytes = map[baseKey]cachedBase{}, 0
	}
	c.bases[k] = cachedBase{typ, data}
	c.bytes += len(data)
}

func (c *baseCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bases, c.bytes = nil, 0
}
