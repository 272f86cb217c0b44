package provenance

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"slices"
	"time"

	"github.com/git-snap/git-snap/storage"
)

// The index's files are varints and strings in a fixed order, a magic
// line first and a CRC-32C last: a blame reads the sessions it needs in
// a few microseconds each, where JSON took milliseconds. A file that
// does not read whole (another version, damage) is read again from the
// store, never trusted.

const (
	sessionMagic  = "git-snap lines 1\n"
	manifestMagic = "git-snap lines manifest 1\n"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errDamaged is a file of the index that does not read whole.
var errDamaged = errors.New("the line index is damaged")

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64)    { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int)        { e.b = binary.AppendVarint(e.b, int64(v)) }
func (e *encoder) str(s string)     { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) id(id storage.ID) { e.b = append(e.b, id[:]...) }
func (e *encoder) time(t time.Time) { e.b = binary.AppendVarint(e.b, t.UnixMilli()) }
func (e *encoder) seal(magic string) []byte {
	out := append([]byte(magic), e.b...)
	return binary.BigEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// hashes writes sorted hashes as the differences between neighbours.
func (e *encoder) hashes(hs []uint64) {
	e.uint(uint64(len(hs)))
	prev := uint64(0)
	for _, h := range hs {
		e.uint(h - prev)
		prev = h
	}
}

type decoder struct {
	b   []byte
	err error
}

// open checks a file's magic line and checksum and returns a decoder
// of what is between.
func open(data []byte, magic string) *decoder {
	n := len(data)
	if n < len(magic)+4 || string(data[:len(magic)]) != magic ||
		crc32.Checksum(data[:n-4], castagnoli) != binary.BigEndian.Uint32(data[n-4:]) {
		return &decoder{err: errDamaged}
	}
	return &decoder{b: data[len(magic) : n-4]}
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errDamaged
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errDamaged
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

// count reads a length, bounded by what is left to read: a damaged one
// cannot make a reader allocate more than the file holds.
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.err = errDamaged
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) id() storage.ID {
	var id storage.ID
	if d.err != nil || len(d.b) < len(id) {
		d.err = errDamaged
		return id
	}
	copy(id[:], d.b)
	d.b = d.b[len(id):]
	return id
}

func (d *decoder) time() time.Time { return time.UnixMilli(int64(d.int())).UTC() }

func (d *decoder) hashes() []uint64 {
	n := d.count()
	hs := make([]uint64, 0, n)
	prev := uint64(0)
	for range n {
		prev += d.uint()
		hs = append(hs, prev)
	}
	return hs
}

// encode writes a session's lines as a file of the index.
func (sl *sessionLines) encode() []byte {
	e := &encoder{}
	for _, s := range []string{sl.Ref, sl.Session, sl.Remote, sl.Agent, sl.LastModel} {
		e.str(s)
	}
	e.id(sl.Tip)
	e.int(sl.TipSeq)
	e.int(sl.LastCalls)
	e.id(storage.ID(sl.LastFiles))
	e.uint(uint64(len(sl.Edits)))
	for _, ed := range sl.Edits {
		e.id(ed.ID)
		e.int(ed.Seq)
		e.int(ed.Turn)
		e.time(ed.Time)
		e.str(ed.Model)
	}
	e.uint(uint64(len(sl.Codes)))
	for _, c := range sl.Codes {
		e.id(c.Code)
		e.int(c.Seq)
	}
	e.uint(uint64(len(sl.Prunes)))
	for _, p := range sl.Prunes {
		e.id(p.Old)
		e.int(p.Removed)
		e.time(p.At)
	}
	e.time(sl.Started)
	e.time(sl.Kept)
	paths := slices.Sorted(maps.Keys(sl.Files))
	e.uint(uint64(len(paths)))
	for _, p := range paths {
		e.str(p)
		e.uint(uint64(len(sl.Files[p])))
		for _, c := range sl.Files[p] {
			e.int(c.Edit)
			e.hashes(c.Exact)
			e.hashes(c.Norm)
			e.uint(uint64(len(c.Context)))
			for _, lc := range c.Context {
				e.uint(lc.Line)
				e.uint(lc.Prev)
				e.uint(lc.Next)
			}
		}
	}
	last := slices.Sorted(maps.Keys(sl.Last))
	e.uint(uint64(len(last)))
	for _, p := range last {
		e.str(p)
		e.id(sl.Last[p])
	}
	models := slices.Sorted(maps.Keys(sl.LastOut))
	e.uint(uint64(len(models)))
	for _, m := range models {
		e.str(m)
		e.int(int(sl.LastOut[m]))
	}
	e.id(sl.PromptsAt)
	e.uint(map[bool]uint64{false: 0, true: 1}[sl.PromptsWhole])
	e.uint(uint64(len(sl.Prompts)))
	for _, p := range sl.Prompts {
		e.str(p)
	}
	return e.seal(sessionMagic)
}

// decodeSession reads what encode wrote.
func decodeSession(data []byte) (*sessionLines, error) {
	d := open(data, sessionMagic)
	sl := &sessionLines{Files: map[string][]capture{}, Last: map[string]storage.ID{}, LastOut: map[string]int64{}}
	for _, s := range []*string{&sl.Ref, &sl.Session, &sl.Remote, &sl.Agent, &sl.LastModel} {
		*s = d.str()
	}
	sl.Tip, sl.TipSeq, sl.LastCalls = d.id(), d.int(), d.int()
	sl.LastFiles = storage.FileSetID(d.id())
	for range d.count() {
		sl.Edits = append(sl.Edits, edit{ID: d.id(), Seq: d.int(), Turn: d.int(), Time: d.time(), Model: d.str()})
	}
	for range d.count() {
		sl.Codes = append(sl.Codes, codeSeen{d.id(), d.int()})
	}
	for range d.count() {
		sl.Prunes = append(sl.Prunes, pruneSeen{d.id(), d.int(), d.time()})
	}
	sl.Started, sl.Kept = d.time(), d.time()
	for range d.count() {
		p := d.str()
		for range d.count() {
			c := capture{Edit: d.int(), Exact: d.hashes(), Norm: d.hashes()}
			for range d.count() {
				c.Context = append(c.Context, lineContext{d.uint(), d.uint(), d.uint()})
			}
			if c.Edit < 0 || c.Edit >= len(sl.Edits) {
				d.err = errDamaged
			}
			sl.Files[p] = append(sl.Files[p], c)
		}
	}
	for range d.count() {
		p := d.str()
		sl.Last[p] = d.id()
	}
	for range d.count() {
		m := d.str()
		sl.LastOut[m] = int64(d.int())
	}
	sl.PromptsAt, sl.PromptsWhole = d.id(), d.uint() == 1
	for range d.count() {
		sl.Prompts = append(sl.Prompts, d.str())
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errDamaged
	}
	return sl, d.err
}
