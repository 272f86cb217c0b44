// Package cmdline is git-snap's command line: every command, its flags,
// help, completion and manual pages (docs/design.md §6).
package cmdline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"golang.org/x/term"

	"github.com/git-snap/git-snap/cmd/internal/proc"
)

// Main runs git-snap with args (without the program name) and returns
// its exit status: 0 done, 1 failed, 2 bad usage or input.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "git-snap: internal error: %v\n%s\nPlease report this with the command you ran.\n", r, debug.Stack())
			code = 1
		}
	}()
	sigs := proc.NewSignals(stderr, os.Exit)
	defer sigs.Stop()
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "git-snap: %v\n", err)
		return 1
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, dir: dir, getenv: os.Getenv, lookupenv: os.LookupEnv, watch: sigs.Watch}
	// Only git-snap itself starts itself in a separate process: a test binary running
	// Main (git-snap.test) must not start itself again.
	if exe, err := os.Executable(); err == nil && strings.TrimSuffix(filepath.Base(exe), ".exe") == "git-snap" {
		e.startDetached = func(args []string, stdin []byte, extra ...string) error {
			return proc.StartDetached(exe, args, stdin, extra)
		}
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
	return e.run(sigs.Context(), args)
}
