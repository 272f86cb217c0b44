package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// termGrace is how long a command has to stop by itself after SIGTERM,
// which asks it to stop, before it is ended: a read that no context can
// stop (a FIFO given as input, a file on a hung mount) would otherwise
// keep it running past what whoever sent the signal waits for.
const termGrace = 2 * time.Second

// WatchSignals gives the context a command runs under. The first Ctrl-C
// (SIGINT) or SIGTERM cancels it: the command stops where it next looks,
// writing nothing more, and exits 130 (143 for SIGTERM). A second signal
// of either kind, or SIGTERM's grace running out, ends the process at
// once with that status: every write git-snap makes is one a kill at any
// point leaves valid (docs/design.md §5), so nothing is left half done.
// signal.NotifyContext stayed registered after the first signal, so the
// second was swallowed while a read that cannot be cancelled went on.
func WatchSignals(stderr io.Writer, exit func(int)) (context.Context, func()) {
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
		cancel(&Stopped{code(first)})
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

// Stopped is the cause of a context a signal cancelled: the exit status
// the signal calls for.
type Stopped struct{ Code int }

// Error says the command was interrupted.
func (s *Stopped) Error() string { return "interrupted" }
