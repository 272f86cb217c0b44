package report

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// htmlElements are the elements WriteHTML writes; nothing else may appear.
var htmlElements = map[string]bool{
	"html": true, "head": true, "body": true, "meta": true, "title": true, "style": true,
	"article": true, "header": true, "h1": true, "h2": true, "h3": true, "table": true, "tbody": true, "tr": true, "th": true, "td": true,
	"section": true, "blockquote": true, "div": true, "details": true, "summary": true, "p": true, "pre": true, "span": true,
}

// htmlAttributes are the attributes it writes.
var htmlAttributes = map[string]bool{"lang": true, "charset": true, "name": true, "content": true, "http-equiv": true,
	"class": true, "id": true, "data-turn": true, "data-tool": true, "open": true}

// checkInert parses a page as a browser would and fails on any element
// or attribute WriteHTML does not write itself: no script, no handler,
// no link, no frame, no image, no style but the page's own.
func checkInert(t *testing.T, page []byte, styles int) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(*html.Node)
	walk = func(node *html.Node) {
		if node.Type == html.ElementNode {
			if !htmlElements[node.Data] {
				t.Errorf("element <%s> in the page", node.Data)
			}
			if node.Data == "style" {
				n++
			}
			for _, a := range node.Attr {
				if !htmlAttributes[a.Key] || strings.Contains(strings.ToLower(a.Val), "javascript:") {
					t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, node.Data)
				}
			}
		}
		for c := node.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if n != styles {
		t.Errorf("%d <style> elements, want %d", n, styles)
	}
	return doc
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestHTMLOfAHostileTranscript: whatever the transcript holds is text on
// the page, whole, and never markup, in the page and in the fragment.
func TestHTMLOfAHostileTranscript(t *testing.T) {
	s := newStore(t)
	saveDoc(t, s, "h", hostile)
	sess := loadSession(t, s, "h", Options{})
	for _, o := range []HTMLOptions{{}, {Fragment: true}} {
		var buf bytes.Buffer
		if err := WriteHTML(context.Background(), &buf, sess, o); err != nil {
			t.Fatal(err)
		}
		styles := 1
		if o.Fragment {
			styles = 0
			if strings.Contains(buf.String(), "<html") || strings.Contains(buf.String(), "<head>") || strings.Contains(buf.String(), "<!DOCTYPE") {
				t.Errorf("the fragment has a page around it")
			}
		}
		doc := checkInert(t, buf.Bytes(), styles)
		text := textOf(doc)
		for _, want := range []string{"<script>window.pwned = 1</script>", `<img src=x onerror="window.pwned=2">`, "[click](javascript:window.pwned=3)",
			"</details></details>", strings.Repeat("x<", 40000), "<script>window.pwned=8</script>", "<b>m</b>"} {
			if !strings.Contains(text, want) {
				t.Errorf("fragment=%v: the page's text lacks %.60q", o.Fragment, want)
			}
		}
	}
}
