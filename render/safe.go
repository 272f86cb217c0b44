package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Safe writes output bound for a terminal, or for a pipe that may end in
// one, so that recorded text cannot take the terminal over: a
// transcript can hold OSC 52 (which writes the clipboard), OSC 0 (the
// window's title) or ESC[2J (clear the screen). Every control character
// but newline and tab, and every C1 control, is written as its \u00XX
// escape, which a person reads and which is what JSON writes (so JSON
// and YAML output stay valid); a CR is kept before a newline; a byte
// that is not UTF-8 becomes U+FFFD. The sequences git-snap writes
// itself pass: with colours on, the palette's (colour and weight only),
// and, with progress on, a lone CR and ESC[K that redraw a progress
// line. Safe is not safe for concurrent use.
type Safe struct {
	w        io.Writer
	colours  bool
	progress bool
	raw      bool
	pending  []byte // the start of a sequence a write ended in
	out      []byte
}

// NewSafe makes a Safe writing to w; progress lets a progress line's
// own sequences pass (for stderr).
func NewSafe(w io.Writer, progress bool) *Safe { return &Safe{w: w, progress: progress} }

// SetColours lets the palette's colour sequences pass, as they are when
// the palette is on.
func (s *Safe) SetColours(on bool) { s.colours = on }

// SetRaw writes everything from now on as it is (--raw, a bundle).
func (s *Safe) SetRaw() {
	_ = s.Flush()
	s.raw = true
}

// Underlying is the writer Safe writes to, for output that is not text.
func (s *Safe) Underlying() io.Writer {
	_ = s.Flush()
	return s.w
}

// Write writes p made safe; a sequence p ends in the middle of is held
// until the next write or Flush.
func (s *Safe) Write(p []byte) (int, error) {
	if s.raw {
		return s.w.Write(p)
	}
	data := p
	if len(s.pending) > 0 {
		data = append(s.pending, p...)
		s.pending = nil
	}
	s.out = s.out[:0]
	held := s.filter(data, false)
	s.pending = append(s.pending[:0], data[len(data)-held:]...)
	if len(s.out) > 0 {
		if _, err := s.w.Write(s.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what a write ended in the middle of, made safe, and
// flushes the writer below when it can.
func (s *Safe) Flush() error {
	if len(s.pending) > 0 {
		s.out = s.out[:0]
		s.filter(s.pending, true)
		s.pending = nil
		if _, err := s.w.Write(s.out); err != nil {
			return err
		}
	}
	if f, ok := s.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// filter appends data made safe to s.out and gives how many bytes at
// its end start a sequence it cannot judge yet; at the end (last) it
// judges them all.
func (s *Safe) filter(data []byte, last bool) (held int) {
	start := 0 // of the run of bytes copied as they are
	for i := 0; i < len(data); {
		c := data[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		s.out = append(s.out, data[start:i]...)
		n, keep, wait := s.judge(data[i:])
		if wait && !last {
			return len(data) - i
		}
		if keep {
			s.out = append(s.out, data[i:i+n]...)
		} else {
			s.out = escape(s.out, data[i:i+n])
		}
		i += n
		start = i
	}
	s.out = append(s.out, data[start:]...)
	return 0
}

// judge looks at what starts with a byte that is not printable ASCII:
// how many bytes it spans, whether they pass as they are, and whether
// more bytes are needed to say.
func (s *Safe) judge(b []byte) (n int, keep, wait bool) {
	switch c := b[0]; {
	case c == '\r':
		if len(b) == 1 {
			return 1, s.progress, true
		}
		return 1, b[1] == '\n' || s.progress, false
	case c == 0x1b:
		n, ok, more := s.ownSequence(b)
		if ok {
			return n, true, false
		}
		return 1, false, more
	case c < 0x80:
		return 1, false, false
	}
	r, n := utf8.DecodeRune(b)
	switch {
	case r == utf8.RuneError && n <= 1:
		return 1, false, !utf8.FullRune(b)
	case r < 0xa0:
		return n, false, false
	}
	return n, true, false
}

// ownSequence reports whether b starts with an escape sequence git-snap
// writes itself: with colours, SGR of colour and weight; with progress,
// ESC[K. more is true when b ends before it can say.
func (s *Safe) ownSequence(b []byte) (n int, ok, more bool) {
	if !s.colours && !s.progress {
		return 0, false, false
	}
	if len(b) < 2 {
		return 0, false, true
	}
	if b[1] != '[' {
		return 0, false, false
	}
	for i := 2; i < len(b) && i < 24; i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9' || c == ';':
			continue
		case c == 'm':
			return i + 1, s.colours && colourParams(string(b[2:i])), false
		case c == 'K':
			return i + 1, s.progress && i == 2, false
		default:
			return 0, false, false
		}
	}
	return 0, false, len(b) < 24
}

// colourParams reports whether an SGR's parameters only set colour and
// weight, as the palette does (no conceal, blink or the like).
func colourParams(params string) bool {
	for _, p := range strings.Split(params, ";") {
		switch {
		case p == "" || p == "0" || p == "1" || p == "2" || p == "22" || p == "39":
		case len(p) == 2 && (p[0] == '3' || p[0] == '9') && p[1] >= '0' && p[1] <= '7':
		default:
			return false
		}
	}
	return true
}

// escape appends the escapes of the control characters b holds (one
// byte, one C1 rune, or a byte that is not UTF-8).
func escape(out, b []byte) []byte {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n <= 1 {
		return utf8.AppendRune(out, utf8.RuneError)
	}
	return fmt.Appendf(out, `\u%04x`, r)
}

// Printable is s with its control characters written as Safe writes
// them, for text put next to the palette's own sequences.
func Printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
