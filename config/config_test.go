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
