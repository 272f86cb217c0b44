package viewer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/git-snap/git-snap/internal/loopback"
)

// DefaultPort is the port the viewer listens on when none is asked for
// and it is free: a fixed one, so that links stay valid across runs.
const DefaultPort = 7414

// ListenOptions say where the viewer listens.
type ListenOptions struct {
	// Port on 127.0.0.1; 0 picks a free one. PortSet says it was given:
	// an unset DefaultPort that is taken falls back to a free port.
	Port    int
	PortSet bool
	// Listen is an address given explicitly (host:port), which may be
	// reachable from other machines; "" for 127.0.0.1.
	Listen string
}

// ListenError means the address asked for cannot be used.
type ListenError struct{ Msg string }

func (e *ListenError) Error() string { return e.Msg }

// UserError marks the error as the user's to correct.
func (e *ListenError) UserError() {}

// Listen opens the viewer's listener: on 127.0.0.1 unless an address is
// given with Listen, and then with a warning when that address is not a
// loopback one, since every session is readable from it.
func Listen(ctx context.Context, o ListenOptions) (ln net.Listener, warning string, err error) {
	var lc net.ListenConfig
	if o.Listen != "" {
		_, _, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return nil, "", &ListenError{fmt.Sprintf("--listen %q: give host:port, e.g. 127.0.0.1:8080 (%v)", o.Listen, err)}
		}
		if loopback.Exposed(o.Listen) {
			warning = fmt.Sprintf("listening on %s: anyone who can reach this address can read every session in the repository", o.Listen)
		}
		ln, err := lc.Listen(ctx, "tcp", o.Listen)
		if err != nil {
			return nil, "", &ListenError{fmt.Sprintf("cannot listen on %s: %v", o.Listen, err)}
		}
		return ln, warning, nil
	}
	if o.Port < 0 || o.Port > 65535 {
		return nil, "", &ListenError{fmt.Sprintf("--port %d: give a port from 1 to 65535, or 0 for any free one", o.Port)}
	}
	ln, err = lc.Listen(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil && !o.PortSet {
		ln, err = lc.Listen(ctx, "tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, "", &ListenError{fmt.Sprintf("cannot listen on 127.0.0.1:%d: %v (--port 0 picks a free port)", o.Port, err)}
	}
	return ln, "", nil
}

// Serve answers requests on ln until ctx ends, then lets the requests
// under way finish for up to two seconds.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// Live pages hold a request open: ending base ends them.
		BaseContext: func(net.Listener) context.Context { return base },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	cancel()
	stop, cancelStop := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancelStop()
	err := srv.Shutdown(stop)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if served := <-done; !errors.Is(served, http.ErrServerClosed) && err == nil {
		err = served
	}
	return err
}
