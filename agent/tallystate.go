package agent

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// tallyMagic starts a marshalled Tally; a new layout gets a new one.
const tallyMagic = "git-snap tally 1\n"

// Marshal writes the tally's state compactly: the same state always in
// the same bytes (maps in key order), so that two tallies compare by
// their bytes.
func (t *Tally) Marshal() []byte {
	var w tallyWriter
	w.b = append(w.b, tallyMagic...)
	w.str(t.source)
	for _, n := range []int{t.said, t.toolCalls, t.turnCount, t.compactions, t.failures} {
		w.int(int64(n))
	}
	w.time(t.first)
	w.time(t.last)
	w.bool(t.groups.Open)
	w.str(t.groups.Named)
	if t.groups.Open {
		w.call(t.open)
	}
	w.usage(t.running.Prev)
	w.str(t.running.Model)
	w.sums(t.keyed)
	w.sums(t.fromTotals)
	e := t.events
	for _, n := range []int{e.modelCalls, e.toolCalls, e.failures, e.compactions, e.turns} {
		w.int(int64(n))
	}
	w.uint(uint64(len(e.byModel)))
	for _, model := range slices.Sorted(maps.Keys(e.byModel)) {
		w.str(model)
		w.usage(e.byModel[model])
	}
	w.uint(uint64(len(t.threads)))
	for _, name := range slices.Sorted(maps.Keys(t.threads)) {
		st := t.threads[name]
		w.str(name)
		w.bool(st.command)
		w.bool(st.open)
		w.key(st.prompt)
		w.key(st.kind)
	}
	w.uint(uint64(len(t.tools)))
	for _, k := range slices.Sorted(maps.Keys(t.tools)) {
		w.key(k)
		w.int(int64(t.tools[k].calls))
		w.bool(t.tools[k].failed)
	}
	models := map[string]uint64{}
	for _, c := range t.calls {
		models[c.Model] = 0
	}
	w.uint(uint64(len(models)))
	for i, model := range slices.Sorted(maps.Keys(models)) {
		w.str(model)
		models[model] = uint64(i)
	}
	w.uint(uint64(len(t.calls)))
	for _, k := range slices.Sorted(maps.Keys(t.calls)) {
		c := t.calls[k]
		w.key(k)
		w.uint(models[c.Model])
		w.said(c)
	}
	return w.b
}

// UnmarshalTally reads a tally Marshal wrote.
func UnmarshalTally(data []byte) (*Tally, error) {
	r := tallyReader{b: data}
	if string(r.bytes(len(tallyMagic))) != tallyMagic {
		return nil, errBadTally
	}
	t := NewTally(r.str())
	for _, n := range []*int{&t.said, &t.toolCalls, &t.turnCount, &t.compactions, &t.failures} {
		*n = r.count()
	}
	t.first, t.last = r.time(), r.time()
	t.groups.Open, t.groups.Named = r.bool(), r.str()
	if t.groups.Open {
		t.open = r.call()
	}
	t.running.Prev, t.running.Model = r.usage(), r.str()
	t.keyed, t.fromTotals = r.sums(), r.sums()
	e := &t.events
	for _, n := range []*int{&e.modelCalls, &e.toolCalls, &e.failures, &e.compactions, &e.turns} {
		*n = r.count()
	}
	for range r.length() {
		e.byModel[r.str()] = r.usage()
	}
	for range r.length() {
		name := r.str()
		t.threads[name] = &turnState{command: r.bool(), open: r.bool(), prompt: r.key(), kind: r.key()}
	}
	for range r.length() {
		t.tools[r.key()] = toolUse{calls: r.count(), failed: r.bool()}
	}
	models := make([]string, r.length())
	for i := range models {
		models[i] = r.str()
	}
	for range r.length() {
		k, m := r.key(), r.uint()
		if m >= uint64(len(models)) {
			r.fail()
			break
		}
		c := r.said()
		c.Model = models[m]
		t.calls[k] = c
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errBadTally
	}
	return t, nil
}

var errBadTally = errors.New("not a tally git-snap wrote")

type tallyWriter struct{ b []byte }

func (w *tallyWriter) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }
func (w *tallyWriter) int(n int64)   { w.b = binary.AppendVarint(w.b, n) }
func (w *tallyWriter) key(k uint64)  { w.b = binary.LittleEndian.AppendUint64(w.b, k) }

