//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/git-snap/git-snap/internal/testdocs"
)

// TestOwnText checks that a session made by ownText is still a
// transcript record for record (valid JSON, the same keys, the same
// sizes), shares no text with the real one or another made so, and
// compresses as the real one does.
func TestOwnText(t *testing.T) {
	longest, err := testdocs.Longest()
	if err != nil {
		t.Fatal(err)
	}
	a, b := ownText(longest.Lines, 1), ownText(longest.Lines, 2)
	for i, l := range longest.Lines {
		var orig, got map[string]any
		if err := json.Unmarshal(l, &orig); err != nil {
			continue // not a record in the real one either
		}
		if err := json.Unmarshal(a[i], &got); err != nil {
			t.Fatalf("line %d is no longer JSON: %v\n%s", i, err, a[i])
		}
		if len(a[i]) != len(l) || !sameKeys(orig, got) {
			t.Fatalf("line %d changed shape:\n%s\n%s", i, l, a[i])
		}
	}
	long := func(lines [][]byte) []byte {
		for _, l := range lines {
			if bytes.Contains(l, []byte(`"type":"assistant"`)) && len(l) > 2000 {
				return l
			}
		}
		return nil
	}
	if x, y, z := long(longest.Lines), long(a), long(b); x == nil || bytes.Equal(x, y) || bytes.Equal(y, z) {
		t.Fatal("the sessions share their text")
	}
	orig, _ := gzipLevel(longest.Lines, 9)
	own, _ := gzipLevel(a, 9)
	if r := float64(own) / float64(orig); r < 0.97 || r > 1.03 {
		t.Errorf("gzip -9 of the session made is %.3f× the real one's", r)
	}
}

// sameKeys says whether two JSON values have the same keys throughout.
func sameKeys(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameKeys(v, w) {
				return false
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameKeys(x[i], y[i]) {
				return false
			}
		}
	}
	return true
}
