// Command git-snap saves snapshots of AI agents' state in git: one
// commit per snapshot on a branch per session, checkpoints as tags. On
// PATH, git runs it as `git snap`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"golang.org/x/term"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs git-snap with args (without the program name) and returns
// its exit status: 0 done, 1 failed, 2 bad usage or input.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "git-snap: internal error: %v\n%s\nPlease report this with the command you ran.\n", r, debug.Stack())
			code = 1
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "git-snap: %v\n", err)
		return 1
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, dir: dir, getenv: os.Getenv, lookupenv: os.LookupEnv}
	if f, ok := stderr.(*os.File); ok {
		e.errTerminal = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := stdout.(*os.File); ok {
		e.terminal = term.IsTerminal(int(f.Fd()))
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && e.terminal {
			e.width = cols
		}
	}
	return e.run(ctx, args)
}
