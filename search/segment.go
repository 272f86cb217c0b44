package search

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// A segment is one immutable index file: the messages one update read,
// their text, and a trigram table over it. Layout (little-endian):
//
//	magic "gsnapix1"
//	strings   n, n+1 offsets, bytes          (session names, roles, labels, tools)
//	sessions  n × {name, gen}                 (gen: see manifest)
//	snapshots n × {commit[20], session, seq, time int64, label}
//	docs      n × {snapshot, message int32, role, time int64, textOff u64, textLen, crc}
//	text      per doc its fields: {kind u8, tool u32, len u32, bytes}
//	trigrams  n × {trigram, postOff u64, postLen, crc}, sorted
//	postings  per trigram the blocks of blockDocs docs that hold it, delta-varint
//	footer    7 × {off u64, len u64}, crc of the small tables, magic
//
// Postings name blocks of docs, not docs: neighbouring messages share
// most trigrams, so a block list is several times shorter, and a search
// reads the few docs of each block it finds.
//
// What is read is checked: the tables by the footer's checksum when the
// file is opened, a doc's text and a
// trigram's postings by their own checksums when read, and every offset
// against its section, so a damaged file is found, never trusted.

const (
	segMagic    = "gsnapix1"
	nSections   = 7
	footerBytes = nSections*16 + 4 + len(segMagic)
	snapBytes   = 40
	docBytes    = 36
	triBytes    = 20
	sessBytes   = 8
)

// blockDocs is how many neighbouring docs one posting stands for.
const blockDocs = 8

// castagnoli is the checksum table, made when first needed so that no
// command pays for it at start-up.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli()) }

type section int

const (
	secStrings section = iota
	secSessions
	secSnapshots
	secDocs
	secText
	secTrigrams
	secPostings
)

// snapRow is a snapshot as a segment records it.
type snapRow struct {
	commit  plumbing.Hash
	session uint32
	seq     uint32
	time    int64
	label   uint32
}

// docRow is one indexed message.
type docRow struct {
	snap    uint32
	message int32
	role    uint32
	time    int64
	off     uint64
	n       uint32
	crc     uint32
}

// segWriter gathers messages in memory until written.
type segWriter struct {
	strs     map[string]uint32
	strList  []string
	sessions [][2]uint32
	sessIdx  map[string]uint32
	snaps    []snapRow
	docs     []docRow
	text     []byte
	pairs    []uint64 // trigram<<32 | block, for each trigram of each block
	scratch  []byte
	tris     []uint32 // the current block's trigrams
	seen     []uint64 // a bit per trigram, for endBlock
	limit    int      // bytes of text or postings that make a segment full
}

