package search

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"slices"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// postList is one trigram's list of blocks while a segment is being
// written.
type postList struct {
	last  uint32 // the last block added, plus one; 0 for none
	n     int
	delta []byte
}

// segWriter collects messages in memory until the segment is written:
// the text, deflated block by block, and for each trigram its blocks as
// deltas.
type segWriter struct {
	strs      map[string]uint32
	strList   []string
	sessions  [][2]uint32
	sessIdx   map[string]uint32
	snaps     []snapRow
	runs      []runRow
	nDocs     uint32
	raw       []byte   // the current block's docs
	text      [][]byte // the previous blocks, deflated, in chunks of textChunk bytes so growing never copies
	textLen   int
	blocks    [][3]uint32 // deflated length, crc, inflated length
	offs      []uint64
	lists     []postList
	listIdx   map[uint32]int32
	postBytes int
	scratch   []byte
	tris      []uint32 // the current block's trigrams
	seen      []uint64 // one bit per trigram, for endBlock
	zw        *flate.Writer
	zbuf      bytes.Buffer
	limit     int // bytes of deflated text and postings at which a segment is full
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

// session returns the row of a session at generation gen, adding it if
// needed.
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
func (w *segWriter) snapshot(session uint32, commit storage.ID, seq int, t time.Time, label string) uint32 {
	w.snaps = append(w.snaps, snapRow{commit: commit, session: session, seq: uint32(seq), time: t.UnixNano(), label: w.str(label)})
	return uint32(len(w.snaps) - 1)
}

// add indexes one message of snapshot snap. A doc is encoded as
// {snap, message, role, time, fields length} in varints, followed by
// each field as {kind byte, tool, length, text}.
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

// endBlock deflates the current block and adds each of its trigrams to
// the postings once. seen marks the trigrams already added, and is
// cleared afterwards.
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
		w.zw, _ = flate.NewWriter(&w.zbuf, deflateLevel) // fails only for an invalid level
	} else {
		w.zw.Reset(&w.zbuf)
	}
	_, _ = w.zw.Write(w.raw) // writes to a bytes.Buffer do not fail
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

// full reports whether the segment has reached its size limit. Its text
// and postings are what a build keeps in memory.
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

// tables encodes the tables from the strings table to the blocks table.
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
// starts on a new page, so that it is verified independently of its
// neighbours.
func appendPageSums(sums, b []byte) []byte {
	for i := 0; i < len(b); i += pageBytes {
		sums = binary.LittleEndian.AppendUint32(sums, checksum(b[i:min(i+pageBytes, len(b))]))
	}
	return sums
}

// postings sorts the trigrams and encodes their table and lists. Each
// list is encoded as deltas or as a bitmap of the segment's blocks,
// whichever is shorter; a common trigram is in most blocks, where a
// bitmap costs one bit per block.
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
