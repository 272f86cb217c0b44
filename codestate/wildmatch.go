package codestate

// wildmatch is git's wildmatch (wildmatch.c) for the patterns of
// .gitignore files: '*' and '?' do not match '/' when pathname is set,
// "**" between slashes matches any number of directories, '[...]'
// classes with '!' or '^', ranges and [:class:] names, and '\' quoting
// the next byte. It compares bytes, as git does without core.ignoreCase.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// at is s[i], or 0 past its end, as C strings read.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

func dowild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		tc := at(text, ti)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			pi++
			if at(p, pi) != tc {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			r, done := star(p, pi, text, ti, pathname)
			if done {
				return r
			}
			// One '*' then '/': the text's next slash is where it goes on.
			pi, ti = r, stepSlash(text, ti)
		case '[':
			end, ok, abort := class(p, pi, tc)
			switch {
			case abort:
				return wmAbortAll
			case !ok || (pathname && tc == '/'):
				return wmNoMatch
			}
			pi = end
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// stepSlash is where text's next '/' is from ti (one '*' and a '/' of
// the pattern matched what lies before it).
func stepSlash(text string, ti int) int {
	for i := ti; i < len(text); i++ {
		if text[i] == '/' {
			return i
		}
	}
	return len(text)
}

// star matches the '*' or '**' at p[pi] against text[ti:]. done says the
// match is decided, r being its result; else r is where the pattern goes
// on (its '/' after a single '*') and the text from its next '/'.
func star(p string, pi int, text string, ti int, pathname bool) (r int, done bool) {
	pi, matchSlash, matched := starRun(p, pi, text, ti, pathname)
	switch {
	case matched:
		return wmMatch, true
	case pi == len(p):
		if !matchSlash && stepSlash(text, ti) < len(text) {
			return wmNoMatch, true
		}
		return wmMatch, true
	case !matchSlash && p[pi] == '/':
		if stepSlash(text, ti) == len(text) {
			return wmNoMatch, true
		}
		return pi, false
	}
	return starRest(p[pi:], text, ti, matchSlash, pathname), true
}

// starRun reads the run of '*' at p[pi]: where the pattern goes on after
// it, whether it may match a '/', and whether "**/" matching no
// directory already matched the rest.
func starRun(p string, pi int, text string, ti int, pathname bool) (next int, matchSlash, matched bool) {
	pi++
	if at(p, pi) != '*' {
		return pi, !pathname, false
	}
	prev := pi - 2
	for at(p, pi) == '*' {
		pi++
	}
	switch {
	case !pathname:
		return pi, true, false
	case (prev < 0 || p[prev] == '/') && (pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && at(p, pi+1) == '/')):
		if at(p, pi) == '/' && dowild(p[pi+1:], text[ti:], pathname) == wmMatch {
			return pi, true, true
		}
		return pi, true, false
	}
	return pi, false, false
}

// starRest tries the pattern after a '*' (rest) at each place of text
// from ti on.
func starRest(rest, text string, ti int, matchSlash, pathname bool) int {
	for tc := at(text, ti); tc != 0; {
		if !isGlobSpecial(rest[0]) {
			// A literal next: skip to where it is.
			for tc = at(text, ti); tc != 0 && (matchSlash || tc != '/') && tc != rest[0]; tc = at(text, ti) {
				ti++
			}
			if tc != rest[0] {
				if matchSlash {
					return wmAbortAll
				}
				return wmAbortToStarStar
			}
		}
		if m := dowild(rest, text[ti:], pathname); m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m
			}
		} else if !matchSlash && tc == '/' {
			return wmAbortToStarStar
		}
		ti++
		tc = at(text, ti)
	}
	return wmAbortAll
}

// class matches the bracket expression at p[pi] against tc: where it
// ends (its ']'), whether tc is in it, and whether the pattern is broken
// (no closing ']', a bad class name), which matches nothing.
func class(p string, pi int, tc byte) (end int, ok, abort bool) {
	pi++
	pc := at(p, pi)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		pi++
		pc = at(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return 0, false, true
		}
		var in, bad bool
		pi, pc, in, bad = classItem(p, pi, pc, prev, tc)
		if bad {
			return 0, false, true
		}
		matched = matched || in
		prev = pc
		pi++
		if pc = at(p, pi); pc == ']' {
			return pi, matched != negated, false
		}
	}
}

// classItem matches one item of a bracket expression, starting at p[pi]
// (pc), against tc: a quoted byte, a range, a [:name:] or a byte. It
// returns where the item ends, the byte the next range starts from (0
// after a range or a name), whether tc is in it, and whether it is
// broken.
func classItem(p string, pi int, pc, prev, tc byte) (end int, last byte, in, bad bool) {
	switch {
	case pc == '\\':
		pi++
		if pc = at(p, pi); pc == 0 {
			return 0, 0, false, true
		}
		return pi, pc, tc == pc, false
	case pc == '-' && prev != 0 && at(p, pi+1) != 0 && at(p, pi+1) != ']':
		pi++
		if pc = p[pi]; pc == '\\' {
			pi++
			if pc = at(p, pi); pc == 0 {
				return 0, 0, false, true
			}
		}
		return pi, 0, tc <= pc && tc >= prev, false
	case pc == '[' && at(p, pi+1) == ':':
		s := pi + 2
		e := s
		for e < len(p) && p[e] != ']' {
			e++
		}
		if e == len(p) {
			return 0, 0, false, true
		}
		if e-s-1 < 0 || p[e-1] != ':' {
			// No ":]": a plain '[', and the set goes on after it.
			return s - 2, '[', tc == '[', false
		}
		in, known := inClass(p[s:e-1], tc)
		return e, 0, in, !known
	}
	return pi, pc, tc == pc, false
}

// inClass reports whether c is in the [:name:] class, and whether the
// name is one.
func inClass(name string, c byte) (in, known bool) {
	lower, upper, digit := c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9'
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return lower, true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !lower && !upper && !digit, true
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r'), true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
