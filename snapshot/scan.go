package snapshot

import (
	"maps"
)

// Scanned is a document that has been checked in full, as Parse checks
// it, but not built in full in memory. Its members are parsed into Others,
// except the elements of messages and events: for those it records
// where each element lies in the text, and parses it on request
// (Element). Parsed in full, a 20 MB document of 50,000 messages takes
// some 150 MB of Go values; scanned, it takes its text plus 16 bytes per
// element, and a save holds one element at a time (docs/design.md §7).
type Scanned struct {
	data []byte
	lim  Limits
	// Others holds every member except messages and events when they are
	// non-empty arrays: the members Split puts in snapshot.json, and files.
	Others map[string]any
	spans  map[string][]span // for each member, where its elements lie
}

// span is the byte range of an element in a document's text.
type span struct{ start, end int }

// scannedMember is a placeholder in Others for a member whose elements
// were scanned. ScanDocument removes it before returning.
type scannedMember struct{}

// ScanDocument checks a snapshot document as ParseDocument does, with
// the same errors, and returns it scanned. data is kept, not copied, and
// must not change while the Scanned is in use.
func ScanDocument(data []byte, lim Limits) (*Scanned, error) {
	if lim.MaxDepth == 0 {
		lim.MaxDepth = DefaultMaxDepth
	}
	d := &Scanned{data: data, lim: lim, spans: map[string][]span{}}
	if err := overLimit(data, lim); err != nil {
		return nil, err
	}
	p := &parser{data: data, lim: lim, scan: d}
	p.skipSpace()
	if p.pos >= len(data) || data[p.pos] != '{' {
		_, err := ParseDocument(data, lim) // not an object: return the error ParseDocument returns
		return nil, err
	}
	v, err := p.topValue()
	if err != nil {
		return nil, err
	}
	d.Others = v.(map[string]any)
	maps.DeleteFunc(d.Others, func(_ string, v any) bool { _, ok := v.(scannedMember); return ok })
	return d, nil
}

// elements reads the value of a top-level member stored outside
// snapshot.json. A non-empty array is checked element by element and
// the position of each element recorded; any other value is parsed
// normally.
func (d *Scanned) elements(p *parser, member string, depth int) (any, error) {
	if p.pos >= len(p.data) || p.data[p.pos] != '[' || d.emptyArray(p.pos) {
		return p.value(depth)
	}
	depth++
	if err := p.enter(depth); err != nil {
		return nil, err
	}
	p.pos++ // [
	var spans []span
	for i := 0; ; i++ {
		p.skipSpace()
		p.path = append(p.path, i)
		start := p.pos
		p.discard = true
		_, err := p.value(depth)
		p.discard = false
		if err != nil {
			return nil, err
		}
		spans = append(spans, span{start, p.pos})
		p.path = p.path[:len(p.path)-1]
		p.skipSpace()
		done, err := p.next(']')
		if err != nil {
			return nil, err
		}
		if done {
			d.spans[member] = spans
			return scannedMember{}, nil
		}
	}
}

// emptyArray reports whether the array at i is empty. An empty array
// stays in Others, as Split leaves it.
func (d *Scanned) emptyArray(i int) bool {
	for i++; i < len(d.data); i++ {
		switch d.data[i] {
		case ' ', '\t', '\n', '\r':
		case ']':
			return true
		default:
			return false
		}
	}
	return false
}

// Len returns the number of scanned elements of member (messages or
// events), which are not in Others.
func (d *Scanned) Len(member string) int { return len(d.spans[member]) }

// Size returns the length of the document's text.
func (d *Scanned) Size() int { return len(d.data) }

// Element parses element i of member (messages or events), returning the
// same value Parse would.
func (d *Scanned) Element(member string, i int) (any, error) {
	sp := d.spans[member][i]
	p := &parser{data: d.data, pos: sp.start, lim: d.lim, path: []any{member, i}}
	v, err := p.value(2) // depth 2: inside the document object and the member's array
	if err == nil && p.pos != sp.end {
		err = p.errorf("the element ends at byte %d, not %d as scanned", p.pos, sp.end)
	}
	return v, err
}

// Document parses the whole document and returns what ParseDocument
// would.
func (d *Scanned) Document() (map[string]any, error) {
	doc := maps.Clone(d.Others)
	for member, spans := range d.spans {
		elems := make([]any, len(spans))
		for i := range spans {
			v, err := d.Element(member, i)
			if err != nil {
				return nil, err
			}
			elems[i] = v
		}
		doc[member] = elems
	}
	return doc, nil
}
