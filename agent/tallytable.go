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
// since, in a map. A long session's tally is read and written on every
// hook call; this way a call decodes and encodes only what changed since
// the base, and the base is rewritten only when those grow large (see
// Tally.MarshalParts).
type table[V any] struct {
	base  section[V]
	over  map[uint64]V
	codec codec[V]
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
	return table[V]{over: map[uint64]V{}, codec: c}
}

func (t *table[V]) get(k uint64) (V, bool) {
	if v, ok := t.over[k]; ok {
		return v, true
	}
	return t.base.find(k, t.codec)
}

func (t *table[V]) put(k uint64, v V) { t.over[k] = v }

// all is every entry, the base's with those set since, by key.
func (t *table[V]) all() map[uint64]V {
	out := make(map[uint64]V, t.base.len()+len(t.over))
	for i := range t.base.len() {
		out[t.base.key(i)] = t.base.at(i, t.codec)
	}
	maps.Copy(out, t.over)
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
