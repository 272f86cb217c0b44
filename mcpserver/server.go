// Package mcpserver serves a repository's stored sessions to agents over
// the Model Context Protocol (MCP): tools to list sessions and their
// snapshots, search them, read a session or one turn of it, compare two
// snapshots and list checkpoints; with Options.AllowWrite, tools to set
// a checkpoint and roll a session back too.
//
// Everything it returns is read through the same store the command line
// reads (gitstore), so it is the stored history, redacted when it was
// saved, local and fetched sessions alike; nothing reads an agent's own
// files. Every answer is bounded by a character budget (Options.Budget),
// longer text is paged with an offset, and a bad call (an argument the
// tool does not take, a pattern that cannot be searched, a revision that
// names nothing) is a tool error with a message that says what to fix:
// the server never stops on one.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/search"
)

// DefaultBudget is the budget used when Options.Budget is zero: the
// most characters one answer holds, the same as GitHub's limit on a pull
// request description (65,536).
const DefaultBudget = 65536

// Options configure a server.
type Options struct {
	// Repo is the repository served. The caller keeps it open while the
	// server runs and does not use it for anything else meanwhile,
	// because every tool call uses it in turn.
	Repo *gitsnap.Repository
	// AllowWrite adds the tools that write to the repository
	// (checkpoint, rollback). Without it nothing a client sends can write
	// history. The search index is a cache and is still updated as
	// searches run.
	AllowWrite bool
	// Budget is the most characters a tool's answer holds; DefaultBudget
	// when zero. A call may ask for less with max_chars, never more.
	Budget int
	// Prices is used to estimate the cost of sessions; nil means the
	// embedded dataset.
	Prices *prices.Prices
	// Version is the server version reported to the client.
	Version string
	// SearchDir is the directory of the search index, shared with git
	// snap search; "" means search.DefaultDir.
	SearchDir string
	// Now is the time relative dates ("2h", "yesterday") count from;
	// time.Now when nil.
	Now func() time.Time
	// CodeState reports the current code commit and whether the work
	// tree has changes, for a rollback to record as git snap rollback
	// does. It is used only with AllowWrite; nil records neither.
	CodeState func(ctx context.Context) (commit string, dirty bool, err error)
}

// Server is the MCP server over one store.
type Server struct {
	opts Options
	mcp  *mcp.Server

	// mu serialises every use of the store: a gitstore.Store is for one
	// goroutine at a time, and the SDK may run calls concurrently.
	mu    sync.Mutex
	index *search.Index // opened on the first search, under mu

	args map[string][]string // each tool's arguments, for checkArgs
}

// New returns a server for o.Repo with its tools registered.
func New(o Options) (*Server, error) {
	if o.Repo == nil {
		return nil, errors.New("mcp server: no store")
	}
	if o.SearchDir == "" {
		o.SearchDir = search.DefaultDir(o.Repo.Paths().CommonDir)
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.Prices == nil {
		o.Prices = prices.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{opts: o, args: map[string][]string{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "git-snap", Title: "git-snap: agents' sessions kept in git", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions(o.AllowWrite)})
	s.addTools()
	s.mcp.AddReceivingMiddleware(s.checkArgs)
	return s, nil
}

// instructions tell the client what the server is for.
func instructions(write bool) string {
	text := `git-snap keeps AI agents' sessions (prompts, answers, tool calls and results, files touched) as snapshots in this git repository, redacted when saved. Use search to find where something was said, done or decided in a past session; list_sessions and list_snapshots to see what is kept; show to read a session, one turn of it (turn) or a captured file (path); diff to see what changed between two snapshots; list_checkpoints for named snapshots. A revision is a session name, NAME~N (N snapshots back), snap/SESSION/CHECKPOINT, or a snapshot id. Long answers are cut at the budget: ask again with offset for the rest.`
	if write {
		text += ` checkpoint names a snapshot; rollback records a new snapshot equal to an earlier one (nothing is deleted).`
	}
	return text
}

// MCP returns the SDK's server, for a caller that connects it to a
// transport of its own (tests use the SDK's in-memory one).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Serve answers one client on r and w (a process's stdin and stdout)
// until the client closes r or ctx is done. A line that is not a
// JSON-RPC message is answered with an error, and the server keeps
// reading.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	out := newLockedWriter(w)
	// stop ends guard's wait for answers still owed: when ctx is done,
	// or when the server stopped and will write none.
	stop := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(stop) }) }
	defer end()
	go func() {
		select {
		case <-ctx.Done():
			end()
		case <-stop:
		}
	}()
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: guard(r, out, stop), Writer: out})
	if ctx.Err() != nil {
		return ctx.Err() // stopped by a signal: the command says so
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}

// withStore runs fn holding the store, and turns a panic in it into the
// call's error, so that a bad request never stops the server.
func (s *Server) withStore(fn func() error) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error (the server keeps running): %v\n%s", p, debug.Stack())
		}
	}()
	return fn()
}

// searchIndex returns the search index, opening it on the first search.
// The caller holds mu.
func (s *Server) searchIndex(ctx context.Context) (*search.Index, error) {
	if s.index != nil {
		return s.index, nil
	}
	x, err := search.Open(ctx, s.opts.Repo.Storage(), s.opts.SearchDir)
	if err != nil {
		return nil, err
	}
	s.index = x
	return x, nil
}

// Close releases the search index. The caller closes the store.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil {
		return nil
	}
	err := s.index.Close()
	s.index = nil
	return err
}
