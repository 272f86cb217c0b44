// Command git-snap-view runs git snap view, the web viewer of the
// stored sessions: git-snap runs it with its own arguments, so that
// git-snap itself links no Markdown engine, template or HTTP server
// (docs/design.md §7). It takes git-snap's command line.
//
//	git-snap-view view --open
package main

import (
	"os"

	"github.com/git-snap/git-snap/cmd/internal/cmdline"
	"github.com/git-snap/git-snap/cmd/internal/programs"
	"github.com/git-snap/git-snap/cmd/internal/viewprog"
)

func main() {
	os.Exit(cmdline.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, programs.Set{View: viewprog.Serve}))
}
