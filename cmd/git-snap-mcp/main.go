// Command git-snap-mcp runs git snap mcp, the MCP server over the
// stored sessions: git-snap runs it with its own arguments, so that
// git-snap itself links no MCP SDK (docs/design.md §7). It takes
// git-snap's command line.
//
//	git-snap-mcp mcp --allow-write
package main

import (
	"os"

	"github.com/git-snap/git-snap/cmd/internal/cmdline"
	"github.com/git-snap/git-snap/cmd/internal/mcpprog"
	"github.com/git-snap/git-snap/cmd/internal/programs"
)

func main() {
	os.Exit(cmdline.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, programs.Set{MCP: mcpprog.Serve}))
}
