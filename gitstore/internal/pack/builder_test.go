package pack

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/gitstore/internal/gittest"
	"github.com/git-snap/git-snap/storage"
)

type gitObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// catAll reads every object of the repository at dir with git cat-file.
func catAll(t testing.TB, dir string) map[storage.ID]gitObject {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	objects := map[storage.ID]gitObject{}
	for len(out) > 0 {
		line, rest, _ := bytes.Cut(out, []byte("\n"))
		var id, typ string
		var size int
		if _, err := fmt.Sscanf(string(line), "%s %s %d", &id, &typ, &size); err != nil || len(rest) < size+1 {
			t.Fatalf("git cat-file says %q", line)
		}
		ot, _ := plumbing.ParseObjectType(typ)
		objects[storage.NewID(id)] = gitObject{ot, rest[:size]}
		out = rest[size+1:]
	}
	return objects
}

// packBuilder lays out a pack entry by entry, as a test wants it,
// damaged or not, and makes a version 2 index for it.
type packBuilder struct {
	buf     []byte
	entries []builtEntry
}

type builtEntry struct {
	id       storage.ID
	off, end int64
}

func newPackBuilder() *packBuilder {
	return &packBuilder{buf: []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x00")}
}

// raw appends an entry's bytes as they are, indexed under id.
func (b *packBuilder) raw(id storage.ID, entry []byte) int64 {
	off := int64(len(b.buf))
	b.buf = append(b.buf, entry...)
	b.entries = append(b.entries, builtEntry{id, off, int64(len(b.buf))})
	return off
}

// object appends a whole object.
func (b *packBuilder) object(typ plumbing.ObjectType, data []byte) (storage.ID, int64) {
	id := storage.ID(plumbing.ComputeHash(typ, data))
	return id, b.raw(id, append(entryHeader(typ, int64(len(data))), deflate(data)...))
}

// ofsDelta appends an offset delta against the entry at base, indexed
// under id.
func (b *packBuilder) ofsDelta(id storage.ID, base int64, delta []byte) int64 {
	h := append(entryHeader(plumbing.OFSDeltaObject, int64(len(delta))), ofsVarint(int64(len(b.buf))-base)...)
	return b.raw(id, append(h, deflate(delta)...))
}

// refDelta appends a ref delta against the object base, indexed under id.
func (b *packBuilder) refDelta(id, base storage.ID, delta []byte) int64 {
	h := append(entryHeader(plumbing.REFDeltaObject, int64(len(delta))), base[:]...)
	return b.raw(id, append(h, deflate(delta)...))
}

// finish returns the index and the pack; with large, every offset but
// the first entry's is in the 64-bit table.
func (b *packBuilder) finish(large bool) (idx, pack []byte) {
	pack = append([]byte(nil), b.buf...)
	binary.BigEndian.PutUint32(pack[8:], uint32(len(b.entries)))
	sum := sha1.Sum(pack)
	pack = append(pack, sum[:]...)

	sorted := append([]builtEntry(nil), b.entries...)
	sort.Slice(sorted, func(i, j int) bool { return bytes.Compare(sorted[i].id[:], sorted[j].id[:]) < 0 })
	idx = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}
	var fanout [256]uint32
	for _, e := range sorted {
		for i := int(e.id[0]); i < 256; i++ {
			fanout[i]++
		}
	}
	for _, n := range fanout {
		idx = binary.BigEndian.AppendUint32(idx, n)
	}
	for _, e := range sorted {
		idx = append(idx, e.id[:]...)
	}
	for _, e := range sorted {
		idx = binary.BigEndian.AppendUint32(idx, crc32.ChecksumIEEE(pack[e.off:e.end]))
	}
	var table []byte
	for _, e := range sorted {
		if large && e.off != packHeader { // git wants the first in 31 bits
			idx = binary.BigEndian.AppendUint32(idx, largeFlag|uint32(len(table)/8))
			table = binary.BigEndian.AppendUint64(table, uint64(e.off))
		} else {
			idx = binary.BigEndian.AppendUint32(idx, uint32(e.off))
		}
	}
	idx = append(append(idx, table...), sum[:]...)
	isum := sha1.Sum(idx)
	return append(idx, isum[:]...), pack
}

