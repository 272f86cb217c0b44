package viewer

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// The viewer listens on loopback unless told otherwise, and says so when
// told to listen where other machines reach it.
func TestListen(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		o       ListenOptions
		warning bool
	}{
		{ListenOptions{Port: 0, PortSet: true}, false},
		{ListenOptions{Listen: "127.0.0.1:0"}, false},
		{ListenOptions{Listen: "[::1]:0"}, false},
		{ListenOptions{Listen: "0.0.0.0:0"}, true},
	} {
		ln, warning, err := Listen(ctx, c.o)
		if err != nil {
			if strings.Contains(c.o.Listen, "::1") {
				continue // no IPv6 loopback on this machine
			}
			t.Fatalf("%+v: %v", c.o, err)
		}
		ip := ln.Addr().(*net.TCPAddr).IP
		ln.Close()
		if c.o.Listen == "" && !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Errorf("%+v: listened on %s, want 127.0.0.1", c.o, ip)
		}
		if (warning != "") != c.warning {
			t.Errorf("%+v: warning %q", c.o, warning)
		}
	}
	// A port asked for and taken is an error; the default one falls back.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	var le *ListenError
	if _, _, err := Listen(ctx, ListenOptions{Port: port, PortSet: true}); !errors.As(err, &le) {
		t.Errorf("a taken port given: %v, want a ListenError", err)
	}
	ln, _, err := Listen(ctx, ListenOptions{Port: port})
	if err != nil {
		t.Fatalf("a taken default port: %v", err)
	}
	if ln.Addr().(*net.TCPAddr).Port == port {
		t.Errorf("listened on the taken port")
	}
	ln.Close()
}
