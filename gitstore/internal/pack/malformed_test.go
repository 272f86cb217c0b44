package pack

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/storage"
)

// setOf is a Set of packs given as bytes; its directory holds nothing,
// so a miss finds no new packs.
func setOf(opts Options, packs ...*file) *Set {
	s := Open("", opts)
	s.packs, s.scanned = packs, true
	return s
}

// openBytes opens a pack given as bytes.
func openBytes(idx, pack []byte) (*file, error) {
	return newFile("test.pack", idx, bytes.NewReader(pack), int64(len(pack)))
}

// resign puts a pack's checksum back after a change, in the pack and in
// its index, so that the change is what a test sees.
func resign(idx, pack []byte) {
	sum := sha1.Sum(pack[:len(pack)-20])
	copy(pack[len(pack)-20:], sum[:])
	copy(idx[len(idx)-40:], sum[:])
}

var someID = storage.NewID(strings.Repeat("5a", 20))

// Damaged indexes and packs are refused when opened, each for what is
// wrong with it.
func TestDamagedPacksAreRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(idx, pack []byte) ([]byte, []byte)
		want   string
	}{
		{"the one-byte pack 0xE0", func(idx, _ []byte) ([]byte, []byte) { return idx, []byte{0xe0} }, "too short for a pack"},
		{"not an index", func(idx, pack []byte) ([]byte, []byte) { idx[1] = 'X'; return idx, pack }, "not a version 2 pack index"},
		{"index version 1", func(idx, pack []byte) ([]byte, []byte) { idx[7] = 1; return idx, pack }, "not a version 2 pack index"},
		{"fan-out going down", func(idx, pack []byte) ([]byte, []byte) {
			binary.BigEndian.PutUint32(idx[idxHeader+4*0x10:], 1000)
			return idx, pack
		}, "fan-out table goes down"},
		{"more objects than the index holds", func(idx, pack []byte) ([]byte, []byte) {
			binary.BigEndian.PutUint32(idx[idxHeader+4*255:], 1<<31)
			return idx, pack
		}, "too short for"},
		{"partial 64-bit offset", func(idx, pack []byte) ([]byte, []byte) {
			return append(idx[:len(idx)-40:len(idx)-40], append(make([]byte, 4), idx[len(idx)-40:]...)...), pack
		}, "partial 64-bit offset"},
		{"not a pack", func(idx, pack []byte) ([]byte, []byte) { pack[0] = 'J'; resign(idx, pack); return idx, pack }, "not a version 2 or 3 pack"},
		{"object count differs", func(idx, pack []byte) ([]byte, []byte) { pack[11]++; resign(idx, pack); return idx, pack }, "holds 6 objects, its index 5"},
		{"index of another pack", func(idx, pack []byte) ([]byte, []byte) { pack[len(pack)-1]++; return idx, pack }, "does not match its index"},
	} {
		idx, pack, _ := samplePack(false)
		idx, pack = c.damage(idx, pack)
		if _, err := openBytes(idx, pack); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// Every cut of an index, however short, is refused, not read past.
func TestTruncatedIndexes(t *testing.T) {
	for _, large := range []bool{false, true} {
		idx, pack, _ := samplePack(large)
		if _, err := openBytes(idx, pack); err != nil {
			t.Fatal(err)
		}
		for n := range len(idx) {
			if _, err := openBytes(idx[:n:n], pack); err == nil {
				t.Fatalf("large=%v: index cut to %d of %d bytes opened", large, n, len(idx))
			}
		}
	}
}

// A damaged entry, index entry or delta is an error naming what is wrong
// with it, never a panic, an allocation of what the entry claims, or
// "not found".
func TestDamagedEntries(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(b *packBuilder)
		want  string
	}{
		{"entry 0xE0 at the end", func(b *packBuilder) { b.raw(someID, []byte{0xe0}) }, "bad size"},
		{"endless size", func(b *packBuilder) { b.raw(someID, bytes.Repeat([]byte{0xff}, 30)) }, "bad size"},
		{"type 0", func(b *packBuilder) { b.raw(someID, append([]byte{0x05}, deflate([]byte("hello"))...)) }, "unknown type 0"},
		{"type 5", func(b *packBuilder) { b.raw(someID, append([]byte{0x55}, deflate([]byte("hello"))...)) }, "unknown type 5"},
		{"inflates short", func(b *packBuilder) {
			b.raw(someID, append(entryHeader(plumbing.BlobObject, 10), deflate([]byte("hello"))...))
		}, "fewer bytes than its header's 10"},
		{"inflates long", func(b *packBuilder) {
			b.raw(someID, append(entryHeader(plumbing.BlobObject, 3), deflate([]byte("hello"))...))
		}, "more bytes than its header's 3"},
		{"bad checksum", func(b *packBuilder) {
			z := deflate([]byte("hello"))
			z[len(z)-1]++
			b.raw(someID, append(entryHeader(plumbing.BlobObject, 5), z...))
		}, "checksum"},
		{"not zlib", func(b *packBuilder) { b.raw(someID, append(entryHeader(plumbing.BlobObject, 5), "hello"...)) }, "inflate entry"},
		{"claims more than its data holds", func(b *packBuilder) {
			b.raw(someID, append(entryHeader(plumbing.BlobObject, 1<<28), deflate([]byte("hello"))...))
		}, "claims 268435456 bytes from"},
		{"over the limit", func(b *packBuilder) {
			b.raw(someID, append(entryHeader(plumbing.BlobObject, 5000), deflate(make([]byte, 5000))...))
		}, "over the limit of 4096"},
		{"offset delta before the pack", func(b *packBuilder) {
			rel := ofsVarint(int64(len(b.buf)) - packHeader + 1)
			b.raw(someID, append(append(entryHeader(plumbing.OFSDeltaObject, 4), rel...), deflate(delta(1, 1, insertOp("x")))...))
		}, "base outside the pack"},
		{"offset delta on itself", func(b *packBuilder) {
			b.raw(someID, append(append(entryHeader(plumbing.OFSDeltaObject, 4), 0), deflate(delta(1, 1, insertOp("x")))...))
		}, "base outside the pack"},
		{"endless delta offset", func(b *packBuilder) {
			b.raw(someID, append(entryHeader(plumbing.OFSDeltaObject, 4), bytes.Repeat([]byte{0xff}, 25)...))
		}, "base outside the pack"},
		{"ref delta cut short", func(b *packBuilder) { b.raw(someID, append(entryHeader(plumbing.REFDeltaObject, 4), 1, 2, 3)) }, "cut short"},
		{"ref delta on an absent base", func(b *packBuilder) {
			b.refDelta(someID, storage.NewID(strings.Repeat("77", 20)), delta(1, 1, insertOp("x")))
		}, "not in the pack"},
		{"ref delta cycle", func(b *packBuilder) {
			other := storage.NewID(strings.Repeat("66", 20))
			b.refDelta(someID, other, delta(1, 1, insertOp("x")))
			b.refDelta(other, someID, delta(1, 1, insertOp("x")))
		}, "delta chain longer than 10000"},
		{"delta for another base size", func(b *packBuilder) {
			_, off := b.object(plumbing.BlobObject, []byte("base"))
			b.ofsDelta(someID, off, delta(5, 1, insertOp("x")))
		}, "made for a base of 5 bytes, not 4"},
		{"delta result over the limit", func(b *packBuilder) {
			_, off := b.object(plumbing.BlobObject, []byte("base"))
			b.ofsDelta(someID, off, delta(4, 1<<20, copyOp(0, 4)))
		}, "delta result: 1048576 bytes, over the limit of 4096"},
		{"delta copying past its base", func(b *packBuilder) {
			_, off := b.object(plumbing.BlobObject, []byte("base"))
			b.ofsDelta(someID, off, delta(4, 8, copyOp(2, 8)))
		}, "invalid delta"},
		{"delta result short of its size", func(b *packBuilder) {
			_, off := b.object(plumbing.BlobObject, []byte("base"))
			b.ofsDelta(someID, off, delta(4, 9, copyOp(0, 4)))
		}, "invalid delta"},
		{"delta of no instructions", func(b *packBuilder) {
			_, off := b.object(plumbing.BlobObject, []byte("base"))
			b.ofsDelta(someID, off, []byte{4})
		}, "bad result size"},
		{"delta on a damaged base", func(b *packBuilder) {
			base := b.raw(storage.NewID(strings.Repeat("11", 20)), append(entryHeader(plumbing.BlobObject, 9), deflate([]byte("base"))...))
			b.ofsDelta(someID, base, delta(4, 4, copyOp(0, 4)))
		}, "fewer bytes than its header's 9"},
	} {
		b := newPackBuilder()
		b.object(plumbing.BlobObject, []byte("a good object first"))
		c.build(b)
		idx, pack := b.finish(false)
		p, err := openBytes(idx, pack)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, _, err = setOf(Options{MaxObjectBytes: 4096}, p).Find(someID)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), someID.String()) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// Offsets in the index that point outside the pack's entries, directly
