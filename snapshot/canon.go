package snapshot

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Number is a JSON number stored as its canonical literal, so that no
// digit is lost. Integers keep every digit; other numbers are normalised
// to the shortest exact decimal form (see CanonicalNumber).
type Number string

// Limits bounds what Parse accepts, so that a hostile document cannot
// exhaust memory or the stack.
type Limits struct {
	MaxBytes      int // the whole document; 0 means no limit
	MaxDepth      int // nesting of arrays and objects; 0 means DefaultMaxDepth
	MaxValueBytes int // one string or number; 0 means no limit
}

// DefaultMaxDepth is the nesting depth Parse accepts when Limits.MaxDepth
// is 0. Documents are stored indented, so the size of a deep document
// grows with the square of its depth. Agents' JSON nests less than 50
// levels deep.
const DefaultMaxDepth = 512

// maxExponent bounds the exponent of a number literal. It keeps exponent
// arithmetic exact; no real document comes near it.
const maxExponent = 1_000_000_000

// SyntaxError reports where and why a document is not acceptable JSON.
type SyntaxError struct {
	Offset int    // byte offset of the problem
	Line   int    // 1-based line
	Column int    // 1-based column, in bytes
	Path   string // JSON path of the value being read, e.g. $.messages[2].content
	Msg    string
}

// UserError marks the error as one the user must fix: the input is wrong.
func (e *SyntaxError) UserError() {}

// Error returns the position (line, column, byte, JSON path) and the
// problem.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d (byte %d), at %s: %s", e.Line, e.Column, e.Offset, e.Path, e.Msg)
}

// Parse reads one JSON value. Objects become map[string]any, arrays []any,
// numbers Number, strings string, and true/false/null bool and nil.
// It rejects input that cannot be stored without loss or ambiguity:
// duplicate keys, invalid UTF-8, lone surrogates, NaN and Infinity, and
// trailing data.
func Parse(data []byte, lim Limits) (any, error) {
	if lim.MaxDepth == 0 {
		lim.MaxDepth = DefaultMaxDepth
	}
	if err := overLimit(data, lim); err != nil {
		return nil, err
	}
	p := &parser{data: data, lim: lim}
	return p.topValue()
}

// overLimit returns an error if data is longer than lim.MaxBytes.
func overLimit(data []byte, lim Limits) error {
	if lim.MaxBytes > 0 && len(data) > lim.MaxBytes {
		return &SyntaxError{Line: 1, Column: 1, Path: "$", Msg: fmt.Sprintf("document is %d bytes, over the limit of %d", len(data), lim.MaxBytes)}
	}
	return nil
}