func (w *tallyWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *tallyWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *tallyWriter) time(t time.Time) {
	if t.IsZero() {
		w.uint(0)
		return
	}
	b, err := t.MarshalBinary()
	if err != nil { // a zone offset Go cannot keep: the instant in UTC
		b, _ = t.UTC().MarshalBinary()
	}
	w.uint(uint64(len(b)))
	w.b = append(w.b, b...)
}

func (w *tallyWriter) usage(u snapshot.Usage) {
	for _, n := range []int64{u.Input, u.CacheRead, u.CacheWrite, u.CacheWrite1h, u.Output} {
		w.int(n)
	}
	for _, t := range u.Long {
		for _, n := range []int64{t.Input, t.CacheRead, t.CacheWrite, t.CacheWrite1h, t.Output} {
			w.int(n)
		}
	}
}

func (w *tallyWriter) call(c snapshot.CallSaid) {
	w.str(c.Model)
	w.said(c)
}

// said writes a call's usage and whether it is estimated, with its
// long-context parts only when it has some (a call's own usage, as
// recorded, has none).
func (w *tallyWriter) said(c snapshot.CallSaid) {
	long := c.Usage.Long != [len(snapshot.LongContext)]snapshot.Tokens{}
	w.b = append(w.b, b2u8(c.Estimated)|b2u8(long)<<1)
	u := c.Usage
	for _, n := range []int64{u.Input, u.CacheRead, u.CacheWrite, u.CacheWrite1h, u.Output} {
		w.int(n)
	}
	if long {
		w.usage(snapshot.Usage{Long: u.Long})
	}
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (w *tallyWriter) sums(s callSums) {
	w.int(int64(s.estimated))
	w.uint(uint64(len(s.byModel)))
	for _, model := range slices.Sorted(maps.Keys(s.byModel)) {
		w.str(model)
		w.int(int64(s.byModel[model].calls))
		w.usage(s.byModel[model].usage)
	}
}

// tallyReader reads what tallyWriter wrote; the first thing that does
// not read sets err, and everything after reads as zero.
type tallyReader struct {
	b   []byte
	err error
}

func (r *tallyReader) fail() { r.err, r.b = errBadTally, nil }

func (r *tallyReader) uint() uint64 {
	n, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return n
}

func (r *tallyReader) int() int64 {
	n, k := binary.Varint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return n
}

// count reads a count, which no session's can be below 0 or above 2^40.
func (r *tallyReader) count() int {
	n := r.int()
	if n < 0 || n > 1<<40 {
		r.fail()
		return 0
	}
	return int(n)
}

// length reads how many entries follow: no more than bytes remain.
func (r *tallyReader) length() int {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *tallyReader) bytes(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.fail()
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *tallyReader) key() uint64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (r *tallyReader) bool() bool {
	b := r.bytes(1)
	if b != nil && b[0] > 1 {
		r.fail()
	}
	return b != nil && b[0] == 1
}

func (r *tallyReader) str() string { return string(r.bytes(r.length())) }

func (r *tallyReader) time() time.Time {
	b := r.bytes(r.length())
	var t time.Time
	if len(b) > 0 && t.UnmarshalBinary(b) != nil {
		r.fail()
	}
	return t
}

func (r *tallyReader) usage() snapshot.Usage {
	var u snapshot.Usage
	for _, p := range []*int64{&u.Input, &u.CacheRead, &u.CacheWrite, &u.CacheWrite1h, &u.Output} {
		*p = r.int()
	}
	for i := range u.Long {
		t := &u.Long[i]
		for _, p := range []*int64{&t.Input, &t.CacheRead, &t.CacheWrite, &t.CacheWrite1h, &t.Output} {
			*p = r.int()
		}
	}
	return u
}

func (r *tallyReader) call() snapshot.CallSaid {
	model := r.str()
	c := r.said()
	c.Model = model
	return c
}

func (r *tallyReader) said() snapshot.CallSaid {
	flags := r.bytes(1)
	if flags == nil || flags[0] > 3 {
		r.fail()
		return snapshot.CallSaid{}
	}
	c := snapshot.CallSaid{Estimated: flags[0]&1 != 0}
	u := &c.Usage
	for _, p := range []*int64{&u.Input, &u.CacheRead, &u.CacheWrite, &u.CacheWrite1h, &u.Output} {
		*p = r.int()
	}
	if flags[0]&2 != 0 {
		u.Long = r.usage().Long
	}
	return c
}

func (r *tallyReader) sums() callSums {
	s := callSums{estimated: r.count(), byModel: map[string]modelSum{}}
	for range r.length() {
		model := r.str()
		s.byModel[model] = modelSum{calls: r.count(), usage: r.usage()}
	}
	return s
}
