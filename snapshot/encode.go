package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Marshal returns the canonical compact form of v (RFC 8785 layout: no
// white space, keys sorted by UTF-16 code units), with numbers written
// as CanonicalNumber writes them. v holds values of the types Parse
// returns; Go numbers (int, float64, json.Number, …) and
// map[string]string are accepted too.
func Marshal(v any) ([]byte, error) {
	e := encoder{}
	if err := e.value(v, nil); err != nil {
		return nil, err
	}
	return e.buf.Bytes(), nil
}

// MarshalIndent returns the canonical form laid out for reading: two
// spaces of indent, one member or element per line, and a final newline.
// This is the form stored in git, so that git diff output is readable.
func MarshalIndent(v any) ([]byte, error) {
	e := encoder{indent: true}
	if err := e.value(v, nil); err != nil {
		return nil, err
	}
	e.buf.WriteByte('\n')
	return e.buf.Bytes(), nil
}

// Canonicalize parses data and returns its canonical indented form.
func Canonicalize(data []byte) ([]byte, error) {
	v, err := Parse(data, Limits{})
	if err != nil {
		return nil, err
	}
	return MarshalIndent(v)
}

// Equal reports whether a and b are the same JSON value: the same
// members in any order, and numbers with the same canonical form.
func Equal(a, b any) bool {
	ca, err1 := Marshal(a)
	cb, err2 := Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

type encoder struct {
	buf    bytes.Buffer
	indent bool
	depth  int
}

func (e *encoder) newline() {
	if e.indent {
		e.buf.WriteByte('\n')
		for range e.depth {
			e.buf.WriteString("  ")
		}
	}
}

func (e *encoder) value(v any, path []any) error {
	switch v := v.(type) {
	case nil:
		e.buf.WriteString("null")
	case bool:
		e.buf.WriteString(strconv.FormatBool(v))
	case string:
		if !utf8.ValidString(v) {
			return fmt.Errorf("at %s: invalid UTF-8 in a string", FormatPath(path))
		}
		writeString(&e.buf, v)
	case Number:
		e.buf.WriteString(string(v))
	case map[string]any:
		return e.object(v, path)
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		return e.object(m, path)
	case []any:
		return e.array(v, path)
	default:
		n, err := goNumber(v)
		if err != nil {
			return fmt.Errorf("at %s: %w", FormatPath(path), err)
		}
		e.buf.WriteString(string(n))
	}
	return nil
}

// goNumber converts Go numeric values to canonical numbers.
func goNumber(v any) (Number, error) {
	switch v := v.(type) {
	case json.Number:
		return CanonicalNumber(string(v))
	case float64:
		return floatNumber(v)
	case float32:
		return floatNumber(float64(v))
	case int:
		return Number(strconv.FormatInt(int64(v), 10)), nil
	case int64:
		return Number(strconv.FormatInt(v, 10)), nil
	case int32:
		return Number(strconv.FormatInt(int64(v), 10)), nil
	case uint64:
		return Number(strconv.FormatUint(v, 10)), nil
	case uint32:
		return Number(strconv.FormatUint(uint64(v), 10)), nil
	case uint:
		return Number(strconv.FormatUint(uint64(v), 10)), nil
	}
	return "", fmt.Errorf("%T is not a JSON value", v)
}

func floatNumber(f float64) (Number, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("%v is not a JSON number", f)
	}
	if f == 0 && math.Signbit(f) {
		return "-0", nil
	}
	// The 'e' format always has an exponent, so CanonicalNumber
	// normalises it to the exact decimal form.
	return CanonicalNumber(strconv.FormatFloat(f, 'e', -1, 64))
}

func (e *encoder) object(m map[string]any, path []any) error {
	if len(m) == 0 {
		e.buf.WriteString("{}")
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !utf8.ValidString(k) {
			return fmt.Errorf("at %s: invalid UTF-8 in a key", FormatPath(path))
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, CompareKeys)
	e.buf.WriteByte('{')
	e.depth++
	for i, k := range keys {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.newline()
		writeString(&e.buf, k)
		e.buf.WriteByte(':')
		if e.indent {
			e.buf.WriteByte(' ')
		}
		if err := e.value(m[k], append(path, k)); err != nil {
			return err
		}
	}
	e.depth--
	e.newline()
	e.buf.WriteByte('}')
	return nil
}

func (e *encoder) array(a []any, path []any) error {
	if len(a) == 0 {
		e.buf.WriteString("[]")
		return nil
	}
	e.buf.WriteByte('[')
	e.depth++
	for i, v := range a {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.newline()
		if err := e.value(v, append(path, i)); err != nil {
			return err
		}
	}
	e.depth--
	e.newline()
	e.buf.WriteByte(']')
	return nil
}

// CompareKeys orders object keys by their UTF-16 code units, as RFC 8785
// requires. It differs from byte order only for characters above U+FFFF
// against those in U+E000–U+FFFF.
func CompareKeys(a, b string) int {
	for i, j := 0, 0; ; {
		if i == len(a) || j == len(b) {
			return (len(a) - i) - (len(b) - j) // a prefix sorts first
		}
		if a[i] < utf8.RuneSelf && b[j] < utf8.RuneSelf {
			if a[i] != b[j] {
				return int(a[i]) - int(b[j])
			}
			i, j = i+1, j+1
			continue
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		if ra != rb {
			return int(utf16Key(ra)) - int(utf16Key(rb))
		}
		i, j = i+na, j+nb
	}
}

// utf16Key returns a key that orders runes the way their UTF-16
// encodings compare. The key is the first code unit shifted left by 10
// bits. For a rune above U+FFFF, the low 10 bits of the second code unit
// are added, so that runes sharing a high surrogate keep code point
// order.
func utf16Key(r rune) rune {
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return hi<<10 | lo&0x3ff
	}
	return r << 10
}

// writeString writes s as a JSON string the way RFC 8785 does: only the
// quote, backslash and control characters are escaped.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			fmt.Fprintf(b, `\u%04x`, c)
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
