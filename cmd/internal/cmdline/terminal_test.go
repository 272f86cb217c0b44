package cmdline

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// escapes are what a transcript can send a terminal: OSC 52 writes the
// clipboard, OSC 0 the window's title, ESC[2J clears the screen, the
// C1 CSI does the same in one character, and a lone CR writes over the
// line.
const escapes = "run\x1b]52;c;ZWNobyBvd25lZA==\x07 then\x1b]0;owned\x07 and\x1b[2J and\u009b2J,\rhidden\ttab\nnext line"

// TestRecordedEscapesReachNoTerminal: every command that prints a
// transcript's text writes its control characters and escape sequences
// as \u00XX escapes, keeping newlines and tabs; with colours on only the
// palette's own sequences are there; --json escapes them as JSON does
// and --raw prints them as recorded.
func TestRecordedEscapesReachNoTerminal(t *testing.T) {
	w := newLeakWorld(t)
	w.run("", "import", "--from", "claude-code", "-s", "esc", w.file("esc.jsonl", w.transcript("esc", escapes)))
	w.run("", "import", "--from", "claude-code", "-s", "esc2", w.file("esc2.jsonl", w.transcript("esc2", escapes+" again")))
	doc, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": escapes}}})
	w.run("", "save", "-s", "esc3", w.file("esc3.json", string(doc)))
	for _, args := range [][]string{
		{"show", "esc"}, {"show", "esc3"}, {"show", "--tools", "esc"}, {"show", "--full", "esc"}, {"show", "--color=always", "--full", "esc"},
		{"trace", "esc"}, {"log", "-p", "esc"}, {"log", "--color=always", "-p", "esc"}, {"diff", "esc", "esc2"},
		{"search", "hidden"}, {"search", "--color=always", "hidden"}, {"sessions"}, {"pr", "base..HEAD"},
		{"export", "--format", "markdown", "esc"}, {"export", "--format", "html", "esc"},
	} {
		out := w.run("", args...)
		if bad := terminalControl(out); bad != "" {
			t.Errorf("%s writes %q", strings.Join(args, " "), bad)
		}
	}
	for _, args := range [][]string{{"show", "--full", "esc"}, {"export", "--format", "markdown", "esc"}} {
		if out := w.run("", args...); !strings.Contains(out, `run\u001b]52;c;ZWNobyBvd25lZA==\u0007 then`) || !strings.Contains(out, "\ttab") {
			t.Errorf("%s: the escapes are not shown as text:\n%s", strings.Join(args, " "), out)
		}
	}
	for _, args := range [][]string{{"show", "--json", "esc"}, {"export", "esc"}, {"trace", "--json", "esc"}, {"search", "--json", "hidden"}} {
		out := w.run("", args...)
		if bad := terminalControl(out); bad != "" {
			t.Errorf("%s writes %q", strings.Join(args, " "), bad)
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: not JSON: %v", strings.Join(args, " "), err)
		}
		if !strings.Contains(out, `\u001b]52;c;`) || !strings.Contains(out, `\u009b2J`) {
			t.Errorf("%s: the escapes are not JSON's:\n%.600s", strings.Join(args, " "), out)
		}
	}
	if out := w.run("", "show", "--raw", "--full", "esc"); !strings.Contains(out, "\x1b]52;c;ZWNobyBvd25lZA==\x07") {
		t.Errorf("show --raw does not print what was recorded:\n%s", out)
	}
}

// terminalControl is the first control character or escape sequence in
// out a terminal would act on ("" when none): anything but a newline,
// a tab, a CR before a newline and the palette's colour sequences.
func terminalControl(out string) string {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == '\x1b':
			end := strings.IndexByte(out[i:], 'm')
			if end < 0 || strings.Trim(out[i+2:i+end], "0123456789;") != "" || out[i+1] != '[' {
				return out[i:min(len(out), i+12)]
			}
			n = end + 1
		case r == '\r' && !strings.HasPrefix(out[i:], "\r\n"), r < 0x20 && r != '\n' && r != '\t' && r != '\r', r >= 0x7f && r < 0xa0:
			return out[i:min(len(out), i+12)]
		}
		i += n
	}
	return ""
}
