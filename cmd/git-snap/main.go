// Command git-snap saves snapshots of AI agents' state in git: one
// commit per snapshot on a branch per session, checkpoints as tags. On
// PATH, git runs it as `git snap`. Every command is here, the web
// viewer and the MCP server too; only the hook program,
// git-snap-hook, is a separate program, so that a hook call starts in less time
// (docs/design.md §7).
package main

import (
	"os"

	"github.com/git-snap/git-snap/cmd/internal/cmdline"
)

// The manual pages and the command reference, docs/commands.md, from the
// same definitions as --help.
//go:generate go run . install man --prefix ../../docs/man
//go:generate go test ../internal/cmdline -run ^TestCommandReferenceCurrent$ -update

func main() {
	os.Exit(cmdline.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
