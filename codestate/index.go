package codestate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
)

// What the fast path reads of git's index (Documentation/gitformat-
// index.txt): the entries of the files a watcher says changed, found by
// bisecting a table of every 128th entry's name and place, made once
// when the work tree is scanned and kept until the index changes.

// indexEntry is what status needs of one entry of the index.
type indexEntry struct {
	name                      string
	ctimeS, ctimeN            uint32
	mtimeS, mtimeN            uint32
	ino, mode, uid, gid, size uint32
	oid                       [20]byte
	stage                     int
	assumeValid, skipWorktree bool
	intentToAdd               bool
}

// Index entry flags (the 16-bit flags, then the extended ones).
const (
	flagAssumeValid  = 0x8000
	flagExtended     = 0x4000
	flagStage        = 0x3000
	flagNameMask     = 0x0fff
	extSkipWorktree  = 0x4000
	extIntentToAdd   = 0x2000
	indexEntryFixed  = 62 // the fixed part of an entry, up to its flags
	indexCheckpoints = 128
)

// indexTable finds entries in an index file without reading it whole.
type indexTable struct {
	version int
	end     int64 // where the entries end
	points  []checkpoint
	// What makes the fast path unfit for this index: a split or sparse
	// index, a submodule, a conflict, an entry added with --intent-to-add.
	unfit string
	// attributes says a .gitattributes is tracked: a file's content may
	// be filtered on its way in, so a hash that differs asks git.
	attributes bool
}

// checkpoint is one entry of every indexCheckpoints: where it starts,
// its name, and the name before it (index version 4 names an entry by
// how it differs from the one before).
type checkpoint struct {
	off        int64
	name, prev string
}

// errIndex means the index is not one this package reads.
var errIndex = errors.New("an index this reader does not know")

// readIndexTable reads a whole index and makes its table.
func readIndexTable(b []byte) (*indexTable, error) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no DIRC header", errIndex)
	}
	t := &indexTable{version: int(binary.BigEndian.Uint32(b[4:]))}
	if t.version < 2 || t.version > 4 {
		return nil, fmt.Errorf("%w: version %d", errIndex, t.version)
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	off, prev := 12, ""
	for i := range n {
		e, next, err := parseEntry(b, off, t.version, prev)
		if err != nil {
			return nil, err
		}
		if i%indexCheckpoints == 0 {
			t.points = append(t.points, checkpoint{int64(off), e.name, prev})
		}
		t.note(e)
		off, prev = next, e.name
	}
	t.end = int64(off)
	if err := t.extensions(b[off : len(b)-20]); err != nil {
		return nil, err
	}
	return t, nil
}

// note keeps what an entry says of the index as a whole.
func (t *indexTable) note(e indexEntry) {
	switch {
	case t.unfit != "":
	case e.mode&0o170000 == 0o160000:
		t.unfit = "the index holds a submodule"
	case e.stage != 0:
		t.unfit = "the index holds a conflict"
	case e.intentToAdd:
		t.unfit = "the index holds a file added with --intent-to-add"
	case e.mode&0o170000 == 0o040000:
		t.unfit = "the index is sparse"
	}
	if path.Base(e.name) == ".gitattributes" {
		t.attributes = true
	}
}

// extensions reads the extensions' signatures: a split index keeps its
// entries elsewhere, and a sparse one has directories for entries.
func (t *indexTable) extensions(b []byte) error {
	for len(b) >= 8 {
		sig, size := string(b[:4]), int64(binary.BigEndian.Uint32(b[4:]))
		if int64(len(b)-8) < size {
			return fmt.Errorf("%w: extension %q past the end", errIndex, sig)
		}
		switch sig {
		case "link":
			t.unfit = "the index is split (core.splitIndex)"
		case "sdir":
			t.unfit = "the index is sparse"
		}
		b = b[8+size:]
	}
	return nil
}

