// Command git-snap saves snapshots of AI agents' state in git: one
// commit per snapshot on a branch per session, checkpoints as tags. On
// PATH, git runs it as `git snap`. It links neither the web viewer, nor
// the MCP server, nor jq, nor HTTP: git snap view, git snap mcp, --jq,
// and export --format otel, replay --serve and prices update run the
// programs beside it that do (git-snap-view, git-snap-mcp, git-snap-jq,
// git-snap-http), with the same arguments, so that every other command
// starts in less time (docs/design.md §7).
package main

import (
	"os"

	"github.com/git-snap/git-snap/cmd/internal/cmdline"
	"github.com/git-snap/git-snap/cmd/internal/programs"
)

// The manual pages and the command reference, docs/commands.md, from the
// same definitions as --help.
//go:generate go run . install man --prefix ../../docs/man
//go:generate go test ../internal/cmdline -run ^TestCommandReferenceCurrent$ -update

func main() {
	os.Exit(cmdline.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, programs.Set{}))
}