// or through the 64-bit table, are errors.
func TestDamagedOffsets(t *testing.T) {
	for _, c := range []struct {
		name  string
		large bool
		value func(packSize int) uint32 // the offset entry of someID
		table uint64                    // what the 64-bit table holds for it, if large
		want  string
	}{
		{"into the header", false, func(int) uint32 { return 4 }, 0, "offset 4 outside"},
		{"into the checksum", false, func(n int) uint32 { return uint32(n - 10) }, 0, "outside the pack's entries"},
		{"past the end", false, func(n int) uint32 { return uint32(n + 100) }, 0, "outside the pack's entries"},
		{"64-bit, past its table", true, func(int) uint32 { return largeFlag | 9 }, 0, "64-bit offset 9, past its table"},
		{"64-bit, past the end", true, func(int) uint32 { return largeFlag }, 1 << 40, "offset 1099511627776 past the end"},
		{"64-bit, over int64", true, func(int) uint32 { return largeFlag }, 1 << 63, "past the end"},
	} {
		b := newPackBuilder()
		b.object(plumbing.BlobObject, []byte("first"))
		b.raw(someID, append(entryHeader(plumbing.BlobObject, 5), deflate([]byte("hello"))...))
		idx, pack := b.finish(c.large)
		p, err := openBytes(idx, pack)
		if err != nil {
			t.Fatal(err)
		}
		i := sortIndex(t, p, someID)
		binary.BigEndian.PutUint32(idx[idxTables+p.count*24+4*i:], c.value(len(pack)))
		if c.large {
			binary.BigEndian.PutUint64(idx[p.large:], c.table) // someID's is the only one in the table
		}
		_, _, err = setOf(Options{}, p).Find(someID)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// sortIndex is where id is in the pack's names table.
func sortIndex(t *testing.T, p *file, id storage.ID) int {
	for i := range p.count {
		if bytes.Equal(p.nameAt(i), id[:]) {
			return i
		}
	}
	t.Fatalf("%s not in the pack", id)
	return 0
}

// A delta chain as long as the limit reads; one longer is refused.
func TestDeltaChainLimit(t *testing.T) {
	for _, n := range []int{maxDeltaDepth, maxDeltaDepth + 1} {
		b := newPackBuilder()
		content := []byte("base!")
		_, off := b.object(plumbing.BlobObject, content)
		var last storage.ID
		for i := range n { // every link reads the same, under an id of its own
			last = storage.NewID(fmt.Sprintf("%040x", i+1))
			off = b.ofsDelta(last, off, delta(5, 5, copyOp(0, 5)))
		}
		idx, pack := b.finish(false)
		p, err := openBytes(idx, pack)
		if err != nil {
			t.Fatal(err)
		}
		_, data, err := setOf(Options{}, p).Find(last)
		switch {
		case n <= maxDeltaDepth && (err != nil || !bytes.Equal(data, content)):
			t.Errorf("chain of %d: %q, %v", n, data, err)
		case n > maxDeltaDepth && (err == nil || !strings.Contains(err.Error(), "delta chain longer")):
			t.Errorf("chain of %d: %v", n, err)
		}
	}
}

// Prefixes that are not hex, or too short, find nothing rather than
// failing.
func TestOddPrefixes(t *testing.T) {
	idx, pack, want := samplePack(false)
	p, err := openBytes(idx, pack)
	if err != nil {
		t.Fatal(err)
	}
	s := setOf(Options{}, p)
	for _, prefix := range []string{"", "a", "zz", "g0"} {
		if got := s.WithPrefix(prefix); got != nil {
			t.Errorf("%q finds %v", prefix, got)
		}
	}
	for id := range want {
		if got := s.WithPrefix(id.String()[:5]); len(got) != 1 || got[0] != id {
			t.Errorf("%s finds %v", id.String()[:5], got)
		}
	}
	if !errors.Is(func() error { _, _, err := s.Find(someID); return err }(), plumbing.ErrObjectNotFound) {
		t.Error("an absent id is not plainly not found")
	}
}
