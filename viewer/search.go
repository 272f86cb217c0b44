package viewer

import (
	"net/http"
)

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, &pageError{http.StatusNotFound, "search is not available yet"})
}
