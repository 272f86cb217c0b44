package search

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// The index records, for every trigram (three bytes) of the case-folded
// text, the messages whose text contains it. A pattern is turned into a
// condition on the trigrams that every match must contain (an AND/OR
// tree, as in Russ Cox's "Regular Expression Matching with a Trigram
// Index"). Messages that meet the condition are then read and matched
// against the pattern itself. Folding case in the index lets one index
// serve both case-sensitive and case-insensitive searches.

// foldRune maps all the runes that (?i) treats as the same letter to one
// rune: the smallest in its case orbit ('k', 'K' and the Kelvin sign all
// become 'K').
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// fold appends the case-folded bytes of s to dst.
func fold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, c) // not UTF-8: keep the byte unchanged
		} else {
			dst = utf8.AppendRune(dst, foldRune(r))
		}
		i += n
	}
	return dst
}

// trigrams appends the trigrams of folded text b to dst.
func trigrams(dst []uint32, b []byte) []uint32 {
	for i := 0; i+3 <= len(b); i++ {
		dst = append(dst, uint32(b[i])<<16|uint32(b[i+1])<<8|uint32(b[i+2]))
	}
	return dst
}

// cond is a condition on a message's trigrams.
type cond struct {
	op   int // condAll, condTri, condAnd, condOr
	tri  uint32
	subs []*cond
}

const (
	condAll = iota // matches every message: nothing is known
	condTri
	condAnd
	condOr
)

var all = &cond{op: condAll}

func and(a, b *cond) *cond {
	switch {
	case a.op == condAll:
		return b
	case b.op == condAll:
		return a
	}
	return &cond{op: condAnd, subs: []*cond{a, b}}
}

func or(a, b *cond) *cond {
	if a.op == condAll || b.op == condAll {
		return all
	}
	return &cond{op: condOr, subs: []*cond{a, b}}
}

// literal returns the condition that the folded string s occurs.
func literal(s string) *cond {
	tris := trigrams(nil, fold(nil, s))
	slices.Sort(tris)
	c := all
	for _, t := range slices.Compact(tris) {
		c = and(c, &cond{op: condTri, tri: t})
	}
	return c
}

// anyOf returns the condition that at least one of the strings occurs.
func anyOf(set []string) *cond {
	if len(set) == 0 {
		return all
	}
	c := literal(set[0])
	for _, s := range set[1:] {
		c = or(c, literal(s))
	}
	return c
}

// maxExact bounds the set of exact strings tracked for part of a
// pattern (foo[ab]ar is {fooaar, foobar}). Beyond it, only trigrams are
// kept.
const maxExact = 16

// info is what analysis of a pattern node knows about its matches: each
// match satisfies c and, when exact is not nil, is one of the strings in
// exact.
type info struct {
	exact []string
	c     *cond
}

func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpLiteral:
		return info{exact: []string{string(re.Rune)}, c: all}
	case syntax.OpCharClass:
		return info{exact: classStrings(re.Rune), c: all}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return info{exact: []string{""}, c: all}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpConcat:
		return concat(re.Sub)
	case syntax.OpAlternate:
		return alternate(re.Sub)
	case syntax.OpPlus:
		s := analyze(re.Sub[0])
		return info{c: and(s.c, anyOf(s.exact))}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			s := analyze(re.Sub[0])
			return info{c: and(s.c, anyOf(s.exact))}
		}
	}
	return info{c: all} // stars, any character, …: nothing is required
}

func concat(subs []*syntax.Regexp) info {
	cur, c := []string{""}, all
	for _, sub := range subs {
		s := analyze(sub)
		c = and(c, s.c)
		switch {
		case cur != nil && s.exact != nil && len(cur)*len(s.exact) <= maxExact:
			var next []string
			for _, a := range cur {
				for _, b := range s.exact {
					next = append(next, a+b)
				}
			}
			cur = next
		default:
			c = and(c, anyOf(cur))
			cur = s.exact
		}
	}
	return info{exact: cur, c: c}
}

func alternate(subs []*syntax.Regexp) info {
	var exact []string
	known := true
	var withExact, alone *cond // the branches' conditions with and without their exact strings
	for i, sub := range subs {
		s := analyze(sub)
		known = known && s.exact != nil && len(exact)+len(s.exact) <= maxExact
		exact = append(exact, s.exact...)
		w := and(s.c, anyOf(s.exact))
		if i == 0 {
			withExact, alone = w, s.c
		} else {
			withExact, alone = or(withExact, w), or(alone, s.c)
		}
	}
	if known {
		// Keep the exact strings, because a concatenation around the
		// alternation can extend them into longer ones (ab(c|d)ef).
		return info{exact: exact, c: alone}
	}
	return info{c: withExact}
}

// classStrings returns the characters of a small class as strings, or
// nil for a large class.
func classStrings(ranges []rune) []string {
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] >= maxExact {
			return nil
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			out = append(out, string(r))
			if len(out) > maxExact {
				return nil
			}
		}
	}
	return out
}

// maxPatternBytes bounds the length of a pattern. A search is written
// by a person or a script, so a megabyte of pattern is a mistake.
const maxPatternBytes = 4096

// matcher is a compiled query.
type matcher struct {
	re   *regexp.Regexp
	cond *cond
}

func compile(q Query) (*matcher, error) {
	switch {
	case q.Pattern == "":
		return nil, &PatternError{"the pattern is empty: give the text to look for"}
	case len(q.Pattern) > maxPatternBytes:
		return nil, &PatternError{"the pattern is " + strconv.Itoa(len(q.Pattern)) + " bytes long; patterns are limited to " + strconv.Itoa(maxPatternBytes) + " bytes"}
	case !utf8.ValidString(q.Pattern):
		return nil, &PatternError{"the pattern is not valid UTF-8"}
	}
	for _, g := range [][2]string{{"--session", q.Session}, {"--agent", q.Agent}, {"--tool", q.Tool}, {"--file", q.File}, {"--label", q.Label}} {
		if err := CheckGlob(g[0], g[1]); err != nil {
			return nil, err
		}
	}
	expr := q.Pattern
	if !q.Regexp {
		expr = regexp.QuoteMeta(expr)
	}
	flags := syntax.Perl
	if q.IgnoreCase {
		flags |= syntax.FoldCase
	}
	parsed, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil, &PatternError{"cannot read the pattern: " + err.Error()}
	}
	if q.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, &PatternError{"cannot read the pattern: " + err.Error()}
	}
	in := analyze(parsed.Simplify())
	return &matcher{re: re, cond: and(in.c, anyOf(in.exact))}, nil
}
