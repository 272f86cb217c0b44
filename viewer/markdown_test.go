package viewer

import (
	"strings"
	"testing"

	"github.com/git-snap/git-snap/report"
)

// Answers are Markdown; what they render to holds no markup of the
// text's own and no link but to the web or mail.
func TestMarkdownIsSafe(t *testing.T) {
	md := newMarkdown()
	for in, want := range map[string]string{
		"**bold** and `code`":                       "<strong>bold</strong> and <code>code</code>",
		"<script>alert(1)</script>":                 "<!-- raw HTML omitted -->",
		"a <img src=x onerror=alert(1)> b":          "a <!-- raw HTML omitted --> b",
		"[x](javascript:alert(1))":                  `<span class="link">x</span>`,
		"[x](JAVASCRIPT:alert(1))":                  `<span class="link">x</span>`,
		"[x](data:text/html,<script>)":              `<span class="link">x</span>`,
		"[file](/src/main.go:12)":                   `<span class="link">file</span>`,
		"[site](https://example.com/a?b=1&c=\"d\")": `<a class="link" rel="noopener noreferrer" href="https://example.com/a?b=1&amp;c=%22d%22">site</a>`,
		"![alt](https://example.com/i.png)":         `<a class="image" rel="noopener noreferrer" href="https://example.com/i.png">image: alt</a>`,
		"![alt](data:image/png;base64,AAAA)":        `<span class="image">image: alt</span>`,
		"<javascript:alert(1)>":                     `<span class="link">javascript:alert(1)</span>`,
		"<https://example.com>":                     `<a class="link" rel="noopener noreferrer" href="https://example.com">https://example.com</a>`,
	} {
		turn := &report.Turn{Items: []report.Item{{Kind: report.KindText, Text: in}}}
		md.turn(turn)
		got := strings.TrimSpace(string(turn.Items[0].HTML))
		if !strings.Contains(got, want) {
			t.Errorf("%q renders as %q, want %q in it", in, got, want)
		}
		if problems := scriptIn(got); len(problems) != 0 {
			t.Errorf("%q renders with script: %v", in, problems)
		}
	}
}
