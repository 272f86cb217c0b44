package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objectReader reads objects the way a short-lived process should: loose
// objects through go-git, packed ones through pack indexes that are
// mapped, not decoded. go-git decodes a whole pack index (and builds a
// reverse index for every offset delta) before its first packed read,
// which costs about 100 ms on a repository of 100k snapshots; a lookup
// here costs a binary search.
type objectReader struct {
	*filesystem.Storage // writes, loose objects, alternates, iteration
	dir                 string

	once  sync.Once
	packs []*pack
	mu    sync.Mutex
	bases map[baseKey][]byte // resolved delta bases
}

type baseKey struct {
	pack   *pack
	offset int64
}

// EncodedObject finds an object: loose first, then in the packs, then
// wherever go-git looks (alternates).
func (r *objectReader) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	hex := h.String()
	if _, err := os.Stat(filepath.Join(r.dir, "objects", hex[:2], hex[2:])); err == nil {
		return r.Storage.EncodedObject(t, h)
	}
	typ, data, err := r.packed(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return r.Storage.EncodedObject(t, h)
	}
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && t != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(typ)
	obj.Write(data)
	return obj, nil
}

// Close releases the mapped indexes and open packs.
func (r *objectReader) Close() error {
	for _, p := range r.packs {
		p.close()
	}
	return r.Storage.Close()
}

func (r *objectReader) packed(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	r.once.Do(r.openPacks)
	for _, p := range r.packs {
		if off, ok := p.find(h); ok {
			return r.readAt(p, off, 0)
		}
	}
	return 0, nil, plumbing.ErrObjectNotFound
}

func (r *objectReader) openPacks() {
	idxs, _ := filepath.Glob(filepath.Join(r.dir, "objects", "pack", "pack-*.idx"))
	for _, idx := range idxs {
		if p, err := openPack(idx); err == nil {
			r.packs = append(r.packs, p)
		}
	}
	r.bases = map[baseKey][]byte{}
}

const maxDeltaDepth = 10000

// readAt reads the object at an offset of a pack, resolving deltas.
func (r *objectReader) readAt(p *pack, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, fmt.Errorf("pack %s: delta chain too long at offset %d", p.name, off)
	}
	typ, size, base, baseHash, hdr, err := p.header(off)
	if err != nil {
		return 0, nil, err
	}
	data, err := p.inflate(off+hdr, size)
	if err != nil {
		return 0, nil, err
	}
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		return typ, data, nil
	case plumbing.REFDeltaObject:
		var ok bool
		if base, ok = p.find(baseHash); !ok {
			return 0, nil, fmt.Errorf("pack %s: delta base %s not in the pack", p.name, baseHash)
		}
	}
	btyp, bdata, err := r.base(p, base, depth)
	if err != nil {
		return 0, nil, err
	}
	out, err := packfile.PatchDelta(bdata, data)
	if err != nil {
		return 0, nil, fmt.Errorf("pack %s: apply delta at offset %d: %w", p.name, off, err)
	}
	return btyp, out, nil
}

// base reads a delta base, keeping the few last ones: objects of one
// snapshot tend to share their bases.
func (r *objectReader) base(p *pack, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	key := baseKey{p, off}
	r.mu.Lock()
	data, ok := r.bases[key]
	r.mu.Unlock()
	if ok {
		return plumbing.ObjectType(data[0]), data[1:], nil
	}
	typ, data, err := r.readAt(p, off, depth+1)
	if err != nil {
		return 0, nil, err
	}
	r.mu.Lock()
	if len(r.bases) > 256 {
		clear(r.bases)
	}
	r.bases[key] = append([]byte{byte(typ)}, data...)
	r.mu.Unlock()
	return typ, data, nil
}

// pack is a packfile with its version 2 index mapped into memory.
type pack struct {
	name   string
	idx    []byte
	unmap  func()
	file   *os.File
	count  int
	fanout [256]uint32
}

func openPack(idxPath string) (*pack, error) {
	idx, unmap, err := mapFile(idxPath)
	if err != nil {
		return nil, err
	}
	p := &pack{name: filepath.Base(idxPath), idx: idx, unmap: unmap}
	if len(idx) < 8+256*4 || !bytes.Equal(idx[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(idx[4:]) != 2 {
		p.close()
		return nil, fmt.Errorf("%s: not a version 2 pack index", idxPath)
	}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(idx[8+4*i:])
	}
	p.count = int(p.fanout[255])
	if len(idx) < 8+1024+p.count*(20+4+4) {
		p.close()
		return nil, fmt.Errorf("%s: truncated", idxPath)
	}
	if p.file, err = os.Open(strings.TrimSuffix(idxPath, ".idx") + ".pack"); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *pack) close() {
	if p.unmap != nil {
		p.unmap()
		p.unmap = nil
	}
	if p.file != nil {
		p.file.Close()
	}
}

// find looks an object up: the fanout narrows the names table to those
// sharing the first byte, then a binary search.
func (p *pack) find(h plumbing.Hash) (int64, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(p.fanout[h[0]-1])
	}
	hi := int(p.fanout[h[0]])
	names := p.idx[8+1024:]
	i := lo + sort.Search(hi-lo, func(i int) bool {
		return bytes.Compare(names[(lo+i)*20:(lo+i)*20+20], h[:]) >= 0
	})
	if i >= hi || !bytes.Equal(names[i*20:i*20+20], h[:]) {
		return 0, false
	}
	offsets := 8 + 1024 + p.count*24
	off := binary.BigEndian.Uint32(p.idx[offsets+4*i:])
	if off&0x80000000 == 0 {
		return int64(off), true
	}
	large := offsets + p.count*4 + int(off&0x7fffffff)*8
	if large+8 > len(p.idx) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(p.idx[large:])), true
}

