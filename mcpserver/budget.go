package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// minChars is the smallest max_chars a call may ask for. It leaves room
// for some text besides the note that says where the rest is.
const minChars = 256

// limit returns the budget of one call: Options.Budget, or max_chars
// when the call asks for less.
func (s *Server) limit(maxChars int) (int, error) {
	switch {
	case maxChars < 0 || (maxChars > 0 && maxChars < minChars):
		return 0, fmt.Errorf("max_chars %d: give a number of characters from %d to %d, or leave it out", maxChars, minChars, s.opts.Budget)
	case maxChars == 0 || maxChars > s.opts.Budget:
		return s.opts.Budget, nil
	}
	return maxChars, nil
}

// page returns text from character offset onwards, cut to limit
// characters, with a last line that says what was left out and how to
// read it. It cuts at the end of a line when one is near, so that each
// line stays whole on one page or the next.
func page(text string, offset, limit int) (string, error) {
	total := utf8.RuneCountInString(text)
	if offset < 0 || (offset > 0 && offset >= total) {
		return "", fmt.Errorf("offset %d: the text has %d characters; give an offset from 0 to %d", offset, total, max(total-1, 0))
	}
	start := byteAt(text, offset)
	rest := text[start:]
	if utf8.RuneCountInString(rest) <= limit {
		return rest, nil
	}
	note := func(end int) string {
		return fmt.Sprintf("\n\n[cut: characters %d to %d of %d shown; call again with offset=%d for the rest]", offset, end, total, end)
	}
	room := max(limit-utf8.RuneCountInString(note(total)), 1)
	cut := byteAt(rest, room)
	if nl := bytes.LastIndexByte([]byte(rest[:cut]), '\n'); nl > cut/2 {
		cut = nl + 1
	}
	end := offset + utf8.RuneCountInString(rest[:cut])
	return rest[:cut] + note(end), nil
}

// byteAt returns the byte index of character n of s, or len(s) when n
// is past the end.
func byteAt(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// marshal encodes v as indented JSON without escaping HTML.
func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding the answer: %w", err)
	}
	return b.String(), nil
}

// fitList returns the JSON of build(k) for the largest k ≤ n whose JSON
// fits in limit characters, and that k. A list answer keeps its first
// items whole and says how many it left out, rather than cutting an
// item in half.
func fitList(n, limit int, build func(k int) any) (string, int, error) {
	text, err := marshal(build(n))
	if err != nil || utf8.RuneCountInString(text) <= limit {
		return text, n, err
	}
	lo, hi := 0, n // build(lo) is assumed to fit, build(hi) does not
	best := ""
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		t, err := marshal(build(mid))
		if err != nil {
			return "", 0, err
		}
		if utf8.RuneCountInString(t) <= limit {
			lo, best = mid, t
		} else {
			hi = mid
		}
	}
	if best == "" {
		if best, err = marshal(build(lo)); err != nil {
			return "", 0, err
		}
	}
	return best, lo, nil
}

// budgetError is an error whose message is cut to the server's budget.
// Errors need cutting because they can quote the call (a path of any
// length) or list every valid choice.
type budgetError struct {
	msg string
	err error
}

func (e *budgetError) Error() string { return e.msg }
func (e *budgetError) Unwrap() error { return e.err }

// withinBudget returns err with its message cut to the server's budget.
func (s *Server) withinBudget(err error) error {
	msg := err.Error()
	n := utf8.RuneCountInString(msg)
	if n <= s.opts.Budget {
		return err
	}
	note := fmt.Sprintf(" … [cut: the error is %d characters]", n)
	keep := max(s.opts.Budget-utf8.RuneCountInString(note), 0)
	return &budgetError{msg: msg[:byteAt(msg, keep)] + note, err: err}
}
