package pack

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/git-snap/git-snap/internal/mmapfile"
	"github.com/git-snap/git-snap/storage"
)

// The layout of a version 2 pack index: header, fan-out table, then per
// object its id, CRC and 31-bit offset (or, with the top bit set, the
// index of its offset in a table of 64-bit offsets that follows), then
// the pack's checksum and the index's own.
const (
	idxHeader  = 8
	fanoutLen  = 256 * 4
	idxTables  = idxHeader + fanoutLen
	perObject  = 20 + 4 + 4
	idxTrailer = 2 * 20
	largeFlag  = 0x80000000

	packHeader  = 12
	packTrailer = 20

	// maxRatio is deflate's largest compression ratio: no entry inflates
	// to more than this many times the bytes left in its pack.
	maxRatio = 1032
)

// file is one pack with its index mapped into memory. Everything in
// idx that lookups index by was checked when it was opened.
type file struct {
	name   string // the pack's file name, for errors
	index  string // the index's file name, as listed
	idx    []byte
	unmap  func()
	r      io.ReaderAt // the pack
	closer io.Closer
	size   int64 // of the pack
	count  int
	fanout [256]uint32
	large  int // where the 64-bit offset table starts in idx
}

// openFile maps the index at path and opens the pack beside it.
func openFile(path, index string) (*file, error) {
	idx, unmap, err := mmapfile.Map(path)
	if err != nil {
		return nil, fmt.Errorf("map pack index: %w", err)
	}
	packPath := strings.TrimSuffix(path, ".idx") + ".pack"
	f, err := os.Open(packPath)
	if err != nil {
		unmap()
		return nil, fmt.Errorf("open pack: %w", err)
	}
	fi, err := f.Stat()
	if err == nil {
		var p *file
		if p, err = newFile(filepath.Base(packPath), idx, f, fi.Size()); err == nil {
			p.index, p.unmap, p.closer = index, unmap, f
			return p, nil
		}
	}
	unmap()
	f.Close()
	return nil, err
}