func newSegWriter(limit int) *segWriter {
	return &segWriter{strs: map[string]uint32{}, sessIdx: map[string]uint32{}, limit: limit}
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

// add indexes one message of snapshot snap.
func (w *segWriter) add(snap uint32, message int, role string, t time.Time, fields []field) {
	if len(fields) == 0 {
		return
	}
	if w.text == nil && w.limit > 0 { // the sizes a full segment reaches, so that appends do not copy
		w.text = make([]byte, 0, w.limit+w.limit/8)
		w.pairs = make([]uint64, 0, w.limit/8+w.limit/64)
	}
	doc := uint32(len(w.docs))
	start := len(w.text)
	for _, f := range fields {
		w.text = append(w.text, f.kind)
		w.text = binary.LittleEndian.AppendUint32(w.text, w.str(f.tool))
		w.text = binary.LittleEndian.AppendUint32(w.text, uint32(len(f.text)))
		w.text = append(w.text, f.text...)
		w.scratch = fold(w.scratch[:0], f.text)
		w.tris = trigrams(w.tris, w.scratch)
	}
	var tm int64
	if !t.IsZero() {
		tm = t.UnixNano()
	}
	w.docs = append(w.docs, docRow{snap: snap, message: int32(message), role: w.str(role), time: tm,
		off: uint64(start), n: uint32(len(w.text) - start), crc: checksum(w.text[start:])})
	if doc%blockDocs == blockDocs-1 {
		w.endBlock()
	}
}

// endBlock adds the current block's trigrams to the postings, each
// once: seen marks those already added, and is cleared again after.
func (w *segWriter) endBlock() {
	if len(w.docs) == 0 {
		return
	}
	if w.seen == nil {
		w.seen = make([]uint64, 1<<24/64)
	}
	block := uint64((len(w.docs) - 1) / blockDocs)
	n := 0
	for _, t := range w.tris {
		if bit := uint64(1) << (t % 64); w.seen[t/64]&bit == 0 {
			w.seen[t/64] |= bit
			w.pairs = append(w.pairs, uint64(t)<<32|block)
			w.tris[n] = t
			n++
		}
	}
	for _, t := range w.tris[:n] {
		w.seen[t/64] = 0
	}
	w.tris = w.tris[:0]
}

// full reports whether the segment holds as much as one should: its
// text and postings are what a build keeps in memory.
func (w *segWriter) full() bool {
	return len(w.text) >= w.limit || len(w.pairs)*8 >= w.limit
}

func (w *segWriter) empty() bool { return len(w.docs) == 0 }

// write encodes the segment into wr.
func (w *segWriter) write(wr io.Writer) error {
	w.endBlock()
	le := binary.LittleEndian
	var out []byte // the tables before the text
	var secs [nSections][2]uint64
	off := uint64(len(segMagic))
	put := func(s section, b []byte) {
		secs[s] = [2]uint64{off, uint64(len(b))}
		off += uint64(len(b))
	}
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
	put(secStrings, strs)
	sess := make([]byte, 0, len(w.sessions)*sessBytes)
	for _, s := range w.sessions {
		sess = le.AppendUint32(le.AppendUint32(sess, s[0]), s[1])
	}
	put(secSessions, sess)
	snaps := make([]byte, 0, len(w.snaps)*snapBytes)
	for _, s := range w.snaps {
		snaps = append(snaps, s.commit[:]...)
		snaps = le.AppendUint32(le.AppendUint32(snaps, s.session), s.seq)
		snaps = le.AppendUint32(le.AppendUint64(snaps, uint64(s.time)), s.label)
	}
	put(secSnapshots, snaps)
	docs := make([]byte, 0, len(w.docs)*docBytes)
	for _, d := range w.docs {
		docs = le.AppendUint32(le.AppendUint32(le.AppendUint32(docs, d.snap), uint32(d.message)), d.role)
		docs = le.AppendUint64(le.AppendUint64(docs, uint64(d.time)), d.off)
		docs = le.AppendUint32(le.AppendUint32(docs, d.n), d.crc)
	}
	put(secDocs, docs)
	put(secText, w.text)
	tris, post := w.postings()
	put(secTrigrams, tris)
	put(secPostings, post)
	out = append(out, segMagic...)
	parts := [][]byte{out, strs, sess, snaps, docs, w.text, tris, post}
	foot := make([]byte, 0, footerBytes)
	for _, s := range secs {
		foot = le.AppendUint64(le.AppendUint64(foot, s[0]), s[1])
	}
	foot = le.AppendUint32(foot, tablesCRC(strs, sess, snaps, docs, tris))
	parts = append(parts, append(foot, segMagic...))
	for _, p := range parts {
		if _, err := wr.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// postings sorts the pairs and encodes the trigram table and the
// posting lists.
func (w *segWriter) postings() (tris, post []byte) {
	le := binary.LittleEndian
	sortByTrigram(w.pairs)
	for i := 0; i < len(w.pairs); {
		t := uint32(w.pairs[i] >> 32)
		start := len(post)
		prev := uint64(0)
		for ; i < len(w.pairs) && uint32(w.pairs[i]>>32) == t; i++ {
			b := w.pairs[i] & 0xffffffff
			post = binary.AppendUvarint(post, b-prev)
			prev = b
		}
		tris = le.AppendUint64(le.AppendUint32(tris, t), uint64(start))
		tris = le.AppendUint32(le.AppendUint32(tris, uint32(len(post)-start)), checksum(post[start:]))
	}
	return tris, post
}

// sortByTrigram sorts pairs by trigram, keeping the order of each
// trigram's blocks: they were added in increasing order, so two stable
// passes of a radix sort over the trigram's 24 bits sort the pairs
// whole, in linear time.
func sortByTrigram(pairs []uint64) {
	tmp := make([]uint64, len(pairs))
	src, dst := pairs, tmp
	for _, shift := range []uint{32, 44} {
		var count [1 << 12]int
		for _, p := range src {
			count[(p>>shift)&0xfff]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, p := range src {
			d := (p >> shift) & 0xfff
			dst[count[d]] = p
			count[d]++
		}
		src, dst = dst, src
	}
	// Two passes leave the result back in pairs.
}

// tablesCRC is the checksum of every table: all but the text and the
// postings, which are larger, read in part, and carry their own
// checksum per doc and per trigram.
func tablesCRC(tables ...[]byte) uint32 {
	var crc uint32
	for _, t := range tables {
		crc = crc32.Update(crc, castagnoli(), t)
	}
	return crc
}

// segment is a segment file opened for reading.
type segment struct {
	name  string
	data  []byte
	unmap func()
	sec   [nSections][]byte
	nStr  int
}

func corrupt(name, what string) error {
	return fmt.Errorf("%s: %s: %w", name, what, errCorrupt)
}

// parseSegment checks a segment's layout and tables.
func parseSegment(name string, data []byte) (*segment, error) {
	le := binary.LittleEndian
	if len(data) < len(segMagic)+footerBytes || string(data[:len(segMagic)]) != segMagic || string(data[len(data)-len(segMagic):]) != segMagic {
		return nil, corrupt(name, "not an index segment")
	}
	foot := data[len(data)-footerBytes:]
	limit := uint64(len(data) - footerBytes)
	var secs [nSections][2]uint64
	s := &segment{name: name, data: data}
	for i := range secs {
		off, n := le.Uint64(foot[i*16:]), le.Uint64(foot[i*16+8:])
		if off < uint64(len(segMagic)) || off > limit || n > limit-off {
			return nil, corrupt(name, "sections out of bounds")
		}
		secs[i] = [2]uint64{off, n}
		s.sec[i] = data[off : off+n]
	}
	if tablesCRC(s.sec[secStrings], s.sec[secSessions], s.sec[secSnapshots], s.sec[secDocs], s.sec[secTrigrams]) != le.Uint32(foot[nSections*16:]) {
		return nil, corrupt(name, "checksum mismatch")
	}
	st := s.sec[secStrings]
	if len(st) < 4 {
		return nil, corrupt(name, "no string table")
	}
	s.nStr = int(le.Uint32(st))
	if uint64(s.nStr) > uint64(len(st)-4)/4-1 || len(st)-4 < 4*(s.nStr+1) {
		return nil, corrupt(name, "string table out of bounds")
	}
	switch {
	case len(s.sec[secSessions])%sessBytes != 0, len(s.sec[secSnapshots])%snapBytes != 0,
		len(s.sec[secDocs])%docBytes != 0, len(s.sec[secTrigrams])%triBytes != 0:
		return nil, corrupt(name, "table sizes")
	}
	return s, nil
}

func (s *segment) str(i uint32) (string, error) {
	le := binary.LittleEndian
	st := s.sec[secStrings]
	if int(i) >= s.nStr {
		return "", corrupt(s.name, "string number out of range")
	}
	base := 4 + 4*(s.nStr+1)
	a, b := le.Uint32(st[4+4*i:]), le.Uint32(st[8+4*i:])
	if a > b || uint64(base)+uint64(b) > uint64(len(st)) {
		return "", corrupt(s.name, "string out of bounds")
	}
	return string(st[base+int(a) : base+int(b)]), nil
}

func (s *segment) nDocs() int { return len(s.sec[secDocs]) / docBytes }

func (s *segment) doc(i uint32) (docRow, error) {
	le := binary.LittleEndian
	if int(i) >= s.nDocs() {
		return docRow{}, corrupt(s.name, "doc number out of range")
	}
	b := s.sec[secDocs][int(i)*docBytes:]
	return docRow{snap: le.Uint32(b), message: int32(le.Uint32(b[4:])), role: le.Uint32(b[8:]), time: int64(le.Uint64(b[12:])),
		off: le.Uint64(b[20:]), n: le.Uint32(b[28:]), crc: le.Uint32(b[32:])}, nil
}

func (s *segment) snap(i uint32) (snapRow, error) {
	le := binary.LittleEndian
	if int(i) >= len(s.sec[secSnapshots])/snapBytes {
		return snapRow{}, corrupt(s.name, "snapshot number out of range")
	}
	b := s.sec[secSnapshots][int(i)*snapBytes:]
	var r snapRow
	copy(r.commit[:], b[:20])
	r.session, r.seq, r.time, r.label = le.Uint32(b[20:]), le.Uint32(b[24:]), int64(le.Uint64(b[28:])), le.Uint32(b[36:])
	return r, nil
}

func (s *segment) session(i uint32) (name string, gen uint32, err error) {
	le := binary.LittleEndian
	if int(i) >= len(s.sec[secSessions])/sessBytes {
		return "", 0, corrupt(s.name, "session number out of range")
	}
	b := s.sec[secSessions][int(i)*sessBytes:]
	name, err = s.str(le.Uint32(b))
	return name, le.Uint32(b[4:]), err
}

// docHeader reads doc d with its snapshot and session.
func (s *segment) docHeader(d uint32) (row docRow, snap snapRow, session string, gen uint32, err error) {
	if row, err = s.doc(d); err != nil {
		return
	}
	if snap, err = s.snap(row.snap); err != nil {
		return
	}
	session, gen, err = s.session(snap.session)
	return
}

// fields decodes a doc's text.
func (s *segment) fields(d docRow) ([]field, error) {
	le := binary.LittleEndian
	t := s.sec[secText]
	if d.off > uint64(len(t)) || uint64(d.n) > uint64(len(t))-d.off {
		return nil, corrupt(s.name, "text out of bounds")
	}
	b := t[d.off : d.off+uint64(d.n)]
	if checksum(b) != d.crc {
		return nil, corrupt(s.name, "text checksum mismatch")
	}
	var out []field
	for len(b) > 0 {
		if len(b) < 9 {
			return nil, corrupt(s.name, "field header")
		}
		kind, tool, n := b[0], le.Uint32(b[1:]), le.Uint32(b[5:])
		b = b[9:]
		if uint64(n) > uint64(len(b)) || kind == 0 || int(kind) >= len(kindNames) {
			return nil, corrupt(s.name, "field")
		}
		ts, err := s.str(tool)
		if err != nil {
			return nil, err
		}
		out = append(out, field{kind: kind, tool: ts, text: string(b[:n])})
		b = b[n:]
	}
	return out, nil
}

// postings returns the blocks holding trigram t, in order.
func (s *segment) postings(t uint32) ([]uint32, error) {
	le := binary.LittleEndian
	tab := s.sec[secTrigrams]
	n := len(tab) / triBytes
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if le.Uint32(tab[m*triBytes:]) < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == n || le.Uint32(tab[lo*triBytes:]) != t {
		return nil, nil
	}
	e := tab[lo*triBytes:]
	off, ln, crc := le.Uint64(e[4:]), le.Uint32(e[12:]), le.Uint32(e[16:])
	p := s.sec[secPostings]
	if off > uint64(len(p)) || uint64(ln) > uint64(len(p))-off {
		return nil, corrupt(s.name, "postings out of bounds")
	}
	b := p[off : off+uint64(ln)]
	if checksum(b) != crc {
		return nil, corrupt(s.name, "postings checksum mismatch")
	}
	var out []uint32
	doc := uint64(0)
	for len(b) > 0 {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, corrupt(s.name, "postings encoding")
		}
		doc += v
		if doc*blockDocs >= uint64(s.nDocs()) {
			return nil, corrupt(s.name, "posting out of range")
		}
		out = append(out, uint32(doc))
		b = b[k:]
	}
	return out, nil
}

// eval returns the blocks that meet c, or nil and true for every block.
func (s *segment) eval(c *cond) ([]uint32, bool, error) {
	switch c.op {
	case condTri:
		p, err := s.postings(c.tri)
		return p, false, err
	case condAnd, condOr:
		a, allA, err := s.eval(c.subs[0])
		if err != nil {
			return nil, false, err
		}
		b, allB, err := s.eval(c.subs[1])
		if err != nil {
			return nil, false, err
		}
		if c.op == condAnd {
			switch {
			case allA:
				return b, allB, nil
			case allB:
				return a, false, nil
			}
			return intersect(a, b), false, nil
		}
		if allA || allB {
			return nil, true, nil
		}
		return union(a, b), false, nil
	}
	return nil, true, nil
}

func intersect(a, b []uint32) []uint32 {
	var out []uint32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func union(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
