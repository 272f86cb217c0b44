package search

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"

	"github.com/git-snap/git-snap/internal/safefile"
)

// segment is a segment file opened for reading. It is read with ReadAt,
// a page or a block at a time, rather than mapped: a mapped file's pages
// count towards the process's resident memory a whole folio at a time,
// so reading a few blocks of each segment through a mapping made a
// search peak at 133 MB when it read only 300 KB. A segment must be used
// by one goroutine at a time.
type segment struct {
	name    string
	r       io.ReaderAt
	file    io.Closer         // nil for a segment read from memory
	sec     [nSections][2]int // each section's offset and length
	page    [nSections]int    // the index of each paged table's first page among all pages
	sums    []byte            // the pages' checksums
	pages   map[int][]byte    // the pages read so far, already verified
	nDocs   int
	nStr    int
	zr      io.ReadCloser
	buf     []byte   // a block or a posting list, as read from the file
	last    int      // the block that rows holds, -1 for none
	rows    []docRow // the docs of the last block read
	inflate bytes.Buffer
}

func corrupt(name, what string) error {
	return fmt.Errorf("%s: %s: %w", name, what, errCorrupt)
}

// openSegment opens the segment called name in dir. A missing segment
// gives errStale. A segment that is not a file written by the index, or
// cannot be parsed, gives errCorrupt.
func openSegment(dir, name string) (*segment, error) {
	f, err := safefile.Open(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", name, errStale)
	}
	if errors.Is(err, safefile.ErrRefused) {
		return nil, fmt.Errorf("%s: %v: %w", name, err, errCorrupt) // a link, a FIFO, …: rebuild the index
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	s, err := parseSegment(name, f, fi.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	s.file = f
	return s, nil
}

// close releases the segment's file. The file was only read, so no data
// can be lost at close, and the error is not worth reporting.
func (s *segment) close() {
	if s.file != nil {
		_ = s.file.Close()
	}
}

// readAt reads len(b) bytes at off. A file shorter than its footer
// claims is damaged.
func (s *segment) readAt(b []byte, off int) error {
	n, err := s.r.ReadAt(b, int64(off))
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return corrupt(s.name, "file shorter than its sections")
	}
	return fmt.Errorf("%s: %w", s.name, err)
}

// parseSegment reads a segment's footer and page checksums, and checks
// its layout. The tables are verified later, as they are read.
func parseSegment(name string, r io.ReaderAt, size int64) (*segment, error) {
	le := binary.LittleEndian
	s := &segment{name: name, r: r, last: -1, pages: map[int][]byte{}}
	if size < int64(len(segMagic)+footerBytes) || size > math.MaxInt32*int64(pageBytes) {
		return nil, corrupt(name, "not an index segment")
	}
	foot := make([]byte, footerBytes)
	head := make([]byte, len(segMagic))
	if err := s.readAt(foot, int(size)-footerBytes); err != nil {
		return nil, err
	}
	if err := s.readAt(head, 0); err != nil {
		return nil, err
	}
	if string(head) != segMagic || string(foot[footerBytes-len(segMagic):]) != segMagic {
		return nil, corrupt(name, "not an index segment")
	}
	if checksum(foot[:nSections*16+8]) != le.Uint32(foot[nSections*16+8:]) {
		return nil, corrupt(name, "footer checksum mismatch")
	}
	s.nDocs = int(le.Uint32(foot[nSections*16:]))
	limit := uint64(size) - uint64(footerBytes)
	next := uint64(len(segMagic))
	for i := range s.sec {
		off, n := le.Uint64(foot[i*16:]), le.Uint64(foot[i*16+8:])
		if off != next || off > limit || n > limit-off {
			return nil, corrupt(name, "sections out of bounds")
		}
		s.sec[i] = [2]int{int(off), int(n)}
		next = off + n
	}
	if next != limit {
		return nil, corrupt(name, "sections out of bounds")
	}
	want := 0
	for sec := secStrings; sec <= secTrigrams; sec++ {
		s.page[sec] = want
		want += (s.sec[sec][1] + pageBytes - 1) / pageBytes
	}
	if s.sec[secPages][1] != 4*want {
		return nil, corrupt(name, "page checksums")
	}
	s.sums = make([]byte, 4*want)
	if err := s.readAt(s.sums, s.sec[secPages][0]); err != nil {
		return nil, err
	}
	if checksum(s.sums) != le.Uint32(foot[nSections*16+4:]) {
		return nil, corrupt(name, "page checksums")
	}
	switch {
	case s.sec[secSessions][1]%sessBytes != 0, s.sec[secSnapshots][1]%snapBytes != 0, s.sec[secRuns][1]%runBytes != 0,
		s.sec[secBlocks][1]%blockBytes != 0, s.sec[secTrigrams][1]%triBytes != 0,
		s.nBlocks() != (s.nDocs+blockDocs-1)/blockDocs:
		return nil, corrupt(name, "table sizes")
	}
	st, err := s.table(secStrings, 0, 4)
	if err != nil {
		return nil, err
	}
	s.nStr = int(le.Uint32(st))
	if uint64(s.nStr)+1 > uint64(s.sec[secStrings][1]-4)/4 {
		return nil, corrupt(name, "string table out of bounds")
	}
	return s, nil
}

// table returns n bytes at off in a paged table. Each page is read and
// verified the first time it is needed. The returned bytes stay valid.
func (s *segment) table(sec section, off, n int) ([]byte, error) {
	if off < 0 || n < 0 || off > s.sec[sec][1] || n > s.sec[sec][1]-off {
		return nil, corrupt(s.name, "table read out of bounds")
	}
	if n == 0 {
		return nil, nil
	}
	first, last := off/pageBytes, (off+n-1)/pageBytes
	if first == last {
		p, err := s.tablePage(sec, first)
		if err != nil {
			return nil, err
		}
		return p[off-first*pageBytes : off-first*pageBytes+n], nil
	}
	out := make([]byte, 0, n) // a row that spans two pages
	for i := first; i <= last; i++ {
		p, err := s.tablePage(sec, i)
		if err != nil {
			return nil, err
		}
		out = append(out, p[max(0, off-i*pageBytes):min(len(p), off+n-i*pageBytes)]...)
	}
	return out, nil
}

// tablePage returns page i of a table, reading and verifying it if
// needed.
func (s *segment) tablePage(sec section, i int) ([]byte, error) {
	k := s.page[sec] + i
	if p, ok := s.pages[k]; ok {
		return p, nil
	}
	start := i * pageBytes
	p := make([]byte, min(pageBytes, s.sec[sec][1]-start))
	if err := s.readAt(p, s.sec[sec][0]+start); err != nil {
		return nil, err
	}
	if checksum(p) != binary.LittleEndian.Uint32(s.sums[4*k:]) {
		return nil, corrupt(s.name, "table checksum mismatch")
	}
	s.pages[k] = p
	return p, nil
}

// readChecked reads n bytes at off in section sec into the segment's
// buffer and verifies them against crc.
func (s *segment) readChecked(sec section, off uint64, n uint32, crc uint32, what string) ([]byte, error) {
	if off > uint64(s.sec[sec][1]) || uint64(n) > uint64(s.sec[sec][1])-off {
		return nil, corrupt(s.name, what+" out of bounds")
	}
	s.buf = slices.Grow(s.buf[:0], int(n))[:n]
	if err := s.readAt(s.buf, s.sec[sec][0]+int(off)); err != nil {
		return nil, err
	}
	if checksum(s.buf) != crc {
		return nil, corrupt(s.name, what+" checksum mismatch")
	}
	return s.buf, nil
}

func (s *segment) str(i uint32) (string, error) {
	le := binary.LittleEndian
	if int(i) >= s.nStr {
		return "", corrupt(s.name, "string number out of range")
	}
	ab, err := s.table(secStrings, 4+4*int(i), 8)
	if err != nil {
		return "", err
	}
	base := 4 + 4*(s.nStr+1)
	a, b := int(le.Uint32(ab)), int(le.Uint32(ab[4:]))
	if a > b {
		return "", corrupt(s.name, "string out of bounds")
	}
	st, err := s.table(secStrings, base+a, b-a)
	return string(st), err
}

func (s *segment) nBlocks() int   { return s.sec[secBlocks][1] / blockBytes }
func (s *segment) nRuns() int     { return s.sec[secRuns][1] / runBytes }
func (s *segment) nSessions() int { return s.sec[secSessions][1] / sessBytes }
func (s *segment) nSnaps() int    { return s.sec[secSnapshots][1] / snapBytes }
func (s *segment) nTrigrams() int { return s.sec[secTrigrams][1] / triBytes }

func (s *segment) snap(i uint32) (snapRow, error) {
	le := binary.LittleEndian
	if int(i) >= s.nSnaps() {
		return snapRow{}, corrupt(s.name, "snapshot number out of range")
	}
	b, err := s.table(secSnapshots, int(i)*snapBytes, snapBytes)
	if err != nil {
		return snapRow{}, err
	}
	var r snapRow
	copy(r.commit[:], b[:20])
	r.session, r.seq, r.time, r.label = le.Uint32(b[20:]), le.Uint32(b[24:]), int64(le.Uint64(b[28:])), le.Uint32(b[36:])
	if int(r.session) >= s.nSessions() {
		return snapRow{}, corrupt(s.name, "session number out of range")
	}
	return r, nil
}

func (s *segment) session(i uint32) (name string, gen uint32, err error) {
	le := binary.LittleEndian
	if int(i) >= s.nSessions() {
		return "", 0, corrupt(s.name, "session number out of range")
	}
	b, err := s.table(secSessions, int(i)*sessBytes, sessBytes)
	if err != nil {
		return "", 0, err
	}
	name, err = s.str(le.Uint32(b))
	return name, le.Uint32(b[4:]), err
}

func (s *segment) run(i int) (runRow, error) {
	le := binary.LittleEndian
	b, err := s.table(secRuns, i*runBytes, runBytes)
	if err != nil {
		return runRow{}, err
	}
	r := runRow{session: le.Uint32(b), first: le.Uint32(b[4:]), n: le.Uint32(b[8:])}
	if int(r.session) >= s.nSessions() || r.n == 0 || uint64(r.first)+uint64(r.n) > uint64(s.nDocs) {
		return runRow{}, corrupt(s.name, "run out of range")
	}
	return r, nil
}

// docs returns the docs of block b, inflated and decoded. It keeps the
// last block read, because a session's docs and the next session's often
// share a block, and each doc is read once for sorting and again for
// matching. The returned rows are valid until the next block is read.
func (s *segment) docs(b int) ([]docRow, error) {
	if b == s.last {
		return s.rows, nil
	}
	raw, err := s.block(b)
	if err != nil {
		return nil, err
	}
	n := min(blockDocs, s.nDocs-b*blockDocs)
	s.rows = s.rows[:0]
	for range n {
		var d docRow
		var ok bool
		if d, raw, ok = readDoc(raw); !ok || int(d.snap) >= s.nSnaps() {
			return nil, corrupt(s.name, "doc")
		}
		s.rows = append(s.rows, d)
	}
	if len(raw) != 0 {
		return nil, corrupt(s.name, "block length")
	}
	s.last = b
	return s.rows, nil
}

// doc reads doc d.
func (s *segment) doc(d uint32) (docRow, error) {
	if int(d) >= s.nDocs {
		return docRow{}, corrupt(s.name, "doc number out of range")
	}
	rows, err := s.docs(int(d / blockDocs))
	if err != nil {
		return docRow{}, err
	}
	return rows[d%blockDocs], nil
}

// readDoc reads one doc's header and fields from the start of b, and
// returns the rest of b.
func readDoc(b []byte) (docRow, []byte, bool) {
	var d docRow
	var v [5]uint64
	for i := range v {
		var k int
		if i == 1 || i == 3 {
			var x int64
			x, k = binary.Varint(b)
			v[i] = uint64(x)
		} else {
			v[i], k = binary.Uvarint(b)
		}
		if k <= 0 {
			return d, nil, false
		}
		b = b[k:]
	}
	if v[0] > 1<<32-1 || v[2] > 1<<32-1 || v[4] > uint64(len(b)) {
		return d, nil, false
	}
	d = docRow{snap: uint32(v[0]), message: int32(v[1]), role: uint32(v[2]), time: int64(v[3]), fields: b[:v[4]]}
	return d, b[v[4]:], true
}

// block returns block b's docs, inflated.
func (s *segment) block(b int) ([]byte, error) {
	le := binary.LittleEndian
	if b < 0 || b >= s.nBlocks() {
		return nil, corrupt(s.name, "block number out of range")
	}
	e, err := s.table(secBlocks, b*blockBytes, blockBytes)
	if err != nil {
		return nil, err
	}
	s.last = -1 // buf and inflate are about to be overwritten
	z, err := s.readChecked(secText, le.Uint64(e), le.Uint32(e[8:]), le.Uint32(e[12:]), "text")
	if err != nil {
		return nil, err
	}
	if s.zr == nil {
		s.zr = flate.NewReader(bytes.NewReader(z))
	} else if err := s.zr.(flate.Resetter).Reset(bytes.NewReader(z), nil); err != nil {
		return nil, err
	}
	// Inflate no more than the length the writer recorded, so that
	// damage the checksum missed cannot make the output grow.
	n := int64(le.Uint32(e[16:]))
	s.inflate.Reset()
	if _, err := s.inflate.ReadFrom(io.LimitReader(s.zr, n+1)); err != nil {
		return nil, corrupt(s.name, "text: "+err.Error())
	}
	if int64(s.inflate.Len()) != n {
		return nil, corrupt(s.name, "text length")
	}
	return s.inflate.Bytes(), nil
}

// fields decodes a doc's text.
func (s *segment) fields(d docRow) ([]field, error) {
	var out []field
	for b := d.fields; len(b) > 0; {
		kind := b[0]
		tool, k1 := binary.Uvarint(b[1:])
		if k1 <= 0 {
			return nil, corrupt(s.name, "field header")
		}
		n, k2 := binary.Uvarint(b[1+k1:])
		if k2 <= 0 || tool > 1<<32-1 {
			return nil, corrupt(s.name, "field header")
		}
		b = b[1+k1+k2:]
		if n > uint64(len(b)) || kind == 0 || int(kind) >= len(kindNames) {
			return nil, corrupt(s.name, "field")
		}
		ts, err := s.str(uint32(tool))
		if err != nil {
			return nil, err
		}
		out = append(out, field{kind: kind, tool: ts, text: string(b[:n])})
		b = b[n:]
	}
	return out, nil
}

// postings sets the bits in set of the blocks that hold trigram t.
func (s *segment) postings(t uint32, set []uint64) error {
	le := binary.LittleEndian
	lo, hi := 0, s.nTrigrams()
	var e []byte
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		b, err := s.table(secTrigrams, m*triBytes, triBytes)
		if err != nil {
			return err
		}
		if le.Uint32(b) < t {
			lo = m + 1
		} else {
			hi, e = m, b
		}
	}
	if e == nil || le.Uint32(e) != t {
		return nil
	}
	b, err := s.readChecked(secPostings, le.Uint64(e[4:]), le.Uint32(e[12:]), le.Uint32(e[16:]), "postings")
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return corrupt(s.name, "postings empty")
	}
	nb := uint64(s.nBlocks())
	switch b[0] {
	case postBitmap:
		if len(b)-1 != int(nb+7)/8 || (nb%8 != 0 && b[len(b)-1]>>(nb%8) != 0) {
			return corrupt(s.name, "postings bitmap")
		}
		for i, c := range b[1:] {
			set[i/8] |= uint64(c) << (8 * (i % 8))
		}
		return nil
	case postDeltas:
		block := uint64(0)
		for b, first := b[1:], true; len(b) > 0; first = false {
			v, k := binary.Uvarint(b)
			if k <= 0 || (v == 0 && !first) {
				return corrupt(s.name, "postings encoding")
			}
			if block += v; block >= nb {
				return corrupt(s.name, "posting out of range")
			}
			set[block/64] |= 1 << (block % 64)
			b = b[k:]
		}
		return nil
	}
	return corrupt(s.name, "postings encoding")
}

// eval returns a bitmap of the blocks that may satisfy c, one bit per
// block, or nil for all blocks.
func (s *segment) eval(c *cond) ([]uint64, error) {
	words := (s.nBlocks() + 63) / 64
	switch c.op {
	case condTri:
		set := make([]uint64, words)
		return set, s.postings(c.tri, set)
	case condAnd, condOr:
		a, err := s.eval(c.subs[0])
		if err != nil {
			return nil, err
		}
		if a == nil && c.op == condOr {
			return nil, nil
		}
		b, err := s.eval(c.subs[1])
		if err != nil || a == nil {
			return b, err
		}
		if b == nil {
			if c.op == condOr {
				return nil, nil
			}
			return a, nil
		}
		for i := range a {
			if c.op == condAnd {
				a[i] &= b[i]
			} else {
				a[i] |= b[i]
			}
		}
		return a, nil
	}
	return nil, nil
}