// entryHeader is a pack entry's type and size.
func entryHeader(typ plumbing.ObjectType, size int64) []byte {
	c := byte(typ)<<4 | byte(size&0x0f)
	size >>= 4
	var out []byte
	for size > 0 {
		out = append(out, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(out, c)
}

// ofsVarint encodes an offset delta's distance to its base.
func ofsVarint(rel int64) []byte {
	out := []byte{byte(rel & 0x7f)}
	for rel >>= 7; rel > 0; rel >>= 7 {
		rel--
		out = append([]byte{0x80 | byte(rel&0x7f)}, out...)
	}
	return out
}

// deflater is reused: a new one allocates a megabyte, too much for
// packs of ten thousand entries.
var deflater = zlib.NewWriter(nil)

func deflate(data []byte) []byte {
	var buf bytes.Buffer
	deflater.Reset(&buf)
	if _, err := deflater.Write(data); err != nil {
		panic(err) // writing to memory cannot fail
	}
	if err := deflater.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// delta makes a delta's bytes: the sizes, then instructions made with
// copyOp and insertOp.
func delta(baseSize, size int, ops ...[]byte) []byte {
	out := binary.AppendUvarint(nil, uint64(baseSize))
	out = binary.AppendUvarint(out, uint64(size))
	for _, op := range ops {
		out = append(out, op...)
	}
	return out
}

// copyOp copies n bytes of the base from off (n from 1 to 0xffff).
func copyOp(off, n int) []byte {
	cmd, args := byte(0x80), []byte{}
	for i := range 4 {
		if b := byte(off >> (8 * i)); b != 0 {
			cmd |= 1 << i
			args = append(args, b)
		}
	}
	for i := range 2 {
		if b := byte(n >> (8 * i)); b != 0 {
			cmd |= 0x10 << i
			args = append(args, b)
		}
	}
	return append([]byte{cmd}, args...)
}

// insertOp inserts data (1 to 127 bytes).
func insertOp(data string) []byte { return append([]byte{byte(len(data))}, data...) }

// writePack puts a pack and its index in dir under the name
// pack-<name>.
func writePack(t testing.TB, dir, name string, idx, pack []byte) {
	t.Helper()
	base := filepath.Join(dir, "pack-"+name)
	if err := os.WriteFile(base+".pack", pack, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".idx", idx, 0o644); err != nil {
		t.Fatal(err)
	}
}

// samplePack is a pack of every kind of entry: whole objects, an offset
// delta on an offset delta, and a ref delta.
func samplePack(large bool) (idx, pack []byte, want map[storage.ID][]byte) {
	b := newPackBuilder()
	want = map[storage.ID][]byte{}
	base := []byte("the first version of a file that deltas will be made against\n")
	id, off := b.object(plumbing.BlobObject, base)
	want[id] = base
	v2 := append(append([]byte(nil), base...), "and a second line\n"...)
	id2 := storage.ID(plumbing.ComputeHash(plumbing.BlobObject, v2))
	off2 := b.ofsDelta(id2, off, delta(len(base), len(v2), copyOp(0, len(base)), insertOp("and a second line\n")))
	want[id2] = v2
	v3 := append([]byte("a third: "), v2[4:20]...)
	id3 := storage.ID(plumbing.ComputeHash(plumbing.BlobObject, v3))
	b.ofsDelta(id3, off2, delta(len(v2), len(v3), insertOp("a third: "), copyOp(4, 16)))
	want[id3] = v3
	v4 := append([]byte("by id: "), base[:9]...)
	id4 := storage.ID(plumbing.ComputeHash(plumbing.BlobObject, v4))
	b.refDelta(id4, id, delta(len(base), len(v4), insertOp("by id: "), copyOp(0, 9)))
	want[id4] = v4
	tree := []byte("100644 f\x00" + string(id[:]))
	idt, _ := b.object(plumbing.TreeObject, tree)
	want[idt] = tree
	idx, pack = b.finish(large)
	return idx, pack, want
}

// The hand-built packs, with and without 64-bit offsets, are packs git
// reads as its own: the damaged ones in other tests differ from good
// ones only where they mean to.
func TestHandBuiltPacksAreGitPacks(t *testing.T) {
	for _, large := range []bool{false, true} {
		dir := t.TempDir()
		gittest.Git(t, dir, "init", "-q")
		idx, pack, want := samplePack(large)
		sum := sha1.Sum(pack[:len(pack)-20])
		packDir := filepath.Join(dir, ".git", "objects", "pack")
		name := storage.ID(sum).String()
		writePack(t, packDir, name, idx, pack)
		gittest.Git(t, dir, "verify-pack", filepath.Join(packDir, "pack-"+name+".idx"))
		s := Open(packDir, Options{})
		defer s.Close()
		objects := catAll(t, dir)
		if len(objects) != len(want) {
			t.Fatalf("git reads %d objects, %d were packed", len(objects), len(want))
		}
		for id, data := range want {
			if o := objects[id]; !bytes.Equal(o.data, data) {
				t.Errorf("large=%v: git reads %s as %q", large, id, o.data)
			}
			if _, got, err := s.Find(id); err != nil || !bytes.Equal(got, data) {
				t.Errorf("large=%v %s: %q, %v", large, id, got, err)
			}
		}
	}
}
