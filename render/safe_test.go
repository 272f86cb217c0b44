package render

import (
	"bytes"
	"testing"
)

// Safe writes the same however the text is cut into writes, and lets
// only git-snap's own sequences through.
func TestSafeWritesControlsAsEscapes(t *testing.T) {
	for _, c := range []struct {
		in, out           string
		colours, progress bool
	}{
		{"a\x1b]52;c;aGk=\x07b\n\tc", `a\u001b]52;c;aGk=\u0007b` + "\n\tc", false, false},
		{"x\x1b[2Jy\u009b2J\x7f", `x\u001b[2Jy\u009b2J\u007f`, false, false},
		{"crlf\r\nlone\rend\r", "crlf\r\nlone\\u000dend\\u000d", false, false},
		{"bad \xff\xfe utf8 é", "bad \ufffd\ufffd utf8 é", false, false},
		{"\x1b[1;31mhit\x1b[m \x1b[8mhidden\x1b[m", "\x1b[1;31mhit\x1b[m \\u001b[8mhidden\x1b[m", true, false},
		{"\x1b[1;31mhit\x1b[m", `\u001b[1;31mhit\u001b[m`, false, false},
		{"\r 3 of 9\x1b[K\r\x1b[2K", "\r 3 of 9\x1b[K\r\\u001b[2K", false, true},
	} {
		for cut := 0; cut <= len(c.in); cut++ {
			var b bytes.Buffer
			s := NewSafe(&b, c.progress)
			s.SetColours(c.colours)
			for _, part := range []string{c.in[:cut], c.in[cut:]} {
				if _, err := s.Write([]byte(part)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.out {
				t.Errorf("%q cut at %d: %q, want %q", c.in, cut, b.String(), c.out)
			}
		}
	}
}