// header reads an entry's header: type, inflated size, the base of a
// delta (offset, or hash for a ref delta) and the header's length.
func (p *pack) header(off int64) (typ plumbing.ObjectType, size int64, base int64, baseHash plumbing.Hash, n int64, err error) {
	var buf [32]byte
	m, err := p.file.ReadAt(buf[:], off)
	if err != nil && !(errors.Is(err, io.EOF) && m > 0) {
		return 0, 0, 0, baseHash, 0, fmt.Errorf("pack %s: read at %d: %w", p.name, off, err)
	}
	b := buf[:m]
	c := b[0]
	typ = plumbing.ObjectType((c >> 4) & 7)
	size = int64(c & 0x0f)
	shift, i := 4, 1
	for c&0x80 != 0 && i < len(b) {
		c = b[i]
		size |= int64(c&0x7f) << shift
		shift += 7
		i++
	}
	switch typ {
	case plumbing.OFSDeltaObject:
		c = b[i]
		rel := int64(c & 0x7f)
		i++
		for c&0x80 != 0 && i < len(b) {
			c = b[i]
			rel = (rel+1)<<7 | int64(c&0x7f)
			i++
		}
		base = off - rel
	case plumbing.REFDeltaObject:
		if i+20 > len(b) {
			return 0, 0, 0, baseHash, 0, fmt.Errorf("pack %s: truncated entry at %d", p.name, off)
		}
		copy(baseHash[:], b[i:i+20])
		i += 20
	}
	return typ, size, base, baseHash, int64(i), nil
}

// inflaters keeps zlib readers for reuse: making one allocates tables.
var inflaters sync.Pool

func (p *pack) inflate(off, size int64) ([]byte, error) {
	src := bufio.NewReaderSize(io.NewSectionReader(p.file, off, 1<<62), 4096)
	var zr io.ReadCloser
	var err error
	if z, ok := inflaters.Get().(io.ReadCloser); ok {
		zr, err = z, z.(zlib.Resetter).Reset(src, nil)
	} else {
		zr, err = zlib.NewReader(src)
	}
	if err != nil {
		return nil, fmt.Errorf("pack %s: inflate at %d: %w", p.name, off, err)
	}
	defer inflaters.Put(zr)
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("pack %s: inflate at %d: %w", p.name, off, err)
	}
	return out, nil
}

// withPrefix lists the objects, loose and packed, whose id starts with
// the hex prefix (at least two digits).
func (r *objectReader) withPrefix(prefix string) []plumbing.Hash {
	var out []plumbing.Hash
	if entries, err := os.ReadDir(filepath.Join(r.dir, "objects", prefix[:2])); err == nil {
		for _, e := range entries {
			if id := prefix[:2] + e.Name(); len(id) == 40 && strings.HasPrefix(id, prefix) && plumbing.IsHash(id) {
				out = append(out, plumbing.NewHash(id))
			}
		}
	}
	r.once.Do(r.openPacks)
	for _, p := range r.packs {
		out = append(out, p.withPrefix(prefix)...)
	}
	return out
}

func (p *pack) withPrefix(prefix string) []plumbing.Hash {
	var first [1]byte
	fmt.Sscanf(prefix[:2], "%02x", &first[0])
	lo := 0
	if first[0] > 0 {
		lo = int(p.fanout[first[0]-1])
	}
	hi := int(p.fanout[first[0]])
	names := p.idx[8+1024:]
	var out []plumbing.Hash
	start := lo + sort.Search(hi-lo, func(i int) bool {
		var h plumbing.Hash
		copy(h[:], names[(lo+i)*20:])
		return h.String() >= prefix
	})
	for i := start; i < hi; i++ {
		var h plumbing.Hash
		copy(h[:], names[i*20:])
		if !strings.HasPrefix(h.String(), prefix) {
			break
		}
		out = append(out, h)
	}
	return out
}

// reload forgets the packs known so far, after a fetch brought new ones.
// Not safe while other goroutines read through this reader.
func (r *objectReader) reload() {
	for _, p := range r.packs {
		p.close()
	}
	r.packs, r.once = nil, sync.Once{}
	r.Storage.Reindex()
}
