package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/redact"
)

// FuzzConfig checks that any file either parses into a valid
// configuration or returns an error, and never panics.
func FuzzConfig(f *testing.F) {
	f.Add([]byte(Sample))
	f.Add([]byte("refs:\n  prefix: refs/heads/snap/\n"))
	f.Add([]byte("limits:\n  max_document_bytes: -1\n"))
	f.Add([]byte("limts: 1\n"))
	f.Add([]byte("redact:\n  rules:\n    x: '('\n"))
	f.Add([]byte("{{{"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg Config
		if err := Parse(data, &cfg); err != nil {
			return
		}
		if p := cfg.Refs.Prefix; p != "" && (!strings.HasPrefix(p, "refs/") || !strings.HasSuffix(p, "/")) {
			t.Fatalf("accepted ref prefix %q", p)
		}
		if cfg.Limits.MaxDocumentBytes < 0 || cfg.Limits.MaxDepth < 0 {
			t.Fatalf("accepted negative limits %+v", cfg.Limits)
		}
	})
}

// Prices from two files are combined, with the later file winning for
// each model, and a negative price is refused.
func TestPrices(t *testing.T) {
	var cfg Config
	if err := Parse([]byte("prices:\n  a: {input: 1, output: 2}\n  b: {input: 3}\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	if err := Parse([]byte("prices:\n  b: {input: 4, cache_read: 0.4}\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Prices["a"] != (Price{Input: 1, Output: 2}) || cfg.Prices["b"] != (Price{Input: 4, CacheRead: 0.4}) {
		t.Errorf("prices %+v", cfg.Prices)
	}
	for _, bad := range []string{"-1", "1e30", ".nan", ".inf"} {
		if err := Parse([]byte("prices:\n  c: {output: "+bad+"}\n"), &cfg); err == nil || !strings.Contains(err.Error(), "prices.c") {
			t.Errorf("price %s: %v", bad, err)
		}
	}
}

// A committed file can be written by anyone who can push, so it may
// tighten the user's security settings but never relax them.
func TestTeamFileOnlyTightens(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src := Sources{
		User: write("user.yaml", "redact:\n  rules:\n    mine: 'MINE-[0-9]+'\nlimits:\n  max_depth: 500\n"),
		Team: write("team.yaml", "session: team\nredact:\n  disabled: true\n  allow: ['.']\n  rules:\n    mine: 'x^'\n    ticket: 'TKT-[0-9]+'\n"+
			"limits:\n  max_depth: 900\n  max_value_bytes: 1024\n  max_document_bytes: 1099511627776\n"),
	}
	cfg, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Redact.Disabled || len(cfg.Redact.Allow) != 0 || cfg.Redact.Rules["mine"] != "MINE-[0-9]+" || cfg.Redact.Rules["ticket"] != "TKT-[0-9]+" {
		t.Errorf("redact %+v", cfg.Redact)
	}
	if cfg.Limits.MaxDepth != 500 || cfg.Limits.MaxValueBytes != 1024 || cfg.Limits.MaxDocumentBytes != DefaultMaxDocumentBytes {
		t.Errorf("limits %+v", cfg.Limits)
	}
	if cfg.Session != "team" {
		t.Errorf("session %q: other settings still come from the team", cfg.Session)
	}
	all := strings.Join(cfg.Warnings, "\n")
	for _, w := range []string{"redact.disabled", "redact.allow", "rule mine", "limits.max_depth", "limits.max_document_bytes"} {
		if !strings.Contains(all, src.Team+": ") || !strings.Contains(all, w) {
			t.Errorf("no warning naming %s and the file in:\n%s", w, all)
		}
	}
	// The user's own file and the clone's file can relax them.
	src.Clone = write("clone.yaml", "redact:\n  disabled: true\n  allow: ['^AKIAIOSFODNN7EXAMPLE$']\nlimits:\n  max_depth: 900\n")
	cfg, err = Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Redact.Disabled || len(cfg.Redact.Allow) != 1 || cfg.Limits.MaxDepth != 900 {
		t.Errorf("clone file did not relax: %+v %+v", cfg.Redact, cfg.Limits)
	}
	cfg, err = Load(Sources{User: write("u2.yaml", "redact:\n  disabled: true\n"), Team: src.Team})
	if err != nil || !cfg.Redact.Disabled {
		t.Errorf("the user's own disabled: %v %+v", err, cfg.Redact)
	}
}

// TestManyTeamRules checks that a team file with thousands of rules,
// which is parsed key by key (yaml.v3's duplicate check is pairwise, so
// 20,000 rules used to add seconds to every command), gives the same
// result as the decoder: every rule is added to the rules already read,
// the settings after the rules are read, a rule named twice is an error
// naming its line, and other errors still report their lines.
func TestManyTeamRules(t *testing.T) {
	var b strings.Builder
	b.WriteString("redact:\n  rules:\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "    r%d: '\\bTKT%d-[0-9a-f]{32}\\b'\n", i, i)
	}
	b.WriteString("    multi: >-\n      \\bMULTI\n      [0-9]+\n  allow: ['^x$']\nlimits:\n  max_depth: 7\n")
	cfg := Config{Redact: redact.Config{Rules: map[string]string{"user": "u"}}}
	if err := Parse([]byte(b.String()), &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Redact.Rules) != 1002 || cfg.Redact.Rules["user"] != "u" || cfg.Redact.Rules["r999"] != `\bTKT999-[0-9a-f]{32}\b` || cfg.Redact.Rules["multi"] != `\bMULTI [0-9]+` {
		t.Errorf("%d rules; user %q, r999 %q, multi %q", len(cfg.Redact.Rules), cfg.Redact.Rules["user"], cfg.Redact.Rules["r999"], cfg.Redact.Rules["multi"])
	}
	if cfg.Limits.MaxDepth != 7 || len(cfg.Redact.Allow) != 1 {
		t.Errorf("settings after the rules: max_depth %d, allow %v", cfg.Limits.MaxDepth, cfg.Redact.Allow)
	}
	dup := strings.Replace(b.String(), "    r5:", "    r4:", 1)
	if err := Parse([]byte(dup), &Config{}); err == nil || !strings.Contains(err.Error(), "line 8") {
		t.Errorf("a rule named twice: %v, want an error at line 8", err)
	}
	unknown := b.String() + "nosuch: 1\n"
	if err := Parse([]byte(unknown), &Config{}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("line %d", strings.Count(b.String(), "\n")+1)) {
		t.Errorf("an unknown setting after the rules: %v", err)
	}
}
