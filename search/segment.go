package search

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-snap/git-snap/internal/safefile"
)

// A segment is one immutable index file: the messages one update read,
// their text, and a trigram table over it. Layout (little-endian):
//
//	magic "gsnapix2"
//	text      per block of blockDocs docs, deflated: per doc {snap, message, role, time, fields}
//	postings  per trigram: the blocks that hold it, as deltas or a bitmap
//	strings   n, n+1 offsets, bytes          (session names, roles, labels, tools)
//	sessions  n × {name, gen}                 (gen: see manifest)
//	snapshots n × {commit[20], session, seq, time int64, label}
//	runs      n × {session, first doc, docs}  (a session's docs, in doc order)
//	blocks    n × {textOff u64, textLen, crc, inflated length}
//	trigrams  n × {trigram, postOff u64, postLen, crc}, sorted
//	pages     the crc of each pageBytes of the tables (strings to trigrams)
//	footer    nSections × {off u64, len u64}, docs, crc of pages, crc of footer, magic
//
// Postings name blocks of docs, not docs: neighbouring messages share
// most trigrams, so a block list is several times shorter, and a search
// reads the few docs of each block it finds. The text is deflated block
// by block, so that a search inflates only the blocks it reads.
//
// Checksums are written once, with the segment, and checked as parts are
// read, never a whole table at open: a block's text and a trigram's
// postings by their own checksums, the tables a page (pageBytes) at a
// time, the first time a page is read. Every offset is checked against
// its section. A damaged file is found in what a search reads, never
// trusted.

const (
	segMagic    = "gsnapix2"
	nSections   = 9
	footerBytes = nSections*16 + 4 + 4 + 4 + len(segMagic)
	snapBytes   = 40
	sessBytes   = 8
	runBytes    = 12
	blockBytes  = 20
	triBytes    = 20
	pageBytes   = 4096
)

// textChunk is the size of the pieces a segment's text is kept in while
// written.
const textChunk = 1 << 20

// blockDocs is how many neighbouring docs one posting stands for, and
// one deflated block holds.
const blockDocs = 16

// deflateLevel trades the build's time for the text's size: on the
// benchmark's text, level 1 gave 0.54 of the text and 2 to 6 gave 0.50 to
// 0.52, each several times slower to write.
const deflateLevel = flate.BestSpeed

// castagnoli is the checksum table, made when first needed so that no
// command pays for it at start-up.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli()) }

type section int

const (
	secText section = iota
	secPostings
	secStrings // the first of the paged tables
	secSessions
	secSnapshots
	secRuns
	secBlocks
	secTrigrams // the last of them
	secPages
)

// Posting list encodings, the list's first byte.
const (
	postDeltas byte = iota // uvarint deltas from the block before (the first from 0)
	postBitmap             // a bit per block of the segment
)

// snapRow is a snapshot as a segment records it.
type snapRow struct {
	commit  plumbing.Hash
	session uint32
	seq     uint32
	time    int64
	label   uint32
}

// docRow is one indexed message, as read from its block.
type docRow struct {
	snap    uint32
	message int32
	role    uint32
	time    int64
	fields  []byte // encoded: see segWriter.add
}

// runRow is docs first to first+n-1, all of one session row.
type runRow struct {
	session, first, n uint32
}

// postList is one trigram's blocks while a segment is written.
type postList struct {
	last  uint32 // the last block added, plus one; 0 for none
	n     int
	delta []byte
}

// segWriter gathers messages in memory until written: the text deflated
// block by block, and per trigram its blocks as deltas.
type segWriter struct {
	strs      map[string]uint32
	strList   []string
	sessions  [][2]uint32
	sessIdx   map[string]uint32
	snaps     []snapRow
	runs      []runRow
	nDocs     uint32
	raw       []byte   // the current block's docs
	text      [][]byte // the blocks before, deflated, in chunks of textChunk bytes: no copy as it grows
	textLen   int
	blocks    [][3]uint32 // deflated length, crc, inflated length
	offs      []uint64
	lists     []postList
	listIdx   map[uint32]int32
	postBytes int
	scratch   []byte
	tris      []uint32 // the current block's trigrams
	seen      []uint64 // a bit per trigram, for endBlock
	zw        *flate.Writer
	zbuf      bytes.Buffer
	limit     int // bytes of deflated text and postings that make a segment full
}

func newSegWriter(limit int) *segWriter {
	return &segWriter{strs: map[string]uint32{}, sessIdx: map[string]uint32{}, listIdx: map[uint32]int32{}, limit: limit}
}

