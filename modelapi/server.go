package modelapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Exchange is one request the server received and what it answered.
type Exchange struct {
	Request Request
	Reply   *Reply // nil when the request was refused
	Err     string // why it was refused
}

// Server serves one API from a Responder on a listener of its own.
type Server struct {
	api  API
	resp Responder
	ln   net.Listener
	srv  *http.Server
	done chan error

	mu        sync.Mutex
	exchanges []Exchange
}

// maxBody bounds a request body: agents send their whole conversation.
const maxBody = 64 << 20

// Start listens on addr ("127.0.0.1:0" picks a free port) and serves
// api's model calls from r until Close or ctx ends. Every wait has a
// deadline, so that a client that stops reading cannot hold it.
func Start(ctx context.Context, api, addr string, r Responder) (*Server, error) {
	a, err := Lookup(api)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{api: a, resp: r, ln: ln, done: make(chan error, 1)}
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

// Exchanges lists what the server received and answered, in order.
func (s *Server) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exchange(nil), s.exchanges...)
}

// ServeHTTP answers one request: the API's model calls from the
// Responder, anything else with the API's 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.api.Handles(r) {
		msg := fmt.Sprintf("git-snap model server: %s %s is not a model call of %s", r.Method, r.URL.Path, s.api.Title())
		s.record(Exchange{Request: Request{API: s.api.Name(), Path: r.URL.Path}, Err: msg}) // what else agents ask for shows
		s.api.WriteError(w, http.StatusNotFound, msg)
		return
	}
	if enc := r.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		s.api.WriteError(w, http.StatusUnsupportedMediaType, "git-snap model server: request bodies encoded as "+enc+" are not read")
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
		s.api.WriteError(w, http.StatusBadRequest, err.Error())
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

func (s *Server) record(e Exchange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exchanges = append(s.exchanges, e)
}
