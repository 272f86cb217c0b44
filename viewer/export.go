package viewer

import (
	"net/http"
)

// export answers a session as Markdown or as a self-contained HTML page,
// as git snap export writes them.
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, &pageError{http.StatusNotFound, "export is not available yet"})
}

// reportCSS is the style of the timeline, package report's.
func (s *Server) reportCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
}
