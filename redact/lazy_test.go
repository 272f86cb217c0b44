package redact

import (
	"fmt"
	"testing"
)

// TestConfiguredRulesCompileOnFirstUse: every command compiled every
// team rule when it opened the repository (20,000 rules cost a log
// 24.7 s), though only writes redact. Rules are parsed when the
// redactor is made, so a bad one is still an error of every command, and
// compiled the first time one is run.
func TestConfiguredRulesCompileOnFirstUse(t *testing.T) {
	rules := map[string]string{}
	for i := range 2000 {
		rules[fmt.Sprint("r", i)] = fmt.Sprintf(`\bTKT%d-[0-9a-f]{32}\b`, i)
	}
	before := compiled.Load()
	r, err := New(Config{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	if n := compiled.Load() - before; n != 0 {
		t.Errorf("making the redactor compiled %d rules, want none", n)
	}
	out, found := r.String("ticket TKT7-0123456789abcdef0123456789abcdef here")
	if len(found) != 1 || found[0].Rule != "r7" || out != "ticket [REDACTED:r7] here" {
		t.Errorf("redacted %q, found %v", out, found)
	}
	if _, err := New(Config{Rules: map[string]string{"bad": `(unclosed`}}); err == nil {
		t.Error("a rule that does not parse was accepted")
	}
}
