package viewer

import (
	"net/http"
)

// contentSecurityPolicy lets a page run only the viewer's own script and
// style, served from /static by the binary: a transcript that smuggles a
// <script>, an inline handler or a javascript: link past the escaping
// still cannot run, and nothing is loaded from the network.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// guard refuses what a page on the local machine must never be asked by
// another site: a request naming a host other than the one the viewer
// listens on (DNS rebinding: evil.example resolving to 127.0.0.1), a
// request from another origin (package loopback), and any method that
// is not a read. It sets the security headers on every answer.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if status, msg := s.local.Check(r, "git-snap view"); status != 0 {
			http.Error(w, msg, status)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "git-snap view reads only: "+r.Method+" is not allowed", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}
