package viewer

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/git-snap/git-snap/prices"
)

// page is what the layout shows around a page's own content.
type page struct {
	Title string
	Nav   string // the section named in the navigation
	Query string // the find box's text
	Data  any
}

// pageNames are the pages, each templates/<name>.html defining
// "content" inside templates/layout.html.
var pageNames = []string{"sessions", "timeline", "snapshot", "files", "search", "error", "blame"}

func parsePages() (map[string]*template.Template, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("viewer templates: %w", err)
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("viewer template %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// render writes a whole page, built in memory first so that a template
// failure becomes an error page rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	s.renderStatus(w, r, http.StatusOK, name, p)
}

// renderStatus is render with a status other than 200: a form the user
// must correct is a 400 page that still shows the form.
func (s *Server) renderStatus(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	var buf bytes.Buffer
	if err := s.pages[name].Execute(&buf, p); err != nil {
		s.fail(w, r, fmt.Errorf("page %s: %w", name, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// renderBody writes a page straight to w, for the error page (whose
// status is already sent) and for long pages that the browser shows as
// they arrive.
func (s *Server) renderBody(w io.Writer, _ *http.Request, name string, p page) {
	if hw, ok := w.(http.ResponseWriter); ok && hw.Header().Get("Content-Type") == "" {
		hw.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	_ = s.pages[name].Execute(w, p)
}

var funcs = template.FuncMap{
	"ago":     ago,
	"stamp":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"num":     num,
	"cost":    costText,
	"short":   short,
	"path":    url.PathEscape,
	"query":   url.QueryEscape,
	"add":     func(a, b int) int { return a + b },
	"shortID": func(id fmt.Stringer) string { return id.String()[:10] },
	"int64":   func(n int) int64 { return int64(n) },
}

// ago says how long before now t was, as a person says it: "2h ago".
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "in the future"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	case d < 2*365*24*time.Hour:
		return fmt.Sprintf("%dmo ago", int(d/(30*24*time.Hour)))
	}
	return fmt.Sprintf("%dy ago", int(d/(365*24*time.Hour)))
}

// num writes a count with thousands apart: 1,234,567.
func num(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// costText is an estimate in dollars; a model with no price is said, not
// guessed.
func costText(c *prices.Cost) string {
	if c == nil {
		return ""
	}
	usd := prices.MicrosText(c.Micros)
	if c.Micros > 0 && c.Micros < 5_000 {
		usd = "<$0.01"
	}
	if len(c.Unknown) > 0 {
		usd += "+?"
	}
	return usd
}

// short cuts a text to n runes on one line.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
