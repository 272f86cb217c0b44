package agent

import (
	"encoding/binary"
	"maps"
	"slices"
	"sort"

	"github.com/git-snap/git-snap/snapshot"
)

// table holds what a Tally keeps per key (a model call, a tool call id):
// a base, encoded once and searched where it lies, and the entries set
// since (over). A long session's tally is read and written on every
// hook call; this way a call decodes and encodes only what changed since
// the base, and the base is rewritten only when those grow large (see
// Tally.MarshalParts).
type table[V any] struct {
	base  section[V]
	over  overlay
	codec codec[V]
}

// overlay holds a table's entries set since its base, each encoded by
// the table's codec, as the base holds them: a session read whole sets
// one per model call, and 200,000 records' calls decoded in a map took
// 20 MB where their encodings take a few (docs/design.md §8).
type overlay struct {
	at    map[uint64]uint32 // key → its entry's offset in data
	data  []byte
	dead  int // bytes of data that entries set again no longer use
	names []string
	index map[string]int // names by their place
}

// codec writes and reads one entry; names are the section's strings
// (model names), written once each.
type codec[V any] interface {
	put(w *tallyWriter, v V, names map[string]int)
	get(r *tallyReader, names []string) V
	name(v V) string
}

// section is a table's entries encoded: its names, n keys in order (8
// bytes each), n offsets into the payload (4 bytes each), the payload.
type section[V any] struct {
	names   []string
	keys    []byte
	offsets []byte
	payload []byte
}

func (s section[V]) len() int { return len(s.keys) / 8 }

func (s section[V]) key(i int) uint64 { return binary.LittleEndian.Uint64(s.keys[8*i:]) }

// find looks k up in the section.
func (s section[V]) find(k uint64, c codec[V]) (V, bool) {
	i := sort.Search(s.len(), func(i int) bool { return s.key(i) >= k })
	var zero V
	if i == s.len() || s.key(i) != k {
		return zero, false
	}
	return s.at(i, c), true
}

func (s section[V]) at(i int, c codec[V]) V {
	off := binary.LittleEndian.Uint32(s.offsets[4*i:])
	r := tallyReader{b: s.payload[min(int(off), len(s.payload)):]}
	return c.get(&r, s.names)
}

func newTable[V any](c codec[V]) table[V] {
	return table[V]{over: overlay{at: map[uint64]uint32{}, index: map[string]int{}}, codec: c}
}

func (t *table[V]) get(k uint64) (V, bool) {
	if off, ok := t.over.at[k]; ok {
		return t.decode(off), true
	}
	return t.base.find(k, t.codec)
}

func (t *table[V]) decode(off uint32) V {
	v, _ := t.decodeLen(off)
	return v
}

// decodeLen decodes the entry at off and says how many bytes it takes.
func (t *table[V]) decodeLen(off uint32) (V, int) {
	r := tallyReader{b: t.over.data[off:]}
	v := t.codec.get(&r, t.over.names)
	return v, len(t.over.data) - int(off) - len(r.b)
}

// put sets k's entry to v: its encoding is appended, and data is
// compacted once more of it is dead than alive.
func (t *table[V]) put(k uint64, v V) {
	o := &t.over
	if name := t.codec.name(v); !o.named(name) {
		o.index[name] = len(o.names)
		o.names = append(o.names, name)
	}
	if old, ok := o.at[k]; ok {
		_, n := t.decodeLen(old)
		o.dead += n
	}
	o.at[k] = uint32(len(o.data))
	o.data = t.encode(o.data, v)
	if o.dead > 64<<10 && o.dead > len(o.data)/2 {
		t.compact()
	}
}

func (o *overlay) named(name string) bool {
	_, ok := o.index[name]
	return ok
}

func (t *table[V]) encode(data []byte, v V) []byte {
	w := tallyWriter{b: data}
	t.codec.put(&w, v, t.over.index)
	return w.b
}

