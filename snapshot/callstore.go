package snapshot

import "hash/maphash"

// responses are the model calls a CallReader finds from responses (the
// rule most agents' records follow), kept in a few words each: a reader
// of a long session holds every call until its last record is read, and
// 100,000 calls as Call values, their usage and their strings took over
// 50 MB (docs/design.md §8).
type responses struct {
	// calls are in blocks of callBlock, so that growing does not copy
	// them all (and hold them twice) again and again.
	calls [][]response
	n     int
	// recs holds every call's records as lists: recs[k] is a record's
	// place, next[k] the next of its call's records, or -1.
	recs, next []int32
	text       []byte // the calls' ids and times
	names      []string
	byName     map[string]int32
	// byKey finds a call by its UsageKey's hash; a key whose hash another
	// key has is in collided.
	byKey    map[uint64]int32
	collided map[string]int32
	seed     maphash.Seed
}

const callBlock = 4096

// at is call n.
func (r *responses) at(n int32) *response { return &r.calls[n/callBlock][n%callBlock] }

// len is how many calls there are.
func (r *responses) len() int { return r.n }

// response is one call: its records, model, id, time and what its
// records said of its usage (CallSaid, without a model).
type response struct {
	head, tail int32    // in recs
	model      int32    // in names
	id, time   textSpan // in text
	usage      Tokens
	estimated  bool
}

type textSpan struct{ off, n uint32 }

func (r *responses) str(s textSpan) string { return string(r.text[s.off : s.off+s.n]) }

func (r *responses) span(s string) textSpan {
	sp := textSpan{uint32(len(r.text)), uint32(len(s))}
	r.text = append(r.text, s...)
	return sp
}

// find returns the call with UsageKey key.
func (r *responses) find(key string) (int32, bool) {
	if r.byKey == nil {
		return 0, false
	}
	n, ok := r.byKey[maphash.String(r.seed, key)]
	if ok && r.str(r.at(n).id) != key {
		n, ok = r.collided[key]
	}
	return n, ok
}

// add starts a call at record i, whose first record is m.
func (r *responses) add(i int, m Message, model string) int32 {
	if r.byKey == nil {
		r.byKey, r.collided, r.byName, r.seed = map[uint64]int32{}, map[string]int32{}, map[string]int32{}, maphash.MakeSeed()
	}
	n := int32(r.n)
	if r.n%callBlock == 0 {
		r.calls = append(r.calls, make([]response, 0, callBlock))
	}
	b := &r.calls[len(r.calls)-1]
	*b = append(*b, response{head: -1, tail: -1, model: r.name(model), id: r.span(m.UsageKey), time: r.span(m.Time)})
	r.n++
	if m.UsageKey != "" {
		h := maphash.String(r.seed, m.UsageKey)
		if _, taken := r.byKey[h]; taken {
			r.collided[m.UsageKey] = n
		} else {
			r.byKey[h] = n
		}
	}
	return n
}

func (r *responses) name(s string) int32 {
	k, ok := r.byName[s]
	if !ok {
		k = int32(len(r.names))
		r.names = append(r.names, s)
		r.byName[s] = k
	}
	return k
}

// read adds record i, m, to call n, as CallSaid.Read does.
func (r *responses) read(n int32, i int, m Message) {
	c := r.at(n)
	k := int32(len(r.recs))
	r.recs, r.next = append(r.recs, int32(i)), append(r.next, -1)
	if c.tail < 0 {
		c.head = k
	} else {
		r.next[c.tail] = k
	}
	c.tail = k
	said := CallSaid{Model: r.names[c.model], Usage: usageOf(c.usage), Estimated: c.estimated}
	said.Read(m)
	c.model, c.usage, c.estimated = r.name(said.Model), said.Usage.Kinds(), said.Estimated
}

func usageOf(t Tokens) Usage {
	return Usage{Input: t.Input, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, CacheWrite1h: t.CacheWrite1h, Output: t.Output}
}

// call is call n as Calls gives it.
func (r *responses) call(n int) Call {
	c := r.at(int32(n))
	out := Call{ID: r.str(c.id), Model: r.names[c.model], Time: r.str(c.time), Usage: usageOf(c.usage).OfCall(), Estimated: c.estimated, Count: 1}
	for k := c.head; k >= 0; k = r.next[k] {
		out.Records = append(out.Records, int(r.recs[k]))
	}
	return out
}

// readInput reports whether any call's usage says what input it read.
func (r *responses) readInput() bool {
	for n := range int32(r.n) {
		if c := r.at(n); c.usage.Input+c.usage.CacheRead+c.usage.CacheWrite > 0 {
			return true
		}
	}
	return false
}

// keyList is a list of strings in one buffer.
type keyList struct {
	text []byte
	ends []uint32
}

func (l *keyList) add(s string) {
	l.text = append(l.text, s...)
	l.ends = append(l.ends, uint32(len(l.text)))
}

func (l *keyList) all() []string {
	out := make([]string, len(l.ends))
	start := uint32(0)
	for i, end := range l.ends {
		out[i], start = string(l.text[start:end]), end
	}
	return out
}
