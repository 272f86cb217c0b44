// Command git-snap-http runs the parts of git-snap's commands that speak
// HTTP: export --format otel (OpenTelemetry's OTLP, written or posted to
// --endpoint), replay --serve (a session's model calls served as its
// agent's model API) and prices update's download. git-snap runs it with
// its own arguments, so that git-snap itself links no HTTP client or
// server nor protobuf types (docs/design.md §7). It takes git-snap's
// command line.
//
//	git-snap-http export --format otel --endpoint http://localhost:4318
package main

import (
	"os"

	"github.com/git-snap/git-snap/cmd/internal/cmdline"
	"github.com/git-snap/git-snap/cmd/internal/httpprog"
	"github.com/git-snap/git-snap/cmd/internal/programs"
)

func main() {
	os.Exit(cmdline.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr,
		programs.Set{OTel: httpprog.OTLP{}, Replay: httpprog.Replay, Get: httpprog.Get}))
}