func (w *segWriter) str(s string) uint32 {
	if i, ok := w.strs[s]; ok {
		return i
	}
	i := uint32(len(w.strList))
	w.strs[s] = i
	w.strList = append(w.strList, s)
	return i
}

// session returns the row of a session at a generation.
func (w *segWriter) session(name string, gen uint32) uint32 {
	key := name + "\x00" + string(binary.LittleEndian.AppendUint32(nil, gen))
	if i, ok := w.sessIdx[key]; ok {
		return i
	}
	i := uint32(len(w.sessions))
	w.sessions = append(w.sessions, [2]uint32{w.str(name), gen})
	w.sessIdx[key] = i
	return i
}

// snapshot adds a snapshot row and returns its number.
func (w *segWriter) snapshot(session uint32, commit plumbing.Hash, seq int, t time.Time, label string) uint32 {
	w.snaps = append(w.snaps, snapRow{commit: commit, session: session, seq: uint32(seq), time: t.UnixNano(), label: w.str(label)})
	return uint32(len(w.snaps) - 1)
}

// add indexes one message of snapshot snap. A doc is written as
// {snap, message, role, time, fields length} in varints, then each field
// as {kind byte, tool, length, text}.
func (w *segWriter) add(snap uint32, message int, role string, t time.Time, fields []field) {
	if len(fields) == 0 {
		return
	}
	var tm int64
	if !t.IsZero() {
		tm = t.UnixNano()
	}
	sess := w.snaps[snap].session
	if n := len(w.runs); n == 0 || w.runs[n-1].session != sess {
		w.runs = append(w.runs, runRow{session: sess, first: w.nDocs})
	}
	w.runs[len(w.runs)-1].n++
	w.scratch = w.scratch[:0]
	for _, f := range fields {
		w.scratch = append(w.scratch, f.kind)
		w.scratch = binary.AppendUvarint(w.scratch, uint64(w.str(f.tool)))
		w.scratch = binary.AppendUvarint(w.scratch, uint64(len(f.text)))
		w.scratch = append(w.scratch, f.text...)
	}
	w.raw = binary.AppendUvarint(w.raw, uint64(snap))
	w.raw = binary.AppendVarint(w.raw, int64(message))
	w.raw = binary.AppendUvarint(w.raw, uint64(w.str(role)))
	w.raw = binary.AppendVarint(w.raw, tm)
	w.raw = binary.AppendUvarint(w.raw, uint64(len(w.scratch)))
	w.raw = append(w.raw, w.scratch...)
	w.scratch = w.scratch[:0]
	for _, f := range fields {
		w.scratch = fold(w.scratch[:0], f.text)
		w.tris = trigrams(w.tris, w.scratch)
	}
	w.nDocs++
	if w.nDocs%blockDocs == 0 {
		w.endBlock()
	}
}

// endBlock deflates the current block and adds its trigrams to the
// postings, each once: seen marks those already added, and is cleared
// again after.
func (w *segWriter) endBlock() {
	if len(w.raw) == 0 {
		return
	}
	block := uint32(len(w.blocks))
	w.deflate()
	if w.seen == nil {
		w.seen = make([]uint64, 1<<24/64)
	}
	n := 0
	for _, t := range w.tris {
		if bit := uint64(1) << (t % 64); w.seen[t/64]&bit == 0 {
			w.seen[t/64] |= bit
			w.post(t, block)
			w.tris[n] = t
			n++
		}
	}
	for _, t := range w.tris[:n] {
		w.seen[t/64] = 0
	}
	w.tris = w.tris[:0]
}

// post adds block to trigram t's list.
func (w *segWriter) post(t, block uint32) {
	i, ok := w.listIdx[t]
	if !ok {
		i = int32(len(w.lists))
		w.listIdx[t] = i
		w.lists = append(w.lists, postList{})
	}
	l := &w.lists[i]
	before := len(l.delta)
	delta := block
	if l.n > 0 {
		delta = block - (l.last - 1)
	}
	l.delta = binary.AppendUvarint(l.delta, uint64(delta))
	l.last, l.n = block+1, l.n+1
	w.postBytes += len(l.delta) - before
}

