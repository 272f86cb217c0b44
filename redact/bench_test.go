package redact

import (
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
)

// BenchmarkDocument is the redaction a hook call pays on the longest
// real transcript (3 MB of Claude Code records): go test -bench Document ./redact
func BenchmarkDocument(b *testing.B) {
	tr, err := testdocs.Longest()
	if err != nil {
		b.Fatal(err)
	}
	doc, err := tr.Document(len(tr.Lines))
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		r.Document(doc)
	}
}
