package snapshot

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHunkHeadersAsGitWritesThem compares the hunk headers of
// UnifiedDiff with git diff's on the same pairs of texts.
func TestHunkHeadersAsGitWritesThem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	for _, tc := range []struct{ a, b string }{
		{"old\n", "new\n"},
		{"", "one\n"},
		{"one\n", ""},
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "a\nb\nc\nd\ne\nf\ng\nh\ni\nJ\nk\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n"},
	} {
		fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if err := os.WriteFile(fa, []byte(tc.a), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fb, []byte(tc.b), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command("git", "diff", "--no-index", "--no-color", fa, fb).Output() // exit 1: they differ
		want := hunkHeaders(string(out))
		got := hunkHeaders(UnifiedDiff("a", "b", tc.a, tc.b))
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q → %q: hunks %q, git writes %q", tc.a, tc.b, got, want)
		}
	}
}

func hunkHeaders(patch string) []string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		if rest, ok := strings.CutPrefix(l, "@@ "); ok {
			ranges, _, _ := strings.Cut(rest, " @@") // git may append the hunk's function context
			out = append(out, ranges)
		}
	}
	return out
}
