package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKeywordIndexWakesWhatRulesWake checks the one-pass keyword index
// against each rule's own check (Rule.wakes), on strings made of
// keywords, their pieces in either case, and letters that lower-case to
// ASCII ones (the Kelvin sign to k, the Turkish İ to i and a dot).
func TestKeywordIndexWakesWhatRulesWake(t *testing.T) {
	rules := BuiltinRules()
	ix, ok := newKeywordIndex(rules)
	if !ok {
		t.Fatal("the built-in rules do not fit one index")
	}
	var parts []string
	for _, r := range rules {
		for _, k := range r.Keywords {
			parts = append(parts, k, strings.ToUpper(k), k[:len(k)/2], k[len(k)/2:], strings.ToUpper(k[:1])+k[1:])
		}
	}
	parts = append(parts, "\u212a", "\u212aey", "to\u212aen", "İ", "ß", "é", " ", "=", "\"", "x", "0", "\u017fecret")
	rnd := rand.New(rand.NewPCG(7, 8))
	for range 200_000 {
		var b strings.Builder
		for range rnd.IntN(6) + 1 {
			b.WriteString(parts[rnd.IntN(len(parts))])
		}
		s := b.String()
		set := ix.wakeSet(s)
		for i, r := range rules {
			lower := ""
			if got, want := ix.wakes(i, set), r.wakes(s, &lower); got != want {
				t.Fatalf("%+q: rule %s wakes %v by the index, %v by its keywords", s, r.Name, got, want)
			}
		}
	}
}

// TestKeywordIndexLeavesRulesWithoutKeywordsAwake checks that a rule
// without keywords (a configured one) always runs, and that more rules
// with keywords than a wake set holds fall back to asking each rule.
func TestKeywordIndexLeavesRulesWithoutKeywordsAwake(t *testing.T) {
	r, err := New(Config{Rules: map[string]string{"internal-token": `itk_[0-9a-f]{16}`}})
	if err != nil {
		t.Fatal(err)
	}
	out, found := r.String("the token is itk_0123456789abcdef, keep it safe")
	if len(found) != 1 || strings.Contains(out, "itk_0123") {
		t.Errorf("a configured rule without keywords did not run: %q %v", out, found)
	}
	many := make([]Rule, 65)
	for i := range many {
		many[i] = Rule{Name: "r", Keywords: []string{"kw"}}
	}
	if _, ok := newKeywordIndex(many); ok {
		t.Error("65 rules with keywords fit a 64-bit wake set")
	}
}
