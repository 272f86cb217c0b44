package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
)

// TestLeaksAreRedacted redacts each file of secrets developers keep on
// their machines (testdocs.Leaks), as it is and inside a transcript
// line that did not parse, kept raw with its escapes: every secret is
// gone, what is not a secret stays, and the rules named found them.
// docs/security.md's table compares these with gitleaks.
func TestLeaksAreRedacted(t *testing.T) {
	r, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	leaks, err := testdocs.Leaks()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		escaped, _ := json.Marshal(l.Text)
		line := `{"type":"tool_result","content":` + string(escaped) + `,}` // a trailing comma: kept raw
		for _, in := range []string{l.Text, line} {
			out, found := r.String(in)
			if piece := testdocs.Leaked(out, leaks); piece != "" {
				t.Errorf("%s: %q of a secret kept:\n%s", l.File, piece, out)
			}
			for _, k := range l.Kept {
				if !strings.Contains(out, k) && !strings.Contains(out, jsonText(k)) {
					t.Errorf("%s: %q lost:\n%s", l.File, k, out)
				}
			}
			var rules []string
			for _, f := range found {
				if !slices.Contains(rules, f.Rule) {
					rules = append(rules, f.Rule)
				}
			}
			slices.Sort(rules)
			if want := slices.Sorted(slices.Values(l.Rules)); !slices.Equal(rules, want) {
				t.Errorf("%s: found by %v, want %v", l.File, rules, want)
			}
		}
	}
}

// jsonText is s as it reads inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
