package pack

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

	"github.com/git-snap/git-snap/storage"
)

// Writer writes one pack the way git fast-import does: objects are
// appended whole (no deltas: git gc finds those later) to a temporary
// file in the pack directory, and Finish fixes the header's count,
// checks every object against its id, writes the index, syncs both and
// renames them into place, the pack first and its index last, so that no
// reader sees a pack without all of its objects. Objects added are
// readable before Finish (Read), as fast-import's are.
//
// A Writer is safe for concurrent use; Add compresses outside its lock.
type Writer struct {
	dir, tmp string
	temp     string // the prefix of temporary files' names
	max      int64

	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	end   int64 // bytes written, buffered ones included
	objs  map[storage.ID]written
	order []storage.ID // in the order of their offsets
	done  bool

	deflaters sync.Pool
	deflater  func(io.Writer) Deflater
}

// Deflater compresses as zlib does, and can be reused.
type Deflater interface {
	io.WriteCloser
	Reset(w io.Writer)
}

// WriterOptions tune a Writer.
type WriterOptions struct {
	Options
	// NewDeflater makes a compressor at git's best speed; the standard
	// library's zlib when nil.
	NewDeflater func(w io.Writer) Deflater
}

// written is where an object's entry starts and the CRC-32 of its bytes
// (header and compressed data), as a version 2 index keeps it.
type written struct {
	off int64
	crc uint32
}

// NewWriter starts a pack in dir (a repository's objects/pack), in a
// temporary file whose name starts with temp (its index's with temp and
// "idx_"). An object over opts.MaxObjectBytes is not read back.
func NewWriter(dir, temp string, opts WriterOptions) (*Writer, error) {
	if opts.MaxObjectBytes <= 0 {
		opts.MaxObjectBytes = DefaultMaxObjectBytes
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, temp)
	if err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, tmp: f.Name(), temp: temp, max: opts.MaxObjectBytes, f: f, w: bufio.NewWriterSize(f, 1<<20), objs: map[storage.ID]written{}, deflater: opts.NewDeflater}
	if w.deflater == nil {
		w.deflater = func(w io.Writer) Deflater {
			z, _ := zlib.NewWriterLevel(w, zlib.BestSpeed) // a valid level: no error
			return z
		}
	}
	var head [packHeader]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], 2) // the count is set by Finish
	w.write(head[:])
	return w, nil
}

// write appends to the pack; the caller holds mu (or owns w alone).
func (w *Writer) write(b []byte) {
	_, _ = w.w.Write(b) // an error stays in the bufio.Writer, for Flush to return
	w.end += int64(len(b))
}

// Has reports whether the pack holds an object.
func (w *Writer) Has(h storage.ID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.objs[h]
	return ok
}

// Size is the bytes written so far.
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.end
}

// Len is the number of objects written so far.
func (w *Writer) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.order)
}

// Object is an object to write: its type, data and id.
type Object struct {
	Type plumbing.ObjectType
	Data []byte
	Hash storage.ID
}

// Add writes objects whose ids the caller computed; one the pack holds
// already is not written again. They are compressed before the lock is
// taken, and written under one: the goroutines of an import add a
// snapshot's objects at once, and do not wait on each other for each.
func (w *Writer) Add(objs ...Object) error {
	entries := make([][]byte, len(objs))
	for i, o := range objs {
		e, err := w.entry(o.Type, o.Data)
		if err != nil {
			return err
		}
		entries[i] = e
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errors.New("pack already finished")
	}
	for i, o := range objs {
		if _, ok := w.objs[o.Hash]; ok {
			continue
		}
		w.objs[o.Hash] = written{off: w.end, crc: crc32.ChecksumIEEE(entries[i])}
		w.order = append(w.order, o.Hash)
		w.write(entries[i])
	}
	return nil
}

