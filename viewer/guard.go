package viewer

import (
	"net"
	"net/http"
	"net/url"
	"strings"
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
// request from another origin, and any method that is not a read. It
// sets the security headers on every answer.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		switch {
		case !s.allowedHost(r.Host):
			http.Error(w, "git-snap view: refused: the Host header names "+safeText(r.Host)+", not this viewer's address", http.StatusMisdirectedRequest)
		case !s.allowedOrigin(r):
			http.Error(w, "git-snap view: refused: a request from another origin", http.StatusForbidden)
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "git-snap view reads only: "+r.Method+" is not allowed", http.StatusMethodNotAllowed)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// allowedHost accepts the viewer's own port reached by an IP address or
// by localhost. A name other than localhost is refused: that is how DNS
// rebinding reaches a local server, since the attacker's page keeps its
// own name. An IP address is accepted only when it is the one listened
// on, a loopback address when listening on loopback, or any address when
// listening on all (--listen 0.0.0.0:PORT).
func (s *Server) allowedHost(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: a browser leaves out http's own, 80 (RFC 9110 §7.2).
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), "80"
		if strings.Contains(hostport, ":") && !strings.HasPrefix(hostport, "[") || host == "" {
			return false
		}
	}
	if port != s.port {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return s.listenIP == nil || s.listenIP.IsLoopback() || s.listenIP.IsUnspecified()
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return false
	case s.listenIP == nil || s.listenIP.IsUnspecified():
		return true
	case s.listenIP.IsLoopback():
		return ip.IsLoopback()
	}
	return ip.Equal(s.listenIP)
}

// allowedOrigin refuses a request another site's page sent: a browser
// names the page's origin (Origin) or says the request crosses sites
// (Sec-Fetch-Site). Requests without either come from no page (curl, a
// typed address) and are read-only anyway.
func (s *Server) allowedOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Path != "" {
		return false
	}
	return u.Host == r.Host && s.allowedHost(u.Host)
}

// safeText keeps an echoed header printable and short.
func safeText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return "\"" + s + "\""
}
