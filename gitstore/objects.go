package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gitobj"
	"github.com/git-snap/git-snap/gitstore/internal/pack"
	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/storage"
)

// objectReader reads and writes a repository's objects the way a
// short-lived process should: loose ones as files, packed ones through
// package pack, whose first read costs a binary search in a mapped index
// rather than the decoding of whole indexes go-git's storage does first,
// and those of the repositories objects/info/alternates names.
type objectReader struct {
	dir         string
	packs       *pack.Set
	max         int64     // bytes of one object
	inflaters   sync.Pool // zlib readers: a new one costs more than a small object's read
	fileReaders sync.Pool // *bufio.Reader, for loose objects' files
	// alternates are the object directories objects/info/alternates
	// names, read when an object is first missed.
	alternates struct {
		once sync.Once
		list []alternate
	}
	// deflater is the zlib writer objects are written with, kept for
	// the reader's life: a new one allocates and clears a large window,
	// and a sync.Pool loses it at every collection (a hook call on a long
	// session collects often).
	// It writes into buf, which goes to the file in one write. Trees
	// are written by store, without compression (see deflate).
	deflater struct {
		sync.Mutex
		z, store *zlib.Writer
		buf      bytes.Buffer
	}
	// batch, for a Batch's store, holds the objects written so far, not
	// yet in place: read before anything else.
	batch *Batch
}

func newObjectReader(dir string, max int64) *objectReader {
	if max <= 0 {
		max = DefaultMaxObjectBytes
	}
	return &objectReader{dir: dir, max: max, packs: pack.Open(filepath.Join(dir, "objects", "pack"), pack.Options{MaxObjectBytes: max})}
}

// ObjectTooLargeError is an object bigger than Options.MaxObjectBytes.
type ObjectTooLargeError struct {
	ID        storage.ID
	Size, Max int64
}

func (e *ObjectTooLargeError) Error() string {
	return fmt.Sprintf("object %s is %d bytes, more than the %d read at most (limits.max_document_bytes); it was not read", e.ID, e.Size, e.Max)
}

// UserError marks it as the input's fault: exit status 2.
func (e *ObjectTooLargeError) UserError() {}

// inflater gives a zlib reader of src, reused when one was put back.
func (r *objectReader) inflater(src io.Reader) (io.ReadCloser, error) {
	if z, ok := r.inflaters.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(src, nil); err != nil {
			return nil, err
		}
		return z, nil
	}
	return zlib.NewReader(src)
}

// readLoose reads a loose object in one pass: its header first, so that
// an object over max is refused before its content is inflated. The
// file is read through a reused buffer, and the header out of the
// inflated stream's first bytes: a session list reads thousands of
// small loose commits, and two buffers allocated for each were a tenth
// of it.
func (r *objectReader) readLoose(path string, max int64) (plumbing.ObjectType, []byte, error) {
	typ, data, _, err := r.readLoosePrefix(path, max, max)
	return typ, data, err
}

// readLoosePrefix is readLoose of the first limit bytes of the content
// at most, and its whole size. With limit below max, only the file's
// first bytes are inflated (zlib inflates a block whole otherwise: the
// first entry of a 13 KB tree cost the whole 190 µs), and the content
// may come short of limit where those bytes held less: the caller reads
// the object whole when what came is not enough.
func (r *objectReader) readLoosePrefix(path string, max, limit int64) (plumbing.ObjectType, []byte, int64, error) {
	f, err := safefile.OpenQuick(path)
	if err != nil {
		return plumbing.InvalidObject, nil, 0, err
	}
	defer f.Close()
	var in io.Reader = f
	if limit < max {
		in = io.LimitReader(f, 2*limit+512) // deflate stores incompressible bytes with little more, its tables first
	}
	src, _ := r.fileReaders.Get().(*bufio.Reader)
	if src == nil {
		src = bufio.NewReader(in)
	} else {
		src.Reset(in)
	}
	defer func() { src.Reset(nil); r.fileReaders.Put(src) }()
	z, err := r.inflater(src)
	if err != nil {
		return plumbing.InvalidObject, nil, 0, fmt.Errorf("loose object %s: %w", path, err)
	}
	defer func() {
		if z.Close() == nil || limit < max { // a prefix's reader is left mid-stream: Reset makes it new
			r.inflaters.Put(z)
		}
	}()
	var head [64]byte // "<type> <size>\x00" and what follows; a longer header is no header
	got, nul := 0, -1
	for nul < 0 && got < len(head) {
		n, err := z.Read(head[got:])
		nul = bytes.IndexByte(head[got:got+n], 0)
		if nul >= 0 {
			nul += got
		}
		got += n
		if err != nil {
			break
		}
	}
	if nul < 0 {
		return plumbing.InvalidObject, nil, 0, fmt.Errorf("loose object %s: bad header", path)
	}
	kind, size, _ := strings.Cut(string(head[:nul]), " ")
	typ, err := plumbing.ParseObjectType(kind)
	n, nerr := strconv.ParseInt(size, 10, 64)
	if err != nil || nerr != nil || n < 0 {
		return plumbing.InvalidObject, nil, 0, fmt.Errorf("loose object %s: bad header %q", path, head[:nul])
	}
	if n > max {
		return typ, nil, n, &pack.TooLargeError{Size: n, Limit: max}
	}
	data := make([]byte, min(n, limit))
	k := copy(data, head[nul+1:got])
	m, err := io.ReadFull(z, data[k:])
	if err != nil && limit < max {
		return typ, data[:k+m], n, nil // what the file's first bytes held
	}
	if err != nil {
		return plumbing.InvalidObject, nil, 0, fmt.Errorf("loose object %s: %w", path, err)
	}
	return typ, data, n, nil
}