// entry encodes an object as a pack entry: its type and size, then its
// data compressed at zlib's best speed, as git writes loose objects.
func (w *Writer) entry(typ plumbing.ObjectType, data []byte) ([]byte, error) {
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	default:
		return nil, fmt.Errorf("cannot pack an object of type %s", typ)
	}
	var b bytes.Buffer
	b.Grow(len(data)/2 + 64)
	size := uint64(len(data))
	c := byte(typ)<<4 | byte(size&0x0f)
	for size >>= 4; size > 0; size >>= 7 {
		b.WriteByte(c | 0x80)
		c = byte(size & 0x7f)
	}
	b.WriteByte(c)
	z, _ := w.deflaters.Get().(Deflater)
	if z == nil {
		z = w.deflater(&b)
	} else {
		z.Reset(&b)
	}
	defer w.deflaters.Put(z)
	if _, err := z.Write(data); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Read reads an object the pack holds; plumbing.ErrObjectNotFound when
// it holds none of that id.
func (w *Writer) Read(h storage.ID) (plumbing.ObjectType, []byte, error) {
	w.mu.Lock()
	at, ok := w.objs[h]
	err := w.w.Flush()
	end := w.end
	w.mu.Unlock()
	switch {
	case !ok:
		return 0, nil, plumbing.ErrObjectNotFound
	case err != nil:
		return 0, nil, fmt.Errorf("write pack: %w", err)
	}
	p := &file{name: filepath.Base(w.tmp), r: w.f, size: end + packTrailer}
	e, err := p.header(at.off)
	if err != nil {
		return 0, nil, err
	}
	data, err := p.inflate(e, w.max)
	return e.typ, data, err
}

// Abort removes the pack, unfinished.
func (w *Writer) Abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.done = true
		w.f.Close()
		os.Remove(w.tmp)
	}
}

// Finish completes the pack and puts it in place with its index, and
// returns its name (pack-<checksum>, without extension); "" when it
// holds no object, and then nothing is written. Before anything is
// renamed, the pack is read back from the disk whole: every entry must
// have the CRC-32 it was written with, and every tree, commit and tag
// must inflate to the object its id names, as git index-pack checks a
// pack it receives (blobs, nine tenths of the bytes, are checked by
// their CRC alone: inflating them again cost a tenth of an import).
// On any error the temporary files are removed.
func (w *Writer) Finish() (name string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return "", errors.New("pack already finished")
	}
	w.done = true
	var idxTmp string
	defer func() {
		if err != nil {
			w.f.Close()
			os.Remove(w.tmp)
			if idxTmp != "" {
				os.Remove(idxTmp)
			}
		}
	}()
	if len(w.order) == 0 {
		w.f.Close()
		os.Remove(w.tmp)
		return "", nil
	}
	if err := w.w.Flush(); err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	var count [4]byte
	binary.BigEndian.PutUint32(count[:], uint32(len(w.order)))
	if _, err := w.f.WriteAt(count[:], 8); err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	sum, err := w.check()
	if err != nil {
		return "", err
	}
	if _, err := w.f.WriteAt(sum[:], w.end); err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	if err := syncClose(w.f); err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	if idxTmp, err = w.writeIndex(sum); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	return install(w.dir, sum, w.tmp, idxTmp)
}

