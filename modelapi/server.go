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

// Options say where a Server listens and what it keeps.
type Options struct {
	// Addr is the address to listen on; "127.0.0.1:0" picks a free port.
	Addr string
	// Keep keeps every exchange, its request whole, for Exchanges: a
	// test's stub checks what the agent sent. Without it nothing of a
	// request outlives its answer, so that memory does not grow with
	// each request a long replay serves.
	Keep bool
}

// Server serves one API from a Responder on a listener of its own, to
// clients on this machine: a request must name it by its address or
// localhost, come from no web page of another site, and send JSON
// (package loopback).
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

// maxBody bounds a request body: agents send their whole conversation.
const maxBody = 64 << 20

// PublicError is an error whose message for the client differs from the
// one for the server's own log: what a refusal says over the network
// holds nothing recorded.
type PublicError interface {
	error
	Public() string
}

// Start listens on o.Addr and serves api's model calls from r until
// Close or ctx ends. Every wait has a deadline, so that a client that
// stops reading cannot hold it.
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

// URL is the server's base URL: http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// API is the API the server speaks.
func (s *Server) API() API { return s.api }

// Close stops the server; requests under way are cut.
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

// Exchanges lists what the server received and answered, in order,
// when it keeps them (Options.Keep).
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
		s.api.WriteError(w, http.StatusUnsupportedMediaType, "git-snap model server: request bodies encoded as "+printable(enc)+" are not read")
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
	// An error here is the client gone; the exchange is recorded as served.
	_ = s.api.Write(w, &req, rep)
}

// isJSON reports whether a Content-Type is JSON: application/json or a
// type of it (application/vnd.x+json). A page can post text/plain or a
// form to any address without asking; JSON it cannot.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// printable keeps a part of the request echoed in an error printable
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
