package report

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
)

// mdDoc is what a CommonMark parser finds in an export.
type mdDoc struct {
	h1, h2       []string
	h3           []string
	toolCalls    int      // <details class="tool-call…"> blocks
	opened       int      // <details …> blocks
	closed       int      // </details> blocks
	otherHTML    []string // HTML blocks that are not the document's own
	rawInline    []string // inline HTML anywhere
	deepHeadings int      // level 1-3 headings inside other blocks
	fences       []string // contents of the fenced code blocks at the top level
}

func parseMarkdown(t *testing.T, src []byte) mdDoc {
	t.Helper()
	return parseMarkdownWith(t, goldmark.New(goldmark.WithExtensions(extension.Table)), src)
}

// parseMarkdownWith is parseMarkdown with the parser md.
func parseMarkdownWith(t *testing.T, md goldmark.Markdown, src []byte) mdDoc {
	t.Helper()
	root := md.Parser().Parse(text.NewReader(src))
	var d mdDoc
	err := ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			title := string(n.Lines().Value(src))
			if n.Parent() != root && n.Level <= 3 {
				d.deepHeadings++
			}
			switch n.Level {
			case 1:
				d.h1 = append(d.h1, title)
			case 2:
				d.h2 = append(d.h2, title)
			case 3:
				d.h3 = append(d.h3, title)
			}
		case *ast.HTMLBlock:
			block := string(n.Lines().Value(src))
			switch {
			case strings.HasPrefix(block, `<details class="tool-call`):
				d.toolCalls++
				d.opened++
			case strings.HasPrefix(block, `<details class="`):
				d.opened++
			case strings.TrimSpace(block) == "</details>":
				d.closed++
			default:
				d.otherHTML = append(d.otherHTML, block)
			}
		case *ast.RawHTML:
			d.rawInline = append(d.rawInline, string(n.Segments.Value(src)))
		case *ast.FencedCodeBlock:
			if n.Parent() == root {
				d.fences = append(d.fences, string(n.Lines().Value(src)))
			}
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkStructure checks what every export must be, whatever its
// transcript holds: one title, a section per turn, details blocks that
// close, no HTML or headings of the transcript's own, and each tool's
// input and result whole in a fence of its own.
func checkStructure(t *testing.T, sess *Session, d mdDoc) {
	t.Helper()
	if len(d.h1) != 1 {
		t.Errorf("%d level-1 headings, want the title alone: %q", len(d.h1), d.h1)
	}
	if len(d.h2) != len(sess.Turns) {
		t.Errorf("%d level-2 headings for %d turns", len(d.h2), len(sess.Turns))
	}
	for _, h := range d.h3 {
		if h != "Files changed" {
			t.Errorf("level-3 heading %q is not the document's", h)
		}
	}
	if d.deepHeadings != 0 {
		t.Errorf("%d headings of the document's levels inside other blocks", d.deepHeadings)
	}
	if d.opened != d.closed {
		t.Errorf("%d <details> opened, %d closed", d.opened, d.closed)
	}
	if len(d.otherHTML) > 0 || len(d.rawInline) > 0 {
		t.Errorf("HTML from the transcript: blocks %q, inline %q", d.otherHTML, d.rawInline)
	}
	fences := map[string]int{}
	for _, f := range d.fences {
		fences[f]++
	}
	for _, turn := range sess.Turns {
		for _, it := range turn.Items {
			if it.Tool == nil {
				continue
			}
			for _, want := range []string{it.Tool.Input, it.Tool.Result} {
				if it.Kind == KindTool && want == it.Tool.Input || it.Tool.HasResult && want == it.Tool.Result {
					if fences[strings.TrimRight(want, "\n")+"\n"] == 0 {
						t.Errorf("%s: %.80q is not whole in a fence of its own", it.ID, want)
					}
				}
			}
		}
	}
}

// TestMarkdownOfRealSessionsParses exports every real session and parses
// it as CommonMark: a turn heading per prompt and a tool-call block per
// tool call the raw file holds, every tool's text intact in its fence.
func TestMarkdownOfRealSessionsParses(t *testing.T) {
	for _, rs := range realSessions {
		t.Run(filepath.Base(rs.file), func(t *testing.T) {
			ref := readReference(t, rs.agent, append([]string{rs.file}, rs.also...))
			s := newStore(t)
			importSession(t, s, rs.agent, rs.file, "s")
			sess := loadSession(t, s, "s", Options{})
			var buf bytes.Buffer
			if err := WriteMarkdown(context.Background(), &buf, sess); err != nil {
				t.Fatal(err)
			}
			d := parseMarkdown(t, buf.Bytes())
			checkStructure(t, sess, d)
			if d.toolCalls != ref.toolCalls {
				t.Errorf("%d tool-call blocks, the raw files hold %d tool calls", d.toolCalls, ref.toolCalls)
			}
			turns := 0
			for _, h := range d.h2 {
				if strings.HasPrefix(h, "Turn ") {
					turns++
				}
			}
			if turns != len(ref.prompts) {
				t.Errorf("%d turn headings, the raw files hold %d prompts", turns, len(ref.prompts))
			}
		})
	}
}

// TestMarkdownOfAHostileTranscript: text that tries markup, open fences,
// headings and closing tags stays text.
func TestMarkdownOfAHostileTranscript(t *testing.T) {
	s := newStore(t)
	saveDoc(t, s, "h", hostile)
	sess := loadSession(t, s, "h", Options{})
	var buf bytes.Buffer
	if err := WriteMarkdown(context.Background(), &buf, sess); err != nil {
		t.Fatal(err)
	}
	d := parseMarkdown(t, buf.Bytes())
	checkStructure(t, sess, d)
	if len(sess.Turns) != 2 || d.toolCalls != 1 {
		t.Errorf("%d turns and %d tool-call blocks, want 2 and 1", len(sess.Turns), d.toolCalls)
	}
	var html bytes.Buffer
	if err := goldmark.Convert(buf.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	rendered := strings.ReplaceAll(html.String(), "<!-- raw HTML omitted -->", "") // the document's own <details>
	for _, bad := range []string{"<script", "<img", "<iframe", "<svg", "<style", "<a href=\"javascript", "<!--"} {
		if strings.Contains(rendered, bad) {
			t.Errorf("the Markdown renders %s", bad)
		}
	}
}

// TestFencesNest: content holding fences of any length gets a longer one.
func TestFencesNest(t *testing.T) {
	for _, content := range []string{"plain", "```", "a ``` b\n````\n", "``````````", "~~~\n```go\n"} {
		src := fenced("text", content) + "\n\nafter\n"
		d := parseMarkdown(t, []byte(src))
		if len(d.fences) != 1 || d.fences[0] != strings.TrimRight(content, "\n")+"\n" {
			t.Errorf("%q: fences %q", content, d.fences)
		}
	}
}

// TestMarkdownLinksToScriptsAreText: Markdown exports kept
// [x](javascript:…) links as they were, and a renderer that passes links
// through ran them on a click. Any scheme but http, https and mailto,
// however spelled, is now text; other links stay links.
func TestMarkdownLinksToScriptsAreText(t *testing.T) {
	s := newStore(t)
	text := "[a](javascript:alert(1)) [b](JaVa\tScRiPt:alert(2)) [c](jav&#x61;script:alert(3)) [d](data:text/html,x) [e](vbscript:x) [f](<javascript:alert(4)>)\n[ref]: javascript:alert(5)\nuse [ref] and [ok](https://example.com) and [rel](./x.go) and [mail](mailto:a@b.c)"
	doc, err := json.Marshal(map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "look"},
		map[string]any{"role": "assistant", "content": text},
	}})
	if err != nil {
		t.Fatal(err)
	}
	saveDoc(t, s, "l", string(doc))
	var buf bytes.Buffer
	if err := WriteMarkdown(context.Background(), &buf, loadSession(t, s, "l", Options{})); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	md := goldmark.New(goldmark.WithRendererOptions(gmhtml.WithUnsafe())) // a renderer that keeps every link
	if err := md.Convert(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	rendered := strings.ToLower(out.String())
	for _, bad := range []string{`href="javascript`, `href="java`, `href="data:`, `href="vbscript`, `href="jav&`} {
		if strings.Contains(rendered, bad) {
			t.Errorf("the Markdown renders a link %s…\n%s", bad, out.String())
		}
	}
	for _, good := range []string{`href="https://example.com"`, `href="./x.go"`, `href="mailto:a@b.c"`} {
		if !strings.Contains(rendered, good) {
			t.Errorf("the link %s is gone\n%s", good, out.String())
		}
	}
}
