// Package loopback keeps an HTTP server git-snap starts on this machine
// (the viewer, replay --serve) to the clients it is for. Any web page
// the user opens can send requests to 127.0.0.1 too: through DNS
// rebinding (a name of the page's own site that then resolves to
// 127.0.0.1) it reads the answers, and without it any page can still
// post a form. So a request must name the server by its address or by
// localhost (Host) and come from no other site's page (Origin,
// Sec-Fetch-Site); and a server listening where other machines reach it
// says so.
package loopback

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Guard checks that a request is for the server listening at one
// address.
type Guard struct {
	port string
	ip   net.IP // nil when the address names no IP
}

// NewGuard is the guard of a server listening at addr (host:port, the
// port chosen).
func NewGuard(addr string) (Guard, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return Guard{}, fmt.Errorf("listen address %q: %w", addr, err)
	}
	return Guard{port: port, ip: net.ParseIP(host)}, nil
}

// Check refuses a request for another host or from another site's page:
// it gives the status and the message to answer with, or 0 when the
// request may be served. The message names the server (who) and echoes
// nothing of the request but its Host, made printable and short.
func (g Guard) Check(r *http.Request, who string) (int, string) {
	switch {
	case !g.Host(r.Host):
		return http.StatusMisdirectedRequest, who + ": refused: the Host header names " + printable(r.Host) + ", not this server's address"
	case !g.Origin(r):
		return http.StatusForbidden, who + ": refused: a request from another origin"
	}
	return 0, ""
}

// Host accepts the server's own port reached by an IP address or by
// localhost. A name other than localhost is refused: that is how DNS
// rebinding reaches a local server, since the attacker's page keeps its
// own name. An IP address is accepted only when it is the one listened
// on, a loopback address when listening on loopback, or any address when
// listening on all (0.0.0.0:PORT).
func (g Guard) Host(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: a browser leaves out http's own, 80 (RFC 9110 §7.2).
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), "80"
		if strings.Contains(hostport, ":") && !strings.HasPrefix(hostport, "[") || host == "" {
			return false
		}
	}
	if port != g.port {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return g.ip == nil || g.ip.IsLoopback() || g.ip.IsUnspecified()
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return false
	case g.ip == nil || g.ip.IsUnspecified():
		return true
	case g.ip.IsLoopback():
		return ip.IsLoopback()
	}
	return ip.Equal(g.ip)
}

// Origin refuses a request another site's page sent: a browser names
// the page's origin (Origin) or says the request crosses sites
// (Sec-Fetch-Site). Requests without either come from no page (curl, an
// agent, a typed address).
func (g Guard) Origin(r *http.Request) bool {
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
	return u.Host == r.Host && g.Host(u.Host)
}

// Exposed reports whether a server listening at addr (host:port) can be
// reached from other machines: its host is not a loopback address.
func Exposed(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// printable keeps an echoed header printable and short.
func printable(s string) string {
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