// topValue reads the value at the current position and the white space
// around it, and fails if anything follows.
func (p *parser) topValue() (any, error) {
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errorf("unexpected data after the JSON value")
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
	lim  Limits
	path []any // string keys and int indexes of the value being read
	// discard makes the parser check a value without building it: it
	// allocates no strings, maps or slices (except keys, to find
	// duplicates) and returns nil (see ScanDocument).
	discard bool
	// scan, when set, receives the positions of the elements of the
	// top-level members stored outside snapshot.json (messages, events).
	// The elements are checked but not built (see ScanDocument).
	scan *Scanned
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for _, c := range p.data[:min(p.pos, len(p.data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	path := p.path
	if len(path) > 12 { // shorten a deep path to its first and last steps
		path = append(append(append([]any{}, path[:6]...), elided(len(path)-10)), path[len(path)-4:]...)
	}
	return &SyntaxError{Offset: p.pos, Line: line, Column: col, Path: FormatPath(path), Msg: fmt.Sprintf(format, args...)}
}

// maskKey shows at most four characters of a key, and never more than
// a quarter of it, for errors that go to stderr and the hook log.
func maskKey(key string) string {
	r := []rune(key)
	n, show := len(r), 0
	switch {
	case n >= 16:
		show = 2
	case n >= 8:
		show = 1
	}
	return strconv.Quote(string(r[:show]) + strings.Repeat("*", min(n-2*show, 12)) + string(r[n-show:]))
}

// elided stands for the steps omitted from a deep path in an error.
type elided int

// FormatPath writes a JSON path as $.key[3]["odd key"].
func FormatPath(path []any) string {
	var b bytes.Buffer
	b.WriteByte('$')
	for _, e := range path {
		switch e := e.(type) {
		case elided:
			fmt.Fprintf(&b, "…(%d levels)…", int(e))
		case int:
			fmt.Fprintf(&b, "[%d]", e)
		case string:
			if isIdent(e) {
				b.WriteByte('.')
				b.WriteString(e)
			} else {
				b.WriteByte('[')
				writeString(&b, e)
				b.WriteByte(']')
			}
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of input: the document is truncated")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		start := p.pos
		s, n, err := p.text(!p.discard)
		if err == nil && p.lim.MaxValueBytes > 0 && n > p.lim.MaxValueBytes {
			p.pos = start
			return nil, p.errorf("a string of %d bytes is over the limit of %d", n, p.lim.MaxValueBytes)
		}
		if p.discard {
			return nil, err
		}
		return s, err
	case c == '-' || c >= '0' && c <= '9':
		start := p.pos
		n, err := p.number()
		if err == nil && p.lim.MaxValueBytes > 0 && p.pos-start > p.lim.MaxValueBytes {
			p.pos = start
			return nil, p.errorf("a number of %d digits is over the limit of %d bytes", p.pos-start, p.lim.MaxValueBytes)
		}
		return n, err
	default:
		return p.literal()
	}
}

func (p *parser) literal() (any, error) {
	for _, l := range []struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if bytes.HasPrefix(p.data[p.pos:], []byte(l.word)) {
			p.pos += len(l.word)
			return l.v, nil
		}
	}
	for _, bad := range []string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(p.data[p.pos:], []byte(bad)) {
			return nil, p.errorf("%s is not a JSON number", bad)
		}
	}
	if c := p.data[p.pos]; c == 't' || c == 'f' || c == 'n' {
		return nil, p.errorf("invalid literal: expected true, false or null")
	}
	return nil, p.errorf("unexpected character %s", quoteByte(p.data[p.pos]))
}

func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) enter(depth int) error {
	if depth > p.lim.MaxDepth {
		return p.errorf("nesting deeper than %d levels", p.lim.MaxDepth)
	}
	return nil
}

func (p *parser) object(depth int) (any, error) {
	if err := p.enter(depth); err != nil {
		return nil, err
	}
	p.pos++ // {
	obj := map[string]any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of input inside an object: the document is truncated")
		}
		if p.data[p.pos] != '"' {
			return nil, p.errorf("expected a string key, found %s", quoteByte(p.data[p.pos]))
		}
		keyPos := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			p.pos = keyPos
			return nil, p.errorf("duplicate key %s (%d bytes, masked: a key may be a secret)", maskKey(key), len(key))
		}
		p.skipSpace()
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		p.skipSpace()
		p.path = append(p.path, key)
		var v any
		if p.scan != nil && depth == 1 && StoredApart(key) && key != MemberFiles {
			v, err = p.scan.elements(p, key, depth)
		} else {
			v, err = p.value(depth)
		}
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		obj[key] = v
		p.skipSpace()
		if done, err := p.next('}'); done || err != nil {
			if p.discard {
				return nil, err
			}
			return obj, err
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	if err := p.enter(depth); err != nil {
		return nil, err
	}
	p.pos++ // [
	arr := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for i := 0; ; i++ {
		p.skipSpace()
		p.path = append(p.path, i)
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		if !p.discard {
			arr = append(arr, v)
		}
		p.skipSpace()
		if done, err := p.next(']'); done || err != nil {
			if p.discard {
				return nil, err
			}
			return arr, err
		}
	}
}

// next consumes a comma or the closing byte, and reports whether it was
// the closing byte.
func (p *parser) next(closing byte) (bool, error) {
	if p.pos >= len(p.data) {
		return false, p.errorf("unexpected end of input: the document is truncated")
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, p.errorf("expected ',' or '%c', found %s", closing, quoteByte(p.data[p.pos]))
}

func (p *parser) expect(c byte) error {
	if p.pos >= len(p.data) {
		return p.errorf("unexpected end of input: the document is truncated")
	}
	if p.data[p.pos] != c {
		return p.errorf("expected '%c', found %s", c, quoteByte(p.data[p.pos]))
	}
	p.pos++
	return nil
}

func (p *parser) string() (string, error) {
	s, _, err := p.text(true)
	return s, err
}

// text reads a string and returns it with its unescaped length. When
// keep is false the string is checked the same way but "" is returned.
func (p *parser) text(keep bool) (string, int, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes, plain ASCII or valid UTF-8.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				return p.slowString(start, keep)
			}
			p.pos++
			if !keep {
				return "", len(s), nil
			}
			return string(s), len(s), nil
		}
		if c == '\\' || c < 0x20 {
			return p.slowString(start, keep)
		}
		p.pos++
	}
	return "", 0, p.errorf("unexpected end of input inside a string: the document is truncated")
}

