// Package viewer serves a repository's sessions as web pages on the
// local machine (git snap view): the sessions, each session's timeline,
// snapshots with their diffs, and the files an agent touched.
// It reads the repository live and never writes to it. Transcripts are
// untrusted: everything is escaped by html/template, and a strict
// Content-Security-Policy lets only the viewer's own script run.
package viewer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"github.com/git-snap/git-snap/internal/loopback"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/search"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options tune a Server.
type Options struct {
	// Addr is the address the server listens on (host:port, the port
	// chosen): requests must name it, or localhost on its port, as their
	// Host.
	Addr string
	// Prices put cost estimates on tokens (prices.Load: the dataset with
	// the config's prices over it); nil: the embedded dataset.
	Prices *prices.Prices
	// Now is the time "2h ago" counts from; time.Now when nil.
	Now func() time.Time
	// Poll is how often the session refs are looked at for pages that
	// follow them live; one second when zero.
	Poll time.Duration
	// SearchDir is where the search index is kept (search.DefaultDir
	// when ""), as git snap search keeps it.
	SearchDir string
	// OpenSearchStore opens another store on the same repository, for
	// the search index alone, on the first search: an index's first
	// build can take minutes on a large repository, and on a store of
	// its own it holds no other page meanwhile. Nil: searches use the
	// viewer's store, one request at a time with the pages. Close closes
	// what it opened.
	OpenSearchStore func(ctx context.Context) (storage.ReadCloser, error)
	// Blame, when set, says who wrote each line of a file of the code
	// (the blame page); it reads the viewer's store, and is called with
	// the store's lock held.
	Blame Blame
}

// Server is the viewer: an http.Handler over one repository.
type Server struct {
	// mu serialises every use of store: a gitstore.Reader is for one
	// goroutine at a time, and the viewer keeps one open for its whole
	// life (an open per request would re-read the config and pack
	// indexes each time). Requests take it only while they read the
	// repository, never while they write a page to a slow client.
	mu    sync.Mutex
	store storage.Reader
	index *search.Index // on store, opened on the first search, under mu

	// searchMu guards the index on a store of its own (see
	// Options.OpenSearchStore), opened on the first search.
	searchMu    sync.Mutex
	searchStore storage.ReadCloser
	ownIndex    *search.Index

	opts    Options
	local   loopback.Guard // Host and Origin checks (see guard)
	pages   map[string]*template.Template
	handler http.Handler
	sums    summaries
	fillMu  sync.Mutex // one fill of summaries at a time (see fill)
	bodies  bodyCache
	md      markdown
}

// New makes a viewer of store. The caller keeps store open while the
// server runs and uses it for nothing else meanwhile.
func New(store storage.Reader, o Options) (*Server, error) {
	local, err := loopback.NewGuard(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("viewer: %w", err)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Prices == nil {
		o.Prices = prices.Default()
	}
	s := &Server{store: store, opts: o, local: local, sums: summaries{byTip: map[string]*summary{}}, md: newMarkdown()}
	if s.pages, err = parsePages(); err != nil {
		return nil, err
	}
	s.handler = s.guard(s.routes())
	return s, nil
}

// Close closes the store opened for searches, if one was. The caller
// closes the store it gave New.
func (s *Server) Close() error {
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	if s.searchStore == nil {
		return nil
	}
	err := s.searchStore.Close()
	s.searchStore, s.ownIndex = nil, nil
	return err
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", cacheStatic(http.FileServerFS(static))))
	mux.HandleFunc("GET /static/report.css", s.reportCSS)
	mux.HandleFunc("GET /{$}", s.sessionsPage)
	mux.HandleFunc("GET /session/{rev...}", s.timelinePage)
	mux.HandleFunc("GET /snapshot/{rev...}", s.snapshotPage)
	mux.HandleFunc("GET /files/{rev...}", s.filesPage)
	mux.HandleFunc("GET /blame/{path...}", s.blamePage)
	mux.HandleFunc("GET /search", s.searchPage)
	mux.HandleFunc("GET /export/{format}/{rev...}", s.export)
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, &pageError{http.StatusNotFound, "no such page: " + r.URL.Path})
	})
	return mux
}

func cacheStatic(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

// read runs fn with the store, serialised with every other request.
func (s *Server) read(ctx context.Context, fn func(st storage.Reader) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(s.store)
}

// pageError is an answer other than a page: a bad revision, a missing
// file.
type pageError struct {
	status int
	msg    string
}

func (e *pageError) Error() string { return e.msg }

// userError is what gitstore's errors about the user's input have.
type userError interface{ UserError() }

// fail answers with an error page: 404 for what the request names
// wrongly, 500 for a failure reading the repository.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	var pe *pageError
	var ue userError
	switch {
	case errors.As(err, &pe):
		status = pe.status
	case errors.As(err, &ue):
		status = http.StatusNotFound
	case errors.Is(err, context.Canceled):
		return
	}
	w.WriteHeader(status)
	s.renderBody(w, r, "error", page{Title: http.StatusText(status), Data: err.Error()})
}
