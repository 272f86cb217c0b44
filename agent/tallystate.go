package agent

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// tallyMagic starts a marshalled Tally's state, tallyBaseMagic its base;
// a new layout gets new ones.
const (
	tallyMagic     = "git-snap tally 3\n"
	tallyBaseMagic = "git-snap tally base 3\n"
)

// Marshal writes the tally's state whole and compactly: the same state
// always in the same bytes (maps in key order), so that two tallies
// compare by their bytes.
func (t *Tally) Marshal() []byte {
	b := t.marshalState(false)
	return append(b, t.marshalBase()...)
}

// MarshalParts writes the tally as a base, which changes seldom, and a
// state, which holds what changed since the base and stays small: a long
// session's tally is kept between hook calls without rewriting what did
// not change. base is the one the tally was read with (UnmarshalParts)
// when newBase is false; when what changed since grows past an eighth of
// it or past maxOver entries, a new base is made.
func (t *Tally) MarshalParts() (base []byte, newBase bool, state []byte) {
	over := t.calls.overLen() + t.tools.overLen() + t.subs.overLen()
	if t.baseData != nil && over <= min((t.calls.base.len()+t.tools.base.len()+t.subs.base.len())/8, maxOver)+512 {
		return t.baseData, false, t.marshalState(true)
	}
	return t.marshalBase(), true, t.marshalState(false)
}

// maxOver bounds the entries a state holds beyond 512, which every hook
// call reads and writes: at an eighth of a long session's base, they
// made a call cost more the longer the session. The base is then
// rewritten every few thousand records.
const maxOver = 4096

// UnmarshalTally reads a tally Marshal wrote.
func UnmarshalTally(data []byte) (*Tally, error) {
	r := tallyReader{b: data}
	t := readState(&r, false)
	if r.err != nil {
		return nil, errBadTally
	}
	t.readBase(&r)
	if r.err != nil || len(r.b) != 0 {
		return nil, errBadTally
	}
	t.baseData = nil // read whole: no base to keep
	return t, nil
}

// UnmarshalParts reads a tally MarshalParts wrote.
func UnmarshalParts(base, state []byte) (*Tally, error) {
	r := tallyReader{b: state}
	t := readState(&r, true)
	if r.err != nil || len(r.b) != 0 {
		return nil, errBadTally
	}
	rb := tallyReader{b: base}
	t.readBase(&rb)
	if rb.err != nil || len(rb.b) != 0 {
		return nil, errBadTally
	}
	return t, nil
}

// marshalState writes all but the tables' bases, and with over what
// was set since them (else nothing of the tables).
func (t *Tally) marshalState(over bool) []byte {
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
	w.sums(t.fromRuns)
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
	if over {
		writeSection(&w, t.tools.overMap(), t.tools.codec)
		writeSection(&w, t.calls.overMap(), t.calls.codec)
		writeSection(&w, t.subs.overMap(), t.subs.codec)
	} else {
		writeSection(&w, map[uint64]toolUse{}, t.tools.codec)
		writeSection(&w, map[uint64]snapshot.CallSaid{}, t.calls.codec)
		writeSection(&w, map[uint64]bool{}, t.subs.codec)
	}
	return w.b
}

// marshalBase writes the tables whole.
func (t *Tally) marshalBase() []byte {
	var w tallyWriter
	w.b = append(w.b, tallyBaseMagic...)
	writeSection(&w, t.tools.all(), t.tools.codec)
	writeSection(&w, t.calls.all(), t.calls.codec)
	writeSection(&w, t.subs.all(), t.subs.codec)
	return w.b
}

func readState(r *tallyReader, parts bool) *Tally {
	if string(r.bytes(len(tallyMagic))) != tallyMagic {
		r.fail()
		return nil
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
	t.keyed, t.fromTotals, t.fromRuns = r.sums(), r.sums(), r.sums()
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
	tools, calls, subs := readSection(r, t.tools.codec), readSection(r, t.calls.codec), readSection(r, t.subs.codec)
	if !parts && (tools.len() > 0 || calls.len() > 0 || subs.len() > 0) {
		r.fail()
	}
	for i := range tools.len() {
		t.tools.put(tools.key(i), tools.at(i, t.tools.codec))
	}
	for i := range calls.len() {
		t.calls.put(calls.key(i), calls.at(i, t.calls.codec))
	}
	for i := range subs.len() {
		t.subs.put(subs.key(i), true)
	}
	return t
}

// readBase reads the tables' bases where they lie.
func (t *Tally) readBase(r *tallyReader) {
	data := r.b
	if string(r.bytes(len(tallyBaseMagic))) != tallyBaseMagic {
		r.fail()
		return
	}
	t.tools.base = readSection(r, t.tools.codec)
	t.calls.base = readSection(r, t.calls.codec)
	t.subs.base = readSection(r, t.subs.codec)
	t.baseData = data[:len(data)-len(r.b)]
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
	w.int(int64(s.input))
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
	s := callSums{estimated: r.count(), input: r.count(), byModel: map[string]modelSum{}}
	for range r.length() {
		model := r.str()
		s.byModel[model] = modelSum{calls: r.count(), usage: r.usage()}
	}
	return s
}