func (p *parser) slowString(start int, keep bool) (string, int, error) {
	p.pos = start
	var b []byte
	n := 0
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(b), n, nil
		case c < 0x20:
			return "", 0, p.errorf("control character 0x%02x in a string must be escaped", c)
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return "", 0, err
			}
			n += utf8.RuneLen(r)
			if keep {
				b = utf8.AppendRune(b, r)
			}
		case c < utf8.RuneSelf:
			n++
			if keep {
				b = append(b, c)
			}
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return "", 0, p.errorf("invalid UTF-8 in a string")
			}
			n += size
			if keep {
				b = append(b, p.data[p.pos:p.pos+size]...)
			}
			p.pos += size
		}
	}
	return "", 0, p.errorf("unexpected end of input inside a string: the document is truncated")
}

func (p *parser) escape() (rune, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.errorf("unexpected end of input in an escape: the document is truncated")
	}
	start := p.pos
	lone := func(r rune) (rune, error) {
		p.pos = start
		return 0, p.errorf("lone surrogate \\u%04x", r)
	}
	c := p.data[p.pos+1]
	if r, ok := simpleEscapes[c]; ok {
		p.pos += 2
		return r, nil
	}
	if c != 'u' {
		return 0, p.errorf("invalid escape \\%c", c)
	}
	r, err := p.hex4()
	if err != nil {
		return 0, err
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if r >= 0xdc00 || !bytes.HasPrefix(p.data[p.pos:], []byte(`\u`)) {
		return lone(r)
	}
	r2, err := p.hex4()
	if err != nil {
		return 0, err
	}
	full := utf16.DecodeRune(r, r2)
	if full == utf8.RuneError {
		return lone(r)
	}
	return full, nil
}

var simpleEscapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads \uXXXX at p.pos.
func (p *parser) hex4() (rune, error) {
	if p.pos+6 > len(p.data) {
		return 0, p.errorf("unexpected end of input in a \\u escape: the document is truncated")
	}
	n, err := strconv.ParseUint(string(p.data[p.pos+2:p.pos+6]), 16, 32)
	if err != nil {
		return 0, p.errorf("invalid \\u escape %q", p.data[p.pos:p.pos+6])
	}
	p.pos += 6
	return rune(n), nil
}

func (p *parser) number() (any, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if bytes.HasPrefix(p.data[p.pos:], []byte("Infinity")) {
		p.pos = start
		return nil, p.errorf("-Infinity is not a JSON number")
	}
	end, err := scanNumber(p.data, start)
	if err != nil {
		p.pos = end
		return nil, p.errorf("%v", err)
	}
	p.pos = end
	n, err := CanonicalNumber(string(p.data[start:end]))
	if err != nil {
		p.pos = start
		return nil, p.errorf("%v", err)
	}
	return n, nil
}

// scanNumber finds the end of the number literal starting at i, checking
// the JSON grammar.
func scanNumber(d []byte, i int) (int, error) {
	digits := func() int {
		s := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch n := digits(); {
	case n == 0:
		return i, fmt.Errorf("a number needs digits")
	case n > 1 && d[i-n] == '0':
		return i - n, fmt.Errorf("a number must not have leading zeros")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return i, fmt.Errorf("a number needs digits after the decimal point")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, fmt.Errorf("a number needs digits in its exponent")
		}
	}
	return i, nil
}

// ParseDocument parses a snapshot document, which must be a JSON object.
func ParseDocument(data []byte, lim Limits) (map[string]any, error) {
	v, err := Parse(data, lim)
	if err != nil {
		return nil, err
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, &SyntaxError{Line: 1, Column: 1, Path: "$", Msg: fmt.Sprintf("a snapshot document must be a JSON object, not %s", KindOf(v))}
	}
	return doc, nil
}