// writeLoose stores an object as a loose file, as git does: compressed
// at git's default core.looseCompression (1, best speed), written to a
// temporary file beside its place and renamed into it, read-only. A
// zlib writer is reused across objects: a new one at the default level
// allocated and cleared more memory than a hook call's objects hold.
func (r *objectReader) writeLoose(typ plumbing.ObjectType, data []byte, h storage.ID) error {
	hex := h.String()
	dir := filepath.Join(r.dir, "objects", hex[:2])
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = r.deflate(f, typ, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o444)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, hex[2:])) // an object already there has the same bytes
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// deflate writes the loose form of an object: its header and data,
// zlib-compressed. A tree is written in zlib's stored blocks, not
// compressed: its object ids do not compress, and deflating the messages
// tree of a 200k-message session (1,563 entries) saved a fifth of its
// 48 KB and took longer than the rest of the hook call's work. git
// reads it as any other loose object, and packs it as it packs any.
func (r *objectReader) deflate(w io.Writer, typ plumbing.ObjectType, data []byte) error {
	r.deflater.Lock()
	defer r.deflater.Unlock()
	buf := &r.deflater.buf
	buf.Reset()
	z, level := &r.deflater.z, zlib.BestSpeed
	if typ == plumbing.TreeObject {
		z, level = &r.deflater.store, zlib.NoCompression
	}
	if *z == nil {
		*z, _ = zlib.NewWriterLevel(buf, level) // a valid level: no error
	} else {
		(*z).Reset(buf)
	}
	_, err := fmt.Fprintf(*z, "%s %d\x00", typ, len(data))
	if err == nil {
		_, err = (*z).Write(data)
	}
	if cerr := (*z).Close(); err == nil {
		err = cerr
	}
	if err == nil {
		_, err = w.Write(buf.Bytes())
	}
	return err
}

// EncodedObject finds an object (see read) for go-git.
func (r *objectReader) EncodedObject(t plumbing.ObjectType, h storage.ID) (plumbing.EncodedObject, error) {
	typ, data, err := r.read(h)
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && t != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(typ)
	if _, err := obj.Write(data); err != nil {
		return nil, err
	}
	return obj, nil
}

// read finds an object where git looks: in a batch's pack being
// written, in the packs listed so far
// (an index answers a miss without a system call, where a loose lookup
// of a packed object costs a failed open: a thousand sessions' tips, a
// thousand opens), then loose, then in packs written since the packs
// were listed (git gc packs an object before it prunes the loose copy),
// then in alternates. The directory of packs is
// listed again only when an object is neither packed nor loose, not for
// every loose object read.
func (r *objectReader) read(h storage.ID) (plumbing.ObjectType, []byte, error) {
	typ, data, err := r.find(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		hex := h.String()
		typ, data, err = r.readLoose(filepath.Join(r.dir, "objects", hex[:2], hex[2:]), r.max)
		if errors.Is(err, fs.ErrNotExist) {
			typ, data, err = r.packs.Find(h)
		}
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, plumbing.ErrObjectNotFound) {
		return r.readElsewhere(h)
	}
	if tl := (*pack.TooLargeError)(nil); errors.As(err, &tl) {
		return 0, nil, &ObjectTooLargeError{ID: h, Size: tl.Size, Max: tl.Limit}
	}
	var pathErr *fs.PathError
	if err != nil && !errors.Is(err, pack.ErrClosed) && !errors.As(err, &pathErr) {
		// There, but not an object: a file's open or read failing (no
		// permission, too many files open) is not the object's fault.
		return 0, nil, &damagedError{err}
	}
	return typ, data, err
}

// damagedError is an object that is there but does not read: a loose
// file cut short or empty, a pack entry that does not inflate.
type damagedError struct{ err error }

func (e *damagedError) Error() string { return "damaged object: " + e.err.Error() }
func (e *damagedError) Unwrap() error { return e.err }

