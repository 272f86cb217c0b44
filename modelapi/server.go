package modelapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/git-snap/git-snap/internal/loopback"
)

// Exchange is one request the server received and what it answered.
type Exchange struct {
	Request Request
	Reply   *Reply // nil when the request was refused
	Err     string // why it was refused
}

// Options configure a Server: where it listens and what it keeps.
type Options struct {
	// Addr is the address to listen on; "127.0.0.1:0" picks a free port.
	Addr string
	// Keep makes the server keep every exchange, with its whole request,
	// for Exchanges, so that a test's stub can check what the agent sent.
	// Without it nothing of a request is kept after it is answered, so
	// that memory does not grow over a long replay.
	Keep bool
}

// Server serves one API from a Responder on a listener of its own, to
// clients on this machine only (package loopback). A request must
// address it by its IP address or localhost, must not come from a web
// page of another site, and must send JSON.
type Server struct {
	api   API
	resp  Responder
	ln    net.Listener
	srv   *http.Server
	done  chan error
	local loopback.Guard
	keep  bool

	mu        sync.Mutex
	exchanges []Exchange
}

// maxBody limits the size of a request body. It is large because agents
// send their whole conversation with every call.
const maxBody = 64 << 20

// PublicError is an error with a separate message for the client, so
// that what a refusal says over the network contains nothing recorded.
// Error is for the server's own log.
type PublicError interface {
	error
	Public() string
}

// Start listens on o.Addr and serves api's model calls from r until
// Close is called or ctx is done. Every wait has a deadline, so that a
// client that stops reading cannot hold the server up.
func Start(ctx context.Context, api string, o Options, r Responder) (*Server, error) {
	a, err := Lookup(api)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", o.Addr)
	if err != nil {
		return nil, err
	}
	local, err := loopback.NewGuard(ln.Addr().String())
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{api: a, resp: r, ln: ln, done: make(chan error, 1), local: local, keep: o.Keep}
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       60 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		s.Close()
	}()
	return s, nil
}

// URL returns the server's base URL: http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// API returns the API the server serves.
func (s *Server) API() API { return s.api }

// Close stops the server, cutting off requests in progress.
func (s *Server) Close() error {
	err := s.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Wait waits until the server has stopped.
func (s *Server) Wait() {
	err := <-s.done
	s.done <- err
}

// Exchanges returns the requests the server received and its answers,
// in order, when Options.Keep is set.
func (s *Server) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exchange(nil), s.exchanges...)
}

// ServeHTTP answers one request: the API's model calls from the
// Responder, anything else with the API's 404. A request from another
// host or site, or whose body is not JSON, is refused first.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if status, msg := s.local.Check(r, "git-snap model server"); status != 0 {
		s.api.WriteError(w, status, msg)
		return
	}
	if !s.api.Handles(r) {
		msg := fmt.Sprintf("git-snap model server: %s %s is not a model call of %s", r.Method, printable(r.URL.Path), s.api.Title())
		s.record(Exchange{Request: Request{API: s.api.Name(), Path: r.URL.Path}, Err: msg}) // what else agents ask for shows
		s.api.WriteError(w, http.StatusNotFound, msg)
		return
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		s.api.WriteError(w, http.StatusUnsupportedMediaType, "git-snap model server: a model call's body is JSON (Content-Type: application/json)")
		return
	}
	if enc := r.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		s.api.WriteError(w, http.StatusUnsupportedMediaType, "git-snap model server: request bodies encoded as "+printable(enc)+" are not supported")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		s.api.WriteError(w, http.StatusBadRequest, "git-snap model server: read the request: "+err.Error())
		return
	}
	req, err := s.api.Parse(body)
	req.API, req.Path, req.Body = s.api.Name(), r.URL.Path, body
	if u, ok := s.api.(urlReader); ok {
		u.FromURL(r, &req)
	}
	if err != nil {
		s.record(Exchange{Request: req, Err: err.Error()})
		s.api.WriteError(w, http.StatusBadRequest, "git-snap model server: "+err.Error())
		return
	}
	rep, err := s.resp.Respond(&req)
	if err != nil {
		s.record(Exchange{Request: req, Err: err.Error()})
		msg := err.Error()
		if p, ok := err.(PublicError); ok {
			msg = p.Public()
		}
		s.api.WriteError(w, http.StatusBadRequest, msg)
		return
	}
	if rep.Model == "" {
		rep.Model = req.Model
	}
	if u, ok := s.api.(usageSayer); ok {
		rep.Usage = u.Said(rep.Usage)
	}
	s.record(Exchange{Request: req, Reply: &rep})
	// An error here means the client has gone; the exchange is still
	// recorded as served.
	_ = s.api.Write(w, &req, rep)
}

// isJSON reports whether a Content-Type is JSON: application/json or a
// JSON subtype (application/vnd.x+json). Requiring JSON keeps web pages
// out: a page can post text/plain or a form to any address without a
// CORS preflight, but not JSON.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// printable makes a part of the request that an error echoes printable
// and short.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return '?'
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func (s *Server) record(e Exchange) {
	if !s.keep {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exchanges = append(s.exchanges, e)
}
