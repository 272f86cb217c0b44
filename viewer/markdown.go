package viewer

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"github.com/git-snap/git-snap/report"
)

// markdown renders the model's answers, which are Markdown, for the
// timeline. goldmark is kept safe: raw HTML in the text is left out (its
// html.WithUnsafe is never set), and only web and mail links are links
// (see safeLinks).
type markdown struct{ md goldmark.Markdown }

func newMarkdown() markdown {
	return markdown{md: goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
		goldmark.WithRendererOptions(html.WithHardWraps(), renderer.WithNodeRenderers(util.Prioritized(safeLinks{}, 100))),
	)}
}

// turn renders the answers of a turn into their HTML, for
// report.WriteHTML (report.HTMLOptions.Turn). An answer that fails to
// render stays text.
func (m markdown) turn(t *report.Turn) {
	var buf bytes.Buffer
	for j := range t.Items {
		if t.Items[j].Kind != report.KindText {
			continue
		}
		buf.Reset()
		if err := m.md.Convert([]byte(t.Items[j].Text), &buf); err == nil {
			t.Items[j].HTML = template.HTML(buf.String()) // goldmark escaped it: see markdown
		}
	}
}

// safeLinks renders links only to the web or mail, and images as such
// links, their alt text the link's text: a path the model wrote
// (/src/main.go:12) would otherwise be a link into the viewer, and the
// page loads no image from the network (its Content-Security-Policy).
// What is not linked is shown as text.
type safeLinks struct{}

// linkable reports whether a destination may be a link of the page.
func linkable(dest []byte) bool {
	d := strings.ToLower(string(dest))
	return (strings.HasPrefix(d, "https://") || strings.HasPrefix(d, "http://") || strings.HasPrefix(d, "mailto:")) && !html.IsDangerousURL(dest)
}

func (safeLinks) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	open := func(w util.BufWriter, dest []byte, class, prefix string) {
		if linkable(dest) {
			_, _ = w.WriteString(`<a class="` + class + `" rel="noopener noreferrer" href="`)
			_, _ = w.Write(util.EscapeHTML(util.URLEscape(dest, true)))
			_, _ = w.WriteString(`">` + prefix)
			return
		}
		_, _ = w.WriteString(`<span class="` + class + `">` + prefix)
	}
	closeTag := func(w util.BufWriter, dest []byte) {
		if linkable(dest) {
			_, _ = w.WriteString("</a>")
		} else {
			_, _ = w.WriteString("</span>")
		}
	}
	r.Register(ast.KindLink, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		dest := n.(*ast.Link).Destination
		if entering {
			open(w, dest, "link", "")
		} else {
			closeTag(w, dest)
		}
		return ast.WalkContinue, nil
	})
	r.Register(ast.KindImage, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		dest := n.(*ast.Image).Destination
		if entering {
			open(w, dest, "image", "image: ")
		} else {
			closeTag(w, dest)
		}
		return ast.WalkContinue, nil
	})
	r.Register(ast.KindAutoLink, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		l := n.(*ast.AutoLink)
		dest := l.URL(source)
		if l.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(dest), []byte("mailto:")) {
			dest = append([]byte("mailto:"), dest...)
		}
		open(w, dest, "link", "")
		_, _ = w.Write(util.EscapeHTML(l.Label(source)))
		closeTag(w, dest)
		return ast.WalkContinue, nil
	})
}