// readElsewhere reads an object from the alternates, loose then packed
// in each, within the size limit.
func (r *objectReader) readElsewhere(h storage.ID) (plumbing.ObjectType, []byte, error) {
	hex := h.String()
	for _, alt := range r.alternatesList() {
		typ, data, err := r.readLoose(filepath.Join(alt.dir, hex[:2], hex[2:]), r.max)
		if errors.Is(err, fs.ErrNotExist) {
			typ, data, err = alt.packs.Find(h)
		}
		if tl := (*pack.TooLargeError)(nil); errors.As(err, &tl) {
			return 0, nil, &ObjectTooLargeError{ID: h, Size: tl.Size, Max: tl.Limit}
		}
		if err == nil || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, plumbing.ErrObjectNotFound) {
			return typ, data, err
		}
	}
	return 0, nil, plumbing.ErrObjectNotFound
}

// blobData reads a blob's bytes.
func (r *objectReader) blobData(h storage.ID) ([]byte, error) {
	typ, data, err := r.read(h)
	if err != nil {
		return nil, err
	}
	if typ != plumbing.BlobObject {
		return nil, fmt.Errorf("object %s is a %s, not a blob", h, typ)
	}
	return data, nil
}

// commit reads and parses a commit object; any other object is not
// found, as for go-git's GetCommit.
func (r *objectReader) commit(h storage.ID) (gitobj.Commit, error) {
	data, err := r.readAs(h, plumbing.CommitObject)
	if err != nil {
		return gitobj.Commit{}, err
	}
	return gitobj.ParseCommit(data)
}

// tree reads and parses a tree object; any other object is not found,
// as for go-git's GetTree.
func (r *objectReader) tree(h storage.ID) (*gitobj.Tree, error) {
	data, err := r.readAs(h, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	entries, err := gitobj.ParseTree(data)
	if err != nil {
		return nil, err
	}
	return &gitobj.Tree{Hash: h, Entries: entries}, nil
}

// tag reads and parses an annotated tag; any other object is not
// found, as for go-git's GetTag.
func (r *objectReader) tag(h storage.ID) (gitobj.Tag, error) {
	data, err := r.readAs(h, plumbing.TagObject)
	if err != nil {
		return gitobj.Tag{}, err
	}
	return gitobj.ParseTag(data)
}

// readAs reads an object of type typ: one of another type is not found.
func (r *objectReader) readAs(h storage.ID, typ plumbing.ObjectType) ([]byte, error) {
	got, data, err := r.read(h)
	if err != nil {
		return nil, err
	}
	if got != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	return data, nil
}

// Close releases the mapped indexes and open packs.
func (r *objectReader) Close() error {
	errs := []error{r.packs.Close()}
	r.alternates.once.Do(func() {}) // none is read after Close
	for _, alt := range r.alternates.list {
		errs = append(errs, alt.packs.Close())
	}
	return errors.Join(errs...)
}

// withPrefix lists the objects, loose and packed, whose id starts with
// the hex prefix (at least two digits). Loose ones are listed first: git
// gc writes a pack before it prunes what it packed.
func (r *objectReader) withPrefix(prefix string) []storage.ID {
	var out []storage.ID
	if entries, err := os.ReadDir(filepath.Join(r.dir, "objects", prefix[:2])); err == nil {
		for _, e := range entries {
			if id := prefix[:2] + e.Name(); len(id) == 40 && strings.HasPrefix(id, prefix) && storage.IsID(id) {
				out = append(out, storage.NewID(id))
			}
		}
	}
	return append(out, r.packs.WithPrefix(prefix)...)
}

// reload takes in the packs a fetch or bundle import just wrote. A pack
// directory that cannot be listed keeps the packs known so far.
func (r *objectReader) reload() {
	_ = r.packs.Refresh()
}

// find reads a packed object: from a batch's pack being written, then
// from the packs listed so far (see read).
func (r *objectReader) find(h storage.ID) (plumbing.ObjectType, []byte, error) {
	if r.batch != nil {
		typ, data, err := r.batch.read(h)
		if !errors.Is(err, plumbing.ErrObjectNotFound) {
			return typ, data, err
		}
	}
	return r.packs.Lookup(h)
}

// HasEncodedObject reports whether the object is stored (nil) or not
// (plumbing.ErrObjectNotFound), a batch's pack being written included.
// It looks where read does, in the same order, and as go-git's does,
// not in alternates; but in a pack's mapped index, where go-git decodes
// every index whole first (a save into a repository git gc had packed
// spent a third of its time there).
func (r *objectReader) HasEncodedObject(h storage.ID) error {
	if r.batch != nil && r.batch.has(h) {
		return nil
	}
	if ok, err := r.packs.Contains(h); ok || err != nil {
		return err
	}
	hex := h.String()
	_, err := os.Stat(filepath.Join(r.dir, "objects", hex[:2], hex[2:]))
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if ok, err := r.packs.Has(h); ok || err != nil {
		return err
	}
	return plumbing.ErrObjectNotFound
}
