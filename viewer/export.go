package viewer

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"

	"github.com/git-snap/git-snap/report"
)

// export answers a session, or the range ?from=REV up to it, as
// git snap export writes it: Markdown as text, or one self-contained HTML
// page to download.
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	format := r.PathValue("format")
	if format != "markdown" && format != "html" {
		s.fail(w, r, &pageError{http.StatusNotFound, "no export as " + format + ": markdown or html"})
		return
	}
	sess, err := s.loadReport(r.Context(), r.PathValue("rev"), r.URL.Query().Get("from"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if format == "markdown" {
		err = report.WriteMarkdown(&buf, sess)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		err = report.WriteHTML(&buf, sess, report.HTMLOptions{})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", fileName(sess)+".html"))
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	_, _ = buf.WriteTo(w)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName names a download after its session and snapshot.
func fileName(sess *report.Session) string {
	return unsafeName.ReplaceAllString(fmt.Sprintf("%s-%d", sess.Name, sess.Seq), "_")
}

// reportCSS is the style of the timeline, package report's.
func (s *Server) reportCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write([]byte(report.CSS))
}
