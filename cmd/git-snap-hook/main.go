// Command git-snap-hook records an agent's hook call as git snap hook
// does, and links nothing else, so that a call, which an agent makes on
// every tool call, starts quickly (docs/design.md §7). git snap install
// writes it into the hooks of personal settings when it is installed
// beside git-snap; on PATH, git runs it as `git snap-hook`.
//
//	echo "$PAYLOAD" | git-snap-hook claude-code
package main

import (
	"os"

	"github.com/git-snap/git-snap/cmd/internal/hookcmd"
)

func main() {
	os.Exit(hookcmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
