package loopback

import "testing"

// TestHostWithoutPortIsPort80: a browser leaves http's port 80 out of
// Host, and a server (the viewer) listening on port 80 answered 421 to
// Host: 127.0.0.1. A Host without a port names port 80: accepted there,
// refused on any other port, and names still refused.
func TestHostWithoutPortIsPort80(t *testing.T) {
	on80, _ := NewGuard("127.0.0.1:80")
	other, _ := NewGuard("127.0.0.1:7414")
	for _, c := range []struct {
		g    Guard
		host string
		ok   bool
	}{
		{on80, "127.0.0.1", true},
		{on80, "localhost", true},
		{on80, "127.0.0.1:80", true},
		{on80, "evil.example", false},
		{on80, "10.0.0.1", false},
		{on80, "[::1]", true}, // loopback, as listened on
		{other, "127.0.0.1", false},
		{other, "127.0.0.1:7414", true},
	} {
		if got := c.g.Host(c.host); got != c.ok {
			t.Errorf("port %s, Host %q: allowed %v, want %v", c.g.port, c.host, got, c.ok)
		}
	}
}
