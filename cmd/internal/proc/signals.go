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

// termGrace is how long a command has to stop by itself after SIGTERM
// before it is ended. Without it, a read that no context can stop (a
// FIFO given as input, a file on a hung mount) could keep the command
// running longer than the sender of the signal is willing to wait.
const termGrace = 2 * time.Second

// WatchSignals returns the context a command runs under, with its
// signals watched from the start (see Signals).
func WatchSignals(stderr io.Writer, exit func(int)) (context.Context, func()) {
	s := NewSignals(stderr, exit)
	s.Watch()
	return s.Context(), s.Stop
}

// Signals holds the context a command runs under and watches the
// command's signals, starting when Watch is first called.
//
// Once watched, the first Ctrl-C (SIGINT) or SIGTERM cancels the
// context. The command stops at its next check, writes nothing more,
// and exits with status 130 (143 for SIGTERM). A second signal of
// either kind, or the end of SIGTERM's grace period, ends the process at
// once with that status. That is safe because every write git-snap
// makes stays valid if killed at any point (docs/design.md §5).
//
// Before Watch, a signal ends the process as it ends git's read-only
// commands, so a command that only reads and prints does not pay for
// the watch (its thread costs a tenth of a start, docs/design.md §7).
// Signals replaces signal.NotifyContext, which stayed registered after
// the first signal, so that the second was swallowed while a read that
// cannot be cancelled went on.
type Signals struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	stderr io.Writer
	exit   func(int)
	once   sync.Once
	stop   func()
}

// NewSignals returns a command's context, with its signals not yet
// watched.
func NewSignals(stderr io.Writer, exit func(int)) *Signals {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &Signals{ctx: ctx, cancel: cancel, stderr: stderr, exit: exit, stop: func() {}}
}

// Context returns the context that the signals cancel.
func (s *Signals) Context() context.Context { return s.ctx }

// Watch starts watching the signals. Calls after the first do nothing.
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

// Stopped is the cause of a context that a signal cancelled. Code is
// the exit status for that signal.
type Stopped struct{ Code int }

// Error says the command was interrupted.
func (s *Stopped) Error() string { return "interrupted" }
