// Package programs is how git-snap's programs divide its commands: git
// snap links neither a server, nor jq, nor OpenTelemetry's types, and a
// command that needs one is run by the program beside it that links it,
// with the same arguments (docs/design.md §7), as git runs
// git-remote-https. A Set is what a program links; the requests are what
// a command hands to it, so that the code of the command line (package
// cmdline) and the code that needs the libraries (packages viewprog,
// mcpprog, jqprog, httpprog) import each other in no direction.
package programs

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/prices"
	"github.com/git-snap/git-snap/snapshot"
)

// Program is the name of one of git-snap's programs, installed beside
// git-snap.
type Program string

// The programs that run what git-snap does not link, each named, as git
// names its own (git-remote-https, git-http-backend), for what it runs.
const (
	View Program = "git-snap-view" // git snap view: the web viewer (Markdown, templates, an HTTP server)
	MCP  Program = "git-snap-mcp"  // git snap mcp: the MCP server (the MCP SDK, JSON Schema)
	JQ   Program = "git-snap-jq"   // --jq on any command (gojq)
	// HTTP speaks HTTP for the rest: export --format otel (OTLP's
	// protobuf types, the POST to --endpoint), replay --serve (the model
	// APIs' server) and prices update's download.
	HTTP Program = "git-snap-http"
)

// All are the programs apart from git-snap, in the order the README
// lists them.
var All = []Program{View, MCP, JQ, HTTP}

// Set is what a program links of the pieces git-snap leaves out: a nil
// field is the work of another program, named beside it.
type Set struct {
	View   func(context.Context, ViewRequest) error                     // git-snap-view
	MCP    func(context.Context, MCPRequest) error                      // git-snap-mcp
	JQ     func(expr string) (Filter, error)                            // git-snap-jq
	OTel   OTLP                                                         // git-snap-http
	Replay func(context.Context, ReplayRequest) error                   // git-snap-http
	Get    func(ctx context.Context, url string) (io.ReadCloser, error) // git-snap-http
}

// Has reports whether the set links all that p runs.
func (s Set) Has(p Program) bool {
	switch p {
	case View:
		return s.View != nil
	case MCP:
		return s.MCP != nil
	case JQ:
		return s.JQ != nil
	case HTTP:
		return s.OTel != nil && s.Replay != nil && s.Get != nil
	}
	return false
}

// Listen is where git snap view listens (viewer.ListenOptions).
type Listen struct {
	Port    int    // on 127.0.0.1; 0: any free port
	PortSet bool   // Port was given
	Listen  string // host:port instead, maybe reachable from other machines
}

// ViewRequest is git snap view: serve the viewer of Store until ctx ends.
type ViewRequest struct {
	Store  *gitstore.Store
	Prices *prices.Prices
	// OpenSearchStore opens a store of its own for searches (nil: they
	// use Store).
	OpenSearchStore func(context.Context) (*gitstore.Store, error)
	Listen          Listen
	Path            string // the page whose address is printed: "/" or a session's
	Open            bool   // open the address in the default browser
	Out, Err        io.Writer
}

// MCPRequest is git snap mcp: serve Store's sessions over MCP on In and
// Out until In ends or ctx does.
type MCPRequest struct {
	Store      *gitstore.Store
	AllowWrite bool // the tools that write: checkpoint and rollback
	Budget     int  // characters an answer is cut at
	Prices     *prices.Prices
	Now        func() time.Time
	Version    string
	// CodeState is the commit the work tree is at and whether it is
	// dirty, for checkpoints.
	CodeState func(context.Context) (commit string, dirty bool, err error)
	In        io.Reader
	Out       io.Writer
}

// Filter is a compiled --jq expression.
type Filter interface {
	// Run writes each value the expression gives for v (decoded JSON,
	// numbers as int, *big.Int or float64): a string as it is on its own
	// line, anything else as indented JSON, as gh --jq does.
	Run(ctx context.Context, w io.Writer, v any) error
}

// OTLP writes sessions as OpenTelemetry traces.
type OTLP interface {
	// CheckEndpoint says what is wrong with an OTLP/HTTP endpoint.
	CheckEndpoint(endpoint string) error
	// Traces is doc, recorded by source as session, as OTLP/JSON, and
	// the number of its spans.
	Traces(doc map[string]any, source, session string) (data []byte, spans int, err error)
	// Send posts traces (OTLP/JSON) to the endpoint.
	Send(ctx context.Context, endpoint string, data []byte) error
}

// ReplayRequest is git snap replay --serve: serve the model calls of
// Doc, recorded as Header says, on Addr until ctx ends.
type ReplayRequest struct {
	Doc      map[string]any
	Header   snapshot.Header
	Addr     string
	AgentEnv agent.Env // to say how to point the agent at the server
	Out, Err io.Writer
}

// WriteValue writes v as --json FIELD,… and --jq print a value: indented
// JSON, the keys of objects sorted, nothing escaped for HTML.
func WriteValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// StatusError is an answer to Get other than 200 OK.
type StatusError struct{ URL, Status string }

// Error names the URL and the status.
func (e *StatusError) Error() string { return e.URL + " answered " + e.Status }