// deflate appends the current block, deflated, to the text.
func (w *segWriter) deflate() {
	w.zbuf.Reset()
	if w.zw == nil {
		w.zw, _ = flate.NewWriter(&w.zbuf, deflateLevel) // fails only for a bad level
	} else {
		w.zw.Reset(&w.zbuf)
	}
	_, _ = w.zw.Write(w.raw) // a bytes.Buffer takes every write
	_ = w.zw.Close()
	z := w.zbuf.Bytes()
	w.offs = append(w.offs, uint64(w.textLen))
	w.blocks = append(w.blocks, [3]uint32{uint32(len(z)), checksum(z), uint32(len(w.raw))})
	for len(z) > 0 {
		if n := len(w.text); n == 0 || len(w.text[n-1]) == cap(w.text[n-1]) {
			w.text = append(w.text, make([]byte, 0, textChunk))
		}
		last := &w.text[len(w.text)-1]
		k := min(len(z), cap(*last)-len(*last))
		*last = append(*last, z[:k]...)
		z = z[k:]
	}
	w.textLen += w.zbuf.Len()
	w.raw = w.raw[:0]
}

// full reports whether the segment holds as much as one should: its
// text and postings are what a build keeps in memory.
func (w *segWriter) full() bool {
	return w.textLen+w.postBytes >= w.limit
}

func (w *segWriter) empty() bool { return w.nDocs == 0 }