// compact writes the live entries again into a new buffer.
func (t *table[V]) compact() {
	o := &t.over
	data := make([]byte, 0, len(o.data)-o.dead)
	for k, off := range o.at {
		o.at[k] = uint32(len(data))
		data = t.encode(data, t.decode(off))
	}
	o.data, o.dead = data, 0
}

// overLen is how many entries were set since the base.
func (t *table[V]) overLen() int { return len(t.over.at) }

// overMap is the entries set since the base, by key.
func (t *table[V]) overMap() map[uint64]V {
	out := make(map[uint64]V, len(t.over.at))
	for k, off := range t.over.at {
		out[k] = t.decode(off)
	}
	return out
}

// all is every entry, the base's with those set since, by key.
func (t *table[V]) all() map[uint64]V {
	out := make(map[uint64]V, t.base.len()+t.overLen())
	for i := range t.base.len() {
		out[t.base.key(i)] = t.base.at(i, t.codec)
	}
	maps.Copy(out, t.overMap())
	return out
}

// writeSection encodes entries as a section.
func writeSection[V any](w *tallyWriter, entries map[uint64]V, c codec[V]) {
	names := map[string]int{}
	for _, v := range entries {
		names[c.name(v)] = 0
	}
	sorted := slices.Sorted(maps.Keys(names))
	w.uint(uint64(len(sorted)))
	for i, n := range sorted {
		w.str(n)
		names[n] = i
	}
	keys := slices.Sorted(maps.Keys(entries))
	var p tallyWriter
	offsets := make([]byte, 0, 4*len(keys))
	for _, k := range keys {
		offsets = binary.LittleEndian.AppendUint32(offsets, uint32(len(p.b)))
		c.put(&p, entries[k], names)
	}
	w.uint(uint64(len(keys)))
	for _, k := range keys {
		w.key(k)
	}
	w.b = append(w.b, offsets...)
	w.uint(uint64(len(p.b)))
	w.b = append(w.b, p.b...)
}

// readSection reads a section where it lies. Its entries are neither
// checked nor decoded here, only when looked up: a long session's base
// is read on every hook call, which must not cost more the longer the
// session. Lookups stay within the section whatever its bytes (at
// bounds each offset), and the cache file that holds it is checksummed.
func readSection[V any](r *tallyReader, c codec[V]) section[V] {
	var s section[V]
	s.names = make([]string, r.length())
	for i := range s.names {
		s.names[i] = r.str()
	}
	n := r.length()
	s.keys = r.bytes(8 * n)
	s.offsets = r.bytes(4 * n)
	s.payload = r.bytes(r.length())
	if r.err != nil {
		return section[V]{}
	}
	return s
}

// toolCodec writes a tool call id's count and whether it failed.
type toolCodec struct{}

func (toolCodec) put(w *tallyWriter, u toolUse, _ map[string]int) {
	w.int(int64(u.calls))
	w.bool(u.failed)
}

func (toolCodec) get(r *tallyReader, _ []string) toolUse {
	return toolUse{calls: r.count(), failed: r.bool()}
}

func (toolCodec) name(toolUse) string { return "" }

// callCodec writes a model call's model, usage and whether it is
// estimated.
type callCodec struct{}

func (callCodec) put(w *tallyWriter, c snapshot.CallSaid, names map[string]int) {
	w.uint(uint64(names[c.Model]))
	w.said(c)
}

func (callCodec) get(r *tallyReader, names []string) snapshot.CallSaid {
	i := r.uint()
	if i >= uint64(len(names)) {
		r.fail()
		return snapshot.CallSaid{}
	}
	c := r.said()
	c.Model = names[i]
	return c
}

func (callCodec) name(c snapshot.CallSaid) string { return c.Model }

// seenCodec writes that a key was seen: one byte, so that offsets into
// the section's payload stay in order.
type seenCodec struct{}

func (seenCodec) put(w *tallyWriter, _ bool, _ map[string]int) { w.bool(true) }

func (seenCodec) get(r *tallyReader, _ []string) bool { return r.bool() }

func (seenCodec) name(bool) string { return "" }
