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
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

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
	ctx, stop := watchSignals(stderr, os.Exit)
	defer stop()
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "git-snap: %v\n", err)
		return 1
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, dir: dir, getenv: os.Getenv, lookupenv: os.LookupEnv}
	// Only git-snap itself starts itself apart: a test binary running
	// Main (git-snap.test) must not start itself again.
	if exe, err := os.Executable(); err == nil && strings.TrimSuffix(filepath.Base(exe), ".exe") == "git-snap" {
		e.later = func(args []string, stdin []byte, extra ...string) error { return startApart(exe, args, stdin, extra) }
	}
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

// termGrace is how long a command has to stop by itself after SIGTERM,
// which asks it to stop, before it is ended: a read that no context can
// stop (a FIFO given as input, a file on a hung mount) would otherwise
// keep it running past what whoever sent the signal waits for.
const termGrace = 2 * time.Second

// watchSignals gives the context a command runs under. The first Ctrl-C
// (SIGINT) or SIGTERM cancels it: the command stops where it next looks,
// writing nothing more, and exits 130 (143 for SIGTERM). A second signal
// of either kind, or SIGTERM's grace running out, ends the process at
// once with that status: every write git-snap makes is one a kill at any
// point leaves valid (docs/design.md §5), so nothing is left half done.
// signal.NotifyContext stayed registered after the first signal, so the
// second was swallowed while a read that cannot be cancelled went on.
func watchSignals(stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	code := func(s os.Signal) int {
		if s == syscall.SIGTERM {
			return 143
		}
		return 130
	}
	go func() {
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		cancel(&stopped{code(first)})
		var grace <-chan time.Time
		if first == syscall.SIGTERM {
			grace = time.After(termGrace)
		}
		select {
		case second := <-sigs:
			fmt.Fprintln(stderr, "\ngit-snap: stopped")
			exit(code(second))
		case <-grace:
			fmt.Fprintln(stderr, "\ngit-snap: stopped")
			exit(code(first))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// stopped is the cause of a context a signal cancelled: the exit status
// the signal calls for.
type stopped struct{ code int }

func (s *stopped) Error() string { return "interrupted" }