// check reads the pack back from the disk: every entry where it was
// written, with the CRC-32 its bytes were written with, and every entry
// but a blob's inflating to data whose id is the one it was added as. It
// returns the pack's checksum.
func (w *Writer) check() (storage.ID, error) {
	sum := sha1.New()
	r := bufio.NewReaderSize(io.NewSectionReader(w.f, 0, w.end), 1<<20)
	if _, err := io.CopyN(sum, r, packHeader); err != nil {
		return storage.ID{}, fmt.Errorf("read pack back: %w", err)
	}
	var buf, data []byte
	var z io.ReadCloser
	for i, h := range w.order {
		at, next := w.objs[h].off, w.end
		if i+1 < len(w.order) {
			next = w.objs[w.order[i+1]].off
		}
		buf = grow(buf, int(next-at))
		if _, err := io.ReadFull(r, buf); err != nil {
			return storage.ID{}, fmt.Errorf("read pack back: %w", err)
		}
		sum.Write(buf)
		if crc32.ChecksumIEEE(buf) != w.objs[h].crc {
			return storage.ID{}, fmt.Errorf("pack entry of %s at %d reads back changed", h, at)
		}
		typ, size, n := readEntryHeader(buf)
		if n == 0 || size > w.max {
			return storage.ID{}, fmt.Errorf("pack entry of %s at %d has a bad header", h, at)
		}
		if typ == plumbing.BlobObject {
			continue // its bytes are the ones written: the CRC says so
		}
		var err error
		if z == nil {
			z, err = zlib.NewReader(bytes.NewReader(buf[n:]))
		} else {
			err = z.(zlib.Resetter).Reset(bytes.NewReader(buf[n:]), nil)
		}
		if err != nil {
			return storage.ID{}, fmt.Errorf("pack entry of %s at %d: %w", h, at, err)
		}
		data = grow(data, int(size))
		if _, err := io.ReadFull(z, data); err != nil {
			return storage.ID{}, fmt.Errorf("pack entry of %s at %d: %w", h, at, err)
		}
		if got := objectID(typ, data); got != h {
			return storage.ID{}, fmt.Errorf("pack entry at %d is object %s, not %s", at, got, h)
		}
	}
	var out storage.ID
	copy(out[:], sum.Sum(nil))
	return out, nil
}

// readEntryHeader reads a whole object's type and size from the start of
// its entry and returns how many bytes they took (0: a bad header).
func readEntryHeader(b []byte) (plumbing.ObjectType, int64, int) {
	if len(b) == 0 {
		return 0, 0, 0
	}
	typ, size := plumbing.ObjectType(b[0]>>4&7), int64(b[0]&0x0f)
	i := 1
	for shift := 4; b[i-1]&0x80 != 0; shift += 7 {
		if i == len(b) || shift > 56 {
			return 0, 0, 0
		}
		size |= int64(b[i]&0x7f) << shift
		i++
	}
	return typ, size, i
}

// objectID is git's id of an object: the SHA-1 of its type, size and
// data.
func objectID(typ plumbing.ObjectType, data []byte) storage.ID {
	h := sha1.New()
	h.Write(typ.Bytes())
	h.Write([]byte(" " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var out storage.ID
	copy(out[:], h.Sum(nil))
	return out
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// writeIndex writes the pack's version 2 index to a temporary file
// beside it, synced, and returns its name.
func (w *Writer) writeIndex(sum storage.ID) (string, error) {
	iw := new(idxfile.Writer)
	if err := iw.OnHeader(uint32(len(w.order))); err != nil {
		return "", err
	}
	for _, h := range w.order {
		iw.Add(plumbing.Hash(h), uint64(w.objs[h].off), w.objs[h].crc)
	}
	if err := iw.OnFooter(plumbing.Hash(sum)); err != nil {
		return "", err
	}
	return writeIndexFile(w.dir, w.temp, iw)
}

// writeIndexFile writes the index iw holds to a temporary file in dir
// whose name starts with temp and "idx_", synced, and returns its name.
func writeIndexFile(dir, temp string, iw *idxfile.Writer) (string, error) {
	idx, err := iw.Index()
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, temp+"idx_")
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriter(f)
	if _, err = idxfile.NewEncoder(bw).Encode(idx); err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = syncClose(f)
	} else {
		f.Close()
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// install renames a pack and then its index into place as
// pack-<sum>.pack and .idx, read-only as git makes them, and returns the
// name (pack-<sum>): git reads a pack once its index is there.
func install(dir string, sum storage.ID, packTmp, idxTmp string) (string, error) {
	name := "pack-" + sum.String()
	base := filepath.Join(dir, name)
	for _, mv := range [][2]string{{packTmp, base + ".pack"}, {idxTmp, base + ".idx"}} {
		_ = os.Chmod(mv[0], 0o444) // git's modes; best effort
		if err := os.Rename(mv[0], mv[1]); err != nil {
			return "", fmt.Errorf("put pack in place: %w", err)
		}
	}
	return name, nil
}

// syncClose syncs a file to the disk and closes it: git syncs the packs
// and indexes it writes (core.fsync's default).
func syncClose(f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
