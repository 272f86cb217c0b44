// Package gitcfg reads git's configuration files as git reads them:
// sections and subsections, keys with values, quoted, escaped and
// continued, and keys without one. It reads; it never writes.
package gitcfg

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Entry is one key set in a file, in the file's order. Section and Key
// are lower-cased, as git compares them; Subsection is as written.
type Entry struct {
	Section, Subsection, Key string
	// HasSubsection tells [a ""] and [a.] (named a..key) from [a].
	HasSubsection bool
	Value         string
	// NoValue is a key written without "=" (git reads it as true when
	// it wants a boolean); Value is then empty.
	NoValue bool
}

// Name is the entry's name as git config --list prints it:
// section.key, or section.subsection.key. git keeps names as C strings,
// so a NUL in a subsection ends the name there, as it does for git.
func (e Entry) Name() string {
	switch {
	case e.Section == "" && !e.HasSubsection:
		return e.Key // a key before any section, which git reads too
	case !e.HasSubsection:
		return e.Section + "." + e.Key
	}
	name := e.Section + "." + e.Subsection + "." + e.Key
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	return name
}

// ErrSyntax is a file git would refuse to read ("bad config line").
var ErrSyntax = errors.New("bad config line")

// Parse reads a configuration file's entries.
func Parse(data []byte) ([]Entry, error) {
	if bytes.Contains(data, []byte("\r\n")) {
		// git reads every \r\n as \n, a continued line's included.
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	p := parser{data: data, line: 1}
	return p.parse()
}

type parser struct {
	data    []byte
	pos     int
	line    int
	section string
	sub     string
	hasSub  bool
	out     []Entry
}

func (p *parser) fail() error { return fmt.Errorf("%w %d", ErrSyntax, p.line) }

// next is the next byte, and whether there is one; a newline counts a
// line.
func (p *parser) next() (byte, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\n' {
		p.line++
	}
	return c, true
}

func (p *parser) parse() ([]Entry, error) {
	bom := []byte("\xef\xbb\xbf")
	if bytes.HasPrefix(p.data, bom) {
		p.pos = len(bom)
	}
	comment := false
	for {
		c, ok := p.next()
		switch {
		case !ok:
			return p.out, nil
		case c == '\n':
			comment = false
		case comment || isSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			if err := p.header(); err != nil {
				return nil, err
			}
		case isAlpha(c):
			if err := p.entry(c); err != nil {
				return nil, err
			}
		default:
			return nil, p.fail()
		}
	}
}

// header reads a section header after its "[": [section], [section
// "subsection"], or the old [section.subsection], whose subsection is
// lower-cased.
func (p *parser) header() error {
	var name []byte
	for {
		c, ok := p.next()
		switch {
		case !ok:
			return p.fail()
		case c == ']':
			if len(name) == 0 {
				return p.fail()
			}
			p.section, p.sub, p.hasSub = strings.ToLower(string(name)), "", false
			if i := strings.IndexByte(p.section, '.'); i >= 0 {
				p.section, p.sub, p.hasSub = p.section[:i], p.section[i+1:], true
			}
			return nil
		case isSpace(c):
			return p.quotedSubsection(strings.ToLower(string(name)))
		case isAlnum(c) || c == '-' || c == '.':
			name = append(name, c)
		default:
			return p.fail()
		}
	}
}

// quotedSubsection reads ` "subsection"]` after a section's name.
func (p *parser) quotedSubsection(section string) error {
	c, ok := p.next()
	for ok && isSpace(c) {
		c, ok = p.next()
	}
	if !ok || c != '"' {
		return p.fail()
	}
	var sub []byte
	for {
		c, ok = p.next()
		switch {
		case !ok || c == '\n':
			return p.fail()
		case c == '"':
			if c, ok = p.next(); !ok || c != ']' {
				return p.fail()
			}
			p.section, p.sub, p.hasSub = section, string(sub), true
			return nil
		case c == '\\':
			if c, ok = p.next(); !ok || c == '\n' {
				return p.fail()
			}
		}
		sub = append(sub, c)
	}
}

// entry reads a key, which starts with first, and its value if it has
// one.
func (p *parser) entry(first byte) error {
	key := []byte{lower(first)}
	for p.pos < len(p.data) && (isAlnum(p.data[p.pos]) || p.data[p.pos] == '-') {
		key = append(key, lower(p.data[p.pos]))
		p.pos++
	}
	for p.pos < len(p.data) && (p.data[p.pos] == ' ' || p.data[p.pos] == '\t') {
		p.pos++
	}
	e := Entry{Section: p.section, Subsection: p.sub, HasSubsection: p.hasSub, Key: string(key)}
	switch c, ok := p.peek(); {
	case !ok || c == '\n':
		e.NoValue = true
	case c == '=':
		p.pos++
		v, err := p.value()
		if err != nil {
			return err
		}
		e.Value = v
	default:
		return p.fail()
	}
	p.out = append(p.out, e)
	return nil
}

func (p *parser) peek() (byte, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	return p.data[p.pos], true
}

// value reads a value after its "=", up to the end of its line (not
// eaten): quotes kept out, escapes read, a backslash at a line's end
// going on to the next line, runs of white space outside quotes one
// space each, those at either end dropped, a comment outside quotes
// ending it.
func (p *parser) value() (string, error) {
	var v []byte
	quoted, space := false, 0
	for {
		c, ok := p.peek()
		if !ok || c == '\n' {
			if quoted {
				return "", p.fail()
			}
			return cValue(v), nil
		}
		p.pos++
		switch {
		case !quoted && isSpace(c):
			space++
			continue
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return cValue(v), nil
		}
		if space > 0 && len(v) > 0 {
			v = append(v, bytes.Repeat([]byte{' '}, space)...)
		}
		space = 0
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			e, ok := p.next()
			switch {
			case !ok || e == '\n': // git reads the end of a file as a newline
			case e == 'n':
				v = append(v, '\n')
			case e == 't':
				v = append(v, '\t')
			case e == 'b':
				v = append(v, '\b')
			case e == '\\' || e == '"':
				v = append(v, e)
			default:
				return "", p.fail()
			}
		default:
			v = append(v, c)
		}
	}
}

// cValue is a value as git hands it on, a C string: a NUL ends it.
func cValue(v []byte) string {
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	return string(v)
}

func (p *parser) skipLine() {
	for p.pos < len(p.data) && p.data[p.pos] != '\n' {
		p.pos++
	}
}

// isSpace is git's isspace, which \v and \f are not.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
