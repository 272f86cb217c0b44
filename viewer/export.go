package viewer

import (
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
	ctx := r.Context()
	sess, err := s.loadReport(ctx, r.PathValue("rev"), r.URL.Query().Get("from"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// Written as it is read, a turn at a time: a failure past the first
	// byte can only end the answer.
	if format == "markdown" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_ = report.WriteMarkdown(ctx, w, sess)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", fileName(sess)+".html"))
	_ = report.WriteHTML(ctx, w, sess, report.HTMLOptions{})
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
