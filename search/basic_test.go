package search

import (
	"regexp"
	"testing"
)

func TestBasic(t *testing.T) {
	cases := []struct{ in, match, nomatch string }{
		{`foo(bar)`, `a foo(bar) b`, `foobar`},
		{`a\(b\|c\)d`, `acd`, `a(b|c)d`},
		{`x+y`, `x+y`, `xxy`},
		{`x\+y`, `xxy`, `x+y`},
		{`*star`, `*star`, `star`},
		{`a*b`, `aaab`, `ac`},
		{`[\]`, `a\b`, `ab`},
		{`[]a]x`, `]x`, `bx`},
		{`\<word\>`, `a word b`, `swordfish`},
		{`[[:digit:]]\{3\}`, `x123`, `x12`},
		{`a{2}`, `a{2}`, `aa`},
	}
	for _, c := range cases {
		re, err := Basic(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		r, err := regexp.Compile(re)
		if err != nil {
			t.Fatalf("%s → %s: %v", c.in, re, err)
		}
		if !r.MatchString(c.match) || r.MatchString(c.nomatch) {
			t.Errorf("%s → %s: match %q=%v, %q=%v", c.in, re, c.match, r.MatchString(c.match), c.nomatch, r.MatchString(c.nomatch))
		}
	}
	if _, err := Basic(`\(a\)\1`); err == nil {
		t.Error("a back-reference was accepted")
	}
}
