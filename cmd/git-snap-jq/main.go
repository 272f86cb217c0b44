// Command git-snap-jq runs a git-snap command given --jq, whose jq
// expression gojq runs: git-snap runs it with its own arguments, so that
// git-snap itself does not build jq's built-in functions at every start
// (docs/design.md §7). It takes git-snap's command line.
//
//	git-snap-jq log --jq '.snapshots[].id'
package main

import (
	"os"

	"github.com/git-snap/git-snap/cmd/internal/cmdline"
	"github.com/git-snap/git-snap/cmd/internal/jqprog"
	"github.com/git-snap/git-snap/cmd/internal/programs"
)

func main() {
	os.Exit(cmdline.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, programs.Set{JQ: jqprog.Compile}))
}
