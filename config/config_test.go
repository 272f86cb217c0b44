package config

import (
	"strings"
	"testing"
)

// FuzzConfig: any file either reads into a valid configuration or gives
// an error; nothing panics.
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

// Prices from two files add up, the later file winning per model; a
// negative price is refused.
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
	if err := Parse([]byte("prices:\n  c: {output: -1}\n"), &cfg); err == nil || !strings.Contains(err.Error(), "prices.c") {
		t.Errorf("negative price: %v", err)
	}
}