// newFile checks an index against its pack and the pack's header, as
// git does before it uses a pack.
func newFile(name string, idx []byte, r io.ReaderAt, size int64) (*file, error) {
	p := &file{name: name, idx: idx, r: r, size: size}
	if len(idx) < idxTables+idxTrailer || !bytes.Equal(idx[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(idx[4:]) != 2 {
		return nil, fmt.Errorf("pack %s: index is not a version 2 pack index", name)
	}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(idx[idxHeader+4*i:])
		if i > 0 && p.fanout[i] < p.fanout[i-1] {
			return nil, fmt.Errorf("pack %s: index fan-out table goes down at %02x", name, i)
		}
	}
	if int64(p.fanout[255]) > int64(len(idx)-idxTables-idxTrailer)/perObject {
		return nil, fmt.Errorf("pack %s: index of %d bytes too short for %d objects", name, len(idx), p.fanout[255])
	}
	p.count = int(p.fanout[255])
	p.large = idxTables + p.count*perObject
	if (len(idx)-idxTrailer-p.large)%8 != 0 {
		return nil, fmt.Errorf("pack %s: index has a partial 64-bit offset", name)
	}
	if err := p.checkPack(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkPack checks the pack's header and that its checksum is the one
// the index was made for.
func (p *file) checkPack() error {
	if p.size < packHeader+packTrailer {
		return fmt.Errorf("pack %s: %d bytes is too short for a pack", p.name, p.size)
	}
	var head [packHeader]byte
	var sum [packTrailer]byte
	if _, err := p.r.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("pack %s: read header: %w", p.name, err)
	}
	if _, err := p.r.ReadAt(sum[:], p.size-packTrailer); err != nil {
		return fmt.Errorf("pack %s: read checksum: %w", p.name, err)
	}
	if v := binary.BigEndian.Uint32(head[4:]); string(head[:4]) != "PACK" || v != 2 && v != 3 {
		return fmt.Errorf("pack %s: not a version 2 or 3 pack", p.name)
	}
	if n := binary.BigEndian.Uint32(head[8:]); int64(n) != int64(p.count) {
		return fmt.Errorf("pack %s: holds %d objects, its index %d", p.name, n, p.count)
	}
	if !bytes.Equal(sum[:], p.idx[len(p.idx)-idxTrailer:][:20]) {
		return fmt.Errorf("pack %s: does not match its index", p.name)
	}
	return nil
}

func (p *file) close() error {
	if p.unmap != nil {
		p.unmap()
	}
	p.idx, p.unmap = nil, nil
	if p.closer != nil {
		return p.closer.Close()
	}
	return nil
}

// span is the range of the names table whose ids start with byte b.
func (p *file) span(b byte) (lo, hi int) {
	if b > 0 {
		lo = int(p.fanout[b-1])
	}
	return lo, int(p.fanout[b])
}

func (p *file) nameAt(i int) []byte {
	at := idxTables + i*20
	return p.idx[at : at+20]
}

// find looks an object up: the fan-out narrows the names table to those
// that share the first byte, then a binary search.
func (p *file) find(h storage.ID) (int64, bool, error) {
	lo, hi := p.span(h[0])
	i := lo + sort.Search(hi-lo, func(i int) bool {
		return bytes.Compare(p.nameAt(lo+i), h[:]) >= 0
	})
	if i >= hi || !bytes.Equal(p.nameAt(i), h[:]) {
		return 0, false, nil
	}
	off, err := p.offset(i)
	return off, true, err
}

// offset is where the i-th object of the names table starts in the pack.
func (p *file) offset(i int) (int64, error) {
	v := binary.BigEndian.Uint32(p.idx[idxTables+p.count*24+4*i:])
	off := int64(v)
	if v&largeFlag != 0 {
		at := p.large + int(v&^largeFlag)*8
		if at+8 > len(p.idx)-idxTrailer {
			return 0, fmt.Errorf("pack %s: index names 64-bit offset %d, past its table", p.name, v&^largeFlag)
		}
		u := binary.BigEndian.Uint64(p.idx[at:])
		if u > uint64(p.size) {
			return 0, fmt.Errorf("pack %s: offset %d past the end", p.name, u)
		}
		off = int64(u)
	}
	if off < packHeader || off >= p.size-packTrailer {
		return 0, fmt.Errorf("pack %s: offset %d outside the pack's entries", p.name, off)
	}
	return off, nil
}

// entry is the header of a pack entry.
type entry struct {
	off      int64 // where the entry starts
	typ      plumbing.ObjectType
	size     int64 // inflated
	data     int64 // where its compressed data starts
	base     int64 // an offset delta's base
	baseHash storage.ID
}

// header reads the header of the entry at off, which the caller checked
// is within the pack's entries.
func (p *file) header(off int64) (entry, error) {
	e := entry{off: off}
	var buf [32]byte // type and size, then a base offset or id: at most 1+9+20 bytes
	b := buf[:min(int64(len(buf)), p.size-packTrailer-off)]
	if n, err := p.r.ReadAt(b, off); n < len(b) {
		return e, fmt.Errorf("pack %s: read entry at %d: %w", p.name, off, err)
	}
	e.typ, e.size = plumbing.ObjectType(b[0]>>4&7), int64(b[0]&0x0f)
	i := 1
	for shift := 4; b[i-1]&0x80 != 0; shift += 7 {
		if i == len(b) || shift > 56 {
			return e, fmt.Errorf("pack %s: entry at %d has a bad size", p.name, off)
		}
		e.size |= int64(b[i]&0x7f) << shift
		i++
	}
	n, err := p.deltaBase(&e, b[i:])
	e.data = off + int64(i+n)
	return e, err
}

// deltaBase reads where a delta's base is from b, after the size, and
// returns how many bytes that took.
func (p *file) deltaBase(e *entry, b []byte) (int, error) {
	switch e.typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		return 0, nil
	case plumbing.REFDeltaObject:
		if len(b) < 20 {
			return 0, fmt.Errorf("pack %s: entry at %d cut short", p.name, e.off)
		}
		copy(e.baseHash[:], b)
		return 20, nil
	case plumbing.OFSDeltaObject:
		// Big-endian base 128, each continuation adding one so that
		// every offset has a single encoding.
		var rel int64
		for i, c := range b {
			if i > 0 {
				if rel >= e.off>>7 { // past the pack's start, and on to overflow
					break
				}
				rel = (rel + 1) << 7
			}
			rel |= int64(c & 0x7f)
			if rel > e.off-packHeader {
				break
			}
			if c&0x80 == 0 {
				if rel == 0 {
					break
				}
				e.base = e.off - rel
				return i + 1, nil
			}
		}
		return 0, fmt.Errorf("pack %s: offset delta at %d has its base outside the pack", p.name, e.off)
	}
	return 0, fmt.Errorf("pack %s: entry at %d has unknown type %d", p.name, e.off, e.typ)
}

// inflaters keeps zlib readers for reuse: making one allocates tables.
var inflaters sync.Pool

// sources keeps the buffered readers under them: an index build inflates
// a million objects, and a new 4 KiB buffer each was half of what it
// allocated.
var sources = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// TooLargeError is an object, or a delta's result, over
// Options.MaxObjectBytes; it was not inflated.
type TooLargeError struct{ Size, Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, over the limit of %d", e.Size, e.Limit)
}

// inflate reads an entry's data, which must inflate to exactly the size
// its header gives: a size is not trusted for an allocation unless the
// bytes left in the pack could hold it and it is within limit.
func (p *file) inflate(e entry, limit int64) ([]byte, error) {
	left := p.size - packTrailer - e.data
	if left <= 0 || e.size/maxRatio > left {
		return nil, fmt.Errorf("pack %s: entry at %d claims %d bytes from %d bytes of data", p.name, e.off, e.size, left)
	}
	if e.size > limit {
		return nil, fmt.Errorf("pack %s: entry at %d: %w", p.name, e.off, &TooLargeError{Size: e.size, Limit: limit})
	}
	src := sources.Get().(*bufio.Reader)
	src.Reset(io.NewSectionReader(p.r, e.data, left))
	defer sources.Put(src)
	var zr io.ReadCloser
	var err error
	if z, ok := inflaters.Get().(io.ReadCloser); ok {
		zr, err = z, z.(zlib.Resetter).Reset(src, nil)
	} else {
		zr, err = zlib.NewReader(src)
	}
	if err != nil {
		return nil, fmt.Errorf("pack %s: inflate entry at %d: %w", p.name, e.off, err)
	}
	defer inflaters.Put(zr)
	out := make([]byte, e.size)
	if _, err := io.ReadFull(zr, out); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("fewer bytes than its header's %d", e.size)
		}
		return nil, fmt.Errorf("pack %s: inflate entry at %d: %w", p.name, e.off, err)
	}
	// Reading on to the end checks the stream's checksum too.
	var one [1]byte
	if n, err := io.ReadFull(zr, one[:]); n > 0 || err != io.EOF {
		if n > 0 {
			err = fmt.Errorf("more bytes than its header's %d", e.size)
		}
		return nil, fmt.Errorf("pack %s: inflate entry at %d: %w", p.name, e.off, err)
	}
	return out, nil
}