// parseEntry reads the entry at off; prev is the entry before's name.
func parseEntry(b []byte, off, version int, prev string) (indexEntry, int, error) {
	bad := func(what string) error { return fmt.Errorf("%w: entry at %d: %s", errIndex, off, what) }
	if off+indexEntryFixed > len(b) {
		return indexEntry{}, 0, bad("past the end")
	}
	u := func(i int) uint32 { return binary.BigEndian.Uint32(b[off+4*i:]) }
	e := indexEntry{ctimeS: u(0), ctimeN: u(1), mtimeS: u(2), mtimeN: u(3), ino: u(5), mode: u(6), uid: u(7), gid: u(8), size: u(9)}
	copy(e.oid[:], b[off+40:off+60])
	flags := binary.BigEndian.Uint16(b[off+60:])
	e.stage, e.assumeValid = int(flags&flagStage)>>12, flags&flagAssumeValid != 0
	p := off + indexEntryFixed
	if flags&flagExtended != 0 {
		if version < 3 || p+2 > len(b) {
			return indexEntry{}, 0, bad("extended flags in a version 2 index")
		}
		ext := binary.BigEndian.Uint16(b[p:])
		e.skipWorktree, e.intentToAdd = ext&extSkipWorktree != 0, ext&extIntentToAdd != 0
		p += 2
	}
	if version == 4 {
		strip, n := varint(b[p:])
		if n == 0 || int(strip) > len(prev) {
			return indexEntry{}, 0, bad("a bad name prefix")
		}
		p += n
		end := bytes.IndexByte(b[p:], 0)
		if end < 0 {
			return indexEntry{}, 0, bad("an unterminated name")
		}
		e.name = prev[:len(prev)-int(strip)] + string(b[p:p+end])
		return e, p + end + 1, nil
	}
	end := bytes.IndexByte(b[p:], 0)
	if end < 0 {
		return indexEntry{}, 0, bad("an unterminated name")
	}
	e.name = string(b[p : p+end])
	// NULs pad the entry to a multiple of 8 bytes, at least one.
	next := off + (p-off+end+8)&^7
	if next > len(b) {
		return indexEntry{}, 0, bad("past the end")
	}
	return e, next, nil
}

// varint reads git's offset varint: the value and the bytes it took
// (0 when it is broken).
func varint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v, n := uint64(c&127), 1
	for c&128 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		v++
		c = b[n]
		n++
		v = v<<7 + uint64(c&127)
	}
	return v, n
}

// chunk is where checkpoint i's entries start and end.
func (t *indexTable) chunk(i int) (int64, int64) {
	if i+1 < len(t.points) {
		return t.points[i].off, t.points[i+1].off
	}
	return t.points[i].off, t.end
}

// scan calls f on the entries from the last checkpoint at or before
// name on, in order, until f returns false.
func (t *indexTable) scan(f *os.File, name string, each func(indexEntry) bool) error {
	if len(t.points) == 0 {
		return nil
	}
	i := sort.Search(len(t.points), func(i int) bool { return t.points[i].name > name }) - 1
	i = max(i, 0)
	for ; i < len(t.points); i++ {
		from, to := t.chunk(i)
		b := make([]byte, to-from)
		if _, err := f.ReadAt(b, from); err != nil {
			return fmt.Errorf("read the index: %w", err)
		}
		off, prev := 0, t.points[i].prev
		for off < len(b) {
			e, next, err := parseEntry(b, off, t.version, prev)
			if err != nil {
				return err
			}
			if !each(e) {
				return nil
			}
			off, prev = next, e.name
		}
	}
	return nil
}

// find looks an entry up by name (stage 0: the fast path is not used
// while the index holds a conflict).
func (t *indexTable) find(f *os.File, name string) (indexEntry, bool, error) {
	var found indexEntry
	ok := false
	err := t.scan(f, name, func(e indexEntry) bool {
		if e.name == name {
			found, ok = e, true
		}
		return e.name <= name
	})
	return found, ok, err
}

// under lists the entries in directory dir, at most max; more says
// there were more.
func (t *indexTable) under(f *os.File, dir string, max int) (out []indexEntry, more bool, err error) {
	prefix := dir + "/"
	err = t.scan(f, prefix, func(e indexEntry) bool {
		switch {
		case strings.HasPrefix(e.name, prefix):
			if len(out) == max {
				more = true
				return false
			}
			out = append(out, e)
		case e.name > prefix:
			return false
		}
		return true
	})
	return out, more, err
}
