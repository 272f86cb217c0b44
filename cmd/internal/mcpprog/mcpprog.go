// Package mcpprog is git snap mcp as git-snap-mcp runs it: the MCP
// server (package mcpserver, with the MCP Go SDK and its JSON Schema
// package, which git-snap does not link; docs/design.md §7) over one
// store, on the standard streams an agent started it with.
package mcpprog

import (
	"context"

	"github.com/git-snap/git-snap/cmd/internal/programs"
	"github.com/git-snap/git-snap/mcpserver"
)

// Serve serves r.Store's sessions on r.In and r.Out until the client
// closes r.In or ctx ends (programs.Set's MCP).
func Serve(ctx context.Context, r programs.MCPRequest) error {
	srv, err := mcpserver.New(mcpserver.Options{
		Store: r.Store, AllowWrite: r.AllowWrite, Budget: r.Budget, Prices: r.Prices, Now: r.Now,
		Version: r.Version, CodeState: r.CodeState,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	return srv.Serve(ctx, r.In, r.Out)
}