// write encodes the segment into wr.
func (w *segWriter) write(wr io.Writer) error {
	w.endBlock()
	le := binary.LittleEndian
	tris, post := w.postings()
	tables := append(w.tables(), tris)
	var pages []byte
	for _, t := range tables {
		pages = appendPageSums(pages, t)
	}
	parts := append(append(slices.Clip(w.text), post), append(tables, pages)...)
	sizes := append([]int{w.textLen}, make([]int, 0, nSections-1)...)
	for _, p := range parts[len(w.text):] {
		sizes = append(sizes, len(p))
	}
	foot := make([]byte, 0, footerBytes)
	off := len(segMagic)
	for _, n := range sizes {
		foot = le.AppendUint64(le.AppendUint64(foot, uint64(off)), uint64(n))
		off += n
	}
	foot = le.AppendUint32(le.AppendUint32(foot, w.nDocs), checksum(pages))
	foot = le.AppendUint32(foot, checksum(foot))
	parts = append(append([][]byte{[]byte(segMagic)}, parts...), append(foot, segMagic...))
	for _, p := range parts {
		if _, err := wr.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// tables encodes the tables from strings to blocks.
func (w *segWriter) tables() [][]byte {
	le := binary.LittleEndian
	strs := le.AppendUint32(nil, uint32(len(w.strList)))
	so := uint32(0)
	for _, s := range w.strList {
		strs = le.AppendUint32(strs, so)
		so += uint32(len(s))
	}
	strs = le.AppendUint32(strs, so)
	for _, s := range w.strList {
		strs = append(strs, s...)
	}
	sess := make([]byte, 0, len(w.sessions)*sessBytes)
	for _, s := range w.sessions {
		sess = le.AppendUint32(le.AppendUint32(sess, s[0]), s[1])
	}
	snaps := make([]byte, 0, len(w.snaps)*snapBytes)
	for _, s := range w.snaps {
		snaps = append(snaps, s.commit[:]...)
		snaps = le.AppendUint32(le.AppendUint32(snaps, s.session), s.seq)
		snaps = le.AppendUint32(le.AppendUint64(snaps, uint64(s.time)), s.label)
	}
	runs := make([]byte, 0, len(w.runs)*runBytes)
	for _, r := range w.runs {
		runs = le.AppendUint32(le.AppendUint32(le.AppendUint32(runs, r.session), r.first), r.n)
	}
	blocks := make([]byte, 0, len(w.blocks)*blockBytes)
	for i, b := range w.blocks {
		blocks = le.AppendUint32(le.AppendUint32(le.AppendUint32(le.AppendUint64(blocks, w.offs[i]), b[0]), b[1]), b[2])
	}
	return [][]byte{strs, sess, snaps, runs, blocks}
}

// appendPageSums appends the checksum of each page of b. Each table
// starts a page of its own, so that a table is checked apart from its
// neighbours.
func appendPageSums(sums, b []byte) []byte {
	for i := 0; i < len(b); i += pageBytes {
		sums = binary.LittleEndian.AppendUint32(sums, checksum(b[i:min(i+pageBytes, len(b))]))
	}
	return sums
}

// postings sorts the trigrams and encodes their table and lists: each
// list as deltas or as a bitmap of the segment's blocks, whichever is
// shorter (a common trigram is in most blocks, a bit each).
func (w *segWriter) postings() (tris, post []byte) {
	le := binary.LittleEndian
	order := make([]uint32, 0, len(w.lists))
	for t := range w.listIdx {
		order = append(order, t)
	}
	slices.Sort(order)
	bitmapBytes := (len(w.blocks) + 7) / 8
	for _, t := range order {
		l := &w.lists[w.listIdx[t]]
		start := len(post)
		if len(l.delta) <= bitmapBytes {
			post = append(append(post, postDeltas), l.delta...)
		} else {
			post = append(post, postBitmap)
			bits := len(post)
			post = append(post, make([]byte, bitmapBytes)...)
			b := uint64(0)
			for d := l.delta; len(d) > 0; {
				v, k := binary.Uvarint(d)
				b += v
				post[bits+int(b/8)] |= 1 << (b % 8)
				d = d[k:]
			}
		}
		l.delta = nil
		tris = le.AppendUint64(le.AppendUint32(tris, t), uint64(start))
		tris = le.AppendUint32(le.AppendUint32(tris, uint32(len(post)-start)), checksum(post[start:]))
	}
	return tris, post
}

// segment is a segment file opened for reading. It is read with
// ReadAt, a page or a block at a time, not mapped: a mapped file's pages
// count in the process's resident memory by the folio, so reading a few
// blocks of each segment through a mapping had a search's peak at
// 133 MB, where what it read was 300 KB. It is used by one goroutine at
// a time.
type segment struct {
	name    string
	r       io.ReaderAt
	file    io.Closer         // nil for a segment read from memory
	sec     [nSections][2]int // each section's offset and length
	page    [nSections]int    // each paged table's first page among all of them
	sums    []byte            // the pages' checksums
	pages   map[int][]byte    // the pages read, checked
	nDocs   int
	nStr    int
	zr      io.ReadCloser
	buf     []byte   // a block or a posting list, as read
	last    int      // the block rows holds, -1 for none
	rows    []docRow // the docs of the last block read
	inflate bytes.Buffer
}

func corrupt(name, what string) error {
	return fmt.Errorf("%s: %s: %w", name, what, errCorrupt)
}

// openSegment opens segment name of dir. A segment gone is errStale; one
// that is not a file the index wrote, or cannot be read as written, is
// errCorrupt.
func openSegment(dir, name string) (*segment, error) {
	f, err := safefile.Open(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", name, errStale)
	}
	if errors.Is(err, safefile.ErrRefused) {
		return nil, fmt.Errorf("%s: %v: %w", name, err, errCorrupt) // a link, a FIFO, …: rebuild
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

// close releases the segment's file. A file only read has nothing to
// lose at close: its error is not one to report.
func (s *segment) close() {
	if s.file != nil {
		_ = s.file.Close()
	}
}

// readAt reads len(b) bytes at off; a file shorter than its footer says
// is damage.
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
// its layout. The tables are checked when read.
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

// table returns n bytes at off of a paged table, reading and checking
// the pages they are on the first time one is asked for. The bytes stay
// valid.
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
	out := make([]byte, 0, n) // a row across two pages
	for i := first; i <= last; i++ {
		p, err := s.tablePage(sec, i)
		if err != nil {
			return nil, err
		}
		out = append(out, p[max(0, off-i*pageBytes):min(len(p), off+n-i*pageBytes)]...)
	}
	return out, nil
}

// tablePage returns page i of a table, read and checked.
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

// readChecked reads n bytes at off of section sec into the segment's
// buffer and checks them against crc.
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

// docs returns the docs of block b, inflated and read, keeping the last
// block read: a session's docs and the next session's often share one,
// and a doc is read once to be put in order and again to be matched.
// The rows are the segment's until the next block is read.
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

// readDoc reads one doc's header and fields off the front of b.
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
	s.last = -1 // buf and inflate are overwritten
	z, err := s.readChecked(secText, le.Uint64(e), le.Uint32(e[8:]), le.Uint32(e[12:]), "text")
	if err != nil {
		return nil, err
	}
	if s.zr == nil {
		s.zr = flate.NewReader(bytes.NewReader(z))
	} else if err := s.zr.(flate.Resetter).Reset(bytes.NewReader(z), nil); err != nil {
		return nil, err
	}
	// Inflated no further than the length the writer recorded: damage
	// in a stream that its checksum missed cannot make it grow.
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

// postings sets in set the blocks holding trigram t.
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

// eval returns the blocks that may meet c, a bit each, or nil for every
// block.
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