// patch applies a delta to its base. The sizes in the delta's header
// are checked before go-git's PatchDelta, which checks each instruction,
// runs: the base's against the base, the result's against the limit and,
// after, against the result.
func patch(base, delta []byte, limit int64) ([]byte, error) {
	baseSize, n := binary.Uvarint(delta)
	if n <= 0 {
		return nil, errors.New("bad base size")
	}
	size, m := binary.Uvarint(delta[n:])
	switch {
	case m <= 0:
		return nil, errors.New("bad result size")
	case baseSize != uint64(len(base)):
		return nil, fmt.Errorf("made for a base of %d bytes, not %d", baseSize, len(base))
	case size > uint64(limit):
		return nil, fmt.Errorf("delta result: %w", &TooLargeError{Size: int64(min(size, uint64(math.MaxInt64))), Limit: limit})
	}
	out, err := packfile.PatchDelta(base, delta)
	if err != nil {
		return nil, err
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("result of %d bytes, not the %d its header says", len(out), size)
	}
	return out, nil
}

// withPrefix lists the ids in the pack that start with the hex prefix,
// whose first byte is first.
func (p *file) withPrefix(first byte, prefix string) []storage.ID {
	lo, hi := p.span(first)
	idAt := func(i int) (h storage.ID) {
		copy(h[:], p.nameAt(i))
		return h
	}
	var out []storage.ID
	start := lo + sort.Search(hi-lo, func(i int) bool { return idAt(lo+i).String() >= prefix })
	for i := start; i < hi; i++ {
		h := idAt(i)
		if !strings.HasPrefix(h.String(), prefix) {
			break
		}
		out = append(out, h)
	}
	return out
}

// hexByte decodes the first byte of a hex prefix.
func hexByte(prefix string) (byte, bool) {
	if len(prefix) < 2 {
		return 0, false
	}
	b, err := hex.DecodeString(prefix[:2])
	if err != nil {
		return 0, false
	}
	return b[0], true
}
