package redact

import (
	"strings"
	"unicode/utf8"
)

// keywordIndex finds which rules a string wakes (see Rule.wakes) in one
// pass over the string. Asking each rule separately costs a search per
// keyword and a lower-cased copy of the string; over a real transcript
// those keyword checks alone cost as much as running every pattern. The
// index is exact: a rule wakes when one of its keywords is in the
// string, or, for a Fold rule, in strings.ToLower of the string.
type keywordIndex struct {
	// exact and fold list the keywords by their first byte: those of
	// rules that match case, and the lower-cased ones of Fold rules.
	exact, fold [256][]keyword
	// exactPairs and foldPairs hold, as bits, the first two bytes of
	// the keywords of each table. Most positions in a string start no
	// keyword, and checking two bytes is enough to rule them out.
	exactPairs, foldPairs pairSet
	// rules maps each rule with keywords to its bit in a wake set; -1
	// for a rule without keywords, which always wakes.
	rules []int
}

// pairSet is a set of two-byte strings.
type pairSet [1 << 16 / 64]uint64

func (p *pairSet) add(a, b byte) { k := uint(a)<<8 | uint(b); p[k/64] |= 1 << (k % 64) }

func (p *pairSet) has(a, b byte) bool { k := uint(a)<<8 | uint(b); return p[k/64]&(1<<(k%64)) != 0 }

// keyword is one keyword and the set of rules it wakes.
type keyword struct {
	word string
	bits uint64
}

// newKeywordIndex indexes the rules' keywords. ok is false when more
// rules have keywords than a wake set can hold; the caller then checks
// each rule separately.
func newKeywordIndex(rules []Rule) (ix *keywordIndex, ok bool) {
	ix = &keywordIndex{rules: make([]int, len(rules))}
	bit := 0
	for i, rule := range rules {
		ix.rules[i] = -1
		if len(rule.Keywords) == 0 {
			continue
		}
		if bit == 64 {
			return nil, false
		}
		ix.rules[i] = bit
		for _, w := range rule.Keywords {
			if rule.Fold {
				w = strings.ToLower(w)
			}
			if len(w) < 2 {
				return nil, false // no pair to look for: asked the slow way
			}
			table, pairs := &ix.exact, &ix.exactPairs
			if rule.Fold {
				table, pairs = &ix.fold, &ix.foldPairs
			}
			add(table, keyword{word: w, bits: 1 << bit})
			pairs.add(w[0], w[1])
		}
		bit++
	}
	return ix, true
}

// add adds a keyword, merging it with the same keyword of another rule.
func add(table *[256][]keyword, k keyword) {
	list := table[k.word[0]]
	for i := range list {
		if list[i].word == k.word {
			list[i].bits |= k.bits
			return
		}
	}
	table[k.word[0]] = append(list, k)
}

// wakeSet returns the set of rules (by their bits) whose keywords occur
// in s.
func (ix *keywordIndex) wakeSet(s string) uint64 {
	var set uint64
	ascii := len(s) == 0 || s[len(s)-1] < utf8.RuneSelf
	for i := 0; i+1 < len(s); i++ {
		c, d := s[i], s[i+1]
		if c >= utf8.RuneSelf {
			ascii = false
		}
		if ix.exactPairs.has(c, d) {
			for _, k := range ix.exact[c] {
				if set&k.bits != k.bits && strings.HasPrefix(s[i:], k.word) {
					set |= k.bits
				}
			}
		}
		if ascii && ix.foldPairs.has(lowerASCII(c), lowerASCII(d)) {
			set |= ix.folded(s, i, lowerASCII(c), set)
		}
	}
	if !ascii {
		// strings.ToLower maps some other letters to ASCII ones (the
		// Kelvin sign to k), so search the lower-cased copy instead.
		lower := strings.ToLower(s)
		for i := 0; i+1 < len(lower); i++ {
			if ix.foldPairs.has(lower[i], lower[i+1]) {
				set |= ix.folded(lower, i, lower[i], set)
			}
		}
	}
	return set
}

// folded returns the set of Fold keywords that start at s[i] (whose
// lower-cased byte is c), comparing ASCII case-insensitively, and that
// are not in set yet.
func (ix *keywordIndex) folded(s string, i int, c byte, set uint64) uint64 {
	var out uint64
	for _, k := range ix.fold[c] {
		if set&k.bits != k.bits && hasFoldedPrefix(s[i:], k.word) {
			out |= k.bits
		}
	}
	return out
}

// hasFoldedPrefix reports whether s starts with word (lower case)
// once its ASCII letters are lower-cased.
func hasFoldedPrefix(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for j := 0; j < len(word); j++ {
		if lowerASCII(s[j]) != word[j] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// wakes reports whether rule i wakes in a string whose wake set is set.
func (ix *keywordIndex) wakes(i int, set uint64) bool {
	bit := ix.rules[i]
	return bit < 0 || set&(1<<bit) != 0
}
