package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// termGrace is how long a command has to stop by itself after SIGTERM,
// which asks it to stop, before it is ended: a read that no context can
// stop (a FIFO given as input, a file on a hung mount) would otherwise
// keep it running past what whoever sent the signal waits for.
const termGrace = 2 * time.Second

// WatchSignals gives the context a command runs under, its signals
// watched from the start (see Signals).
func WatchSignals(stderr io.Writer, exit func(int)) (context.Context, func()) {
	s := NewSignals(stderr, exit)
	s.Watch()
	return s.Context(), s.Stop
}

// Signals is the context a command runs under and the watch of its
// signals, which starts when Watch is first called. Watched, the first
// Ctrl-C (SIGINT) or SIGTERM cancels the context: the command stops where
// it next looks, writing nothing more, and exits 130 (143 for SIGTERM).
// A second signal of either kind, or SIGTERM's grace running out, ends
// the process at once with that status: every write git-snap makes is
// one a kill at any point leaves valid (docs/design.md §5), so nothing is
// left half done. Before Watch, a signal ends the process as it ends
// git's reading commands: a command that only reads and prints does not
// pay for the watch (its thread is a tenth of a start, docs/design.md
// §7). signal.NotifyContext stayed registered after the first signal,
// so the second was swallowed while a read that cannot be cancelled
// went on.
type Signals struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	stderr io.Writer
	exit   func(int)
	once   sync.Once
	stop   func()
}

// NewSignals is a command's context, its signals not yet watched.
func NewSignals(stderr io.Writer, exit func(int)) *Signals {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &Signals{ctx: ctx, cancel: cancel, stderr: stderr, exit: exit, stop: func() {}}
}

// Context is the context the signals cancel.
func (s *Signals) Context() context.Context { return s.ctx }

// Watch starts watching, once.
func (s *Signals) Watch() { s.once.Do(s.watch) }

// Stop ends the watch and cancels the context.
func (s *Signals) Stop() {
	s.once.Do(func() {}) // no watch starts after Stop
	s.stop()
	s.cancel(nil)
}

func (s *Signals) watch() {
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
		s.cancel(&Stopped{code(first)})
		var grace <-chan time.Time
		if first == syscall.SIGTERM {
			grace = time.After(termGrace)
		}
		select {
		case second := <-sigs:
			fmt.Fprintln(s.stderr, "\ngit-snap: stopped")
			s.exit(code(second))
		case <-grace:
			fmt.Fprintln(s.stderr, "\ngit-snap: stopped")
			s.exit(code(first))
		case <-done:
		}
	}()
	s.stop = func() {
		signal.Stop(sigs)
		close(done)
	}
}

// Stopped is the cause of a context a signal cancelled: the exit status
// the signal calls for.
type Stopped struct{ Code int }

// Error says the command was interrupted.
func (s *Stopped) Error() string { return "interrupted" }
