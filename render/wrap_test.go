package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapMarkdown(t *testing.T) {
	long := strings.Repeat("word ", 30)
	in := strings.Join([]string{
		"# A heading that is long enough to pass the width of this small test terminal",
		long,
		"- " + long,
		"12. " + long,
		"> " + long,
		"```go",
		"fmt.Println(\"" + long + "\")",
		"```",
		"| a table row that is long enough to pass the width of this terminal | b |",
		"    indented code that is long enough to pass the width of this terminal",
		"see https://example.com/" + strings.Repeat("x", 60),
	}, "\n")
	got := WrapMarkdown(in, 40)
	lines := strings.Split(got, "\n")
	kept := map[string]bool{}
	for _, l := range strings.Split(in, "\n") {
		kept[l] = true
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 40 && !kept[l] && !strings.Contains(l, "https://") {
			t.Errorf("line over 40 columns: %q", l)
		}
	}
	for _, want := range []string{
		"# A heading that is long enough to pass the width of this small test terminal",
		"fmt.Println(\"" + long + "\")",
		"| a table row that is long enough to pass the width of this terminal | b |",
		"    indented code that is long enough to pass the width of this terminal",
		"https://example.com/" + strings.Repeat("x", 60),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%q was not kept whole in\n%s", want, got)
		}
	}
	// Continuations: under the list item's text, with the quote marker.
	for _, prefix := range []string{"\n  word", "\n    word", "\n> word"} {
		if !strings.Contains(got, prefix) {
			t.Errorf("no continuation %q in\n%s", prefix, got)
		}
	}
	words := func(s string) string { // the words, less the quote markers repeated
		return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n> ", "\n")), " ")
	}
	if words(got) != words(in) {
		t.Errorf("wrapping changed the words:\n%s", got)
	}
	if WrapMarkdown(in, 0) != in {
		t.Errorf("width 0 changed the text")
	}
}
