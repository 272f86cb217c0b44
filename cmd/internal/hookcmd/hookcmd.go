// Package hookcmd runs a hook call from a program. Run builds the
// hook.Call that git snap hook and git-snap-hook make from their command
// line and environment, and Main is git-snap-hook's own command line.
//
// git-snap-hook is the program the hooks of personal settings run. It
// does what git snap hook does and links only what a hook call uses, so
// that each call, made on every tool call of an agent, starts as quickly
// as a Go program can (docs/design.md §7): no command line library, no
// renderer, no server.
package hookcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/hook"
)

// Program is the hook program's name; git runs it as git snap-hook.
const Program = agent.HookProgram

// Version returns what the hook program prints for --version. install
// and doctor compare it with the output of the hook program installed
// next to git-snap.
func Version() string { return Program + " version " + proc.Version() }

// Process holds a hook call's parsed command line and what the program
// knows about its process.
type Process struct {
	// Agent is the agent's name (or git), and Args the arguments that
	// follow it.
	Agent string
	Args  []string
	// Dir is -C's directory, made absolute, else the working directory.
	// DirGiven reports whether -C or Store said where to record.
	Dir      string
	DirGiven bool
	// Store is --store as given (relative to Dir), else $GIT_SNAP_DIR.
	Store  string
	Stdin  io.Reader
	Stderr io.Writer
	Getenv func(string) string
	// StartDetached starts this program again in a detached process,
	// with args after its name. It is nil where that is not possible (a
	// test running the call in-process).
	StartDetached func(args []string, stdin []byte, extra ...string) error
	// Hook is the arguments before the agent's name in this program's
	// command line: "hook" for git-snap, nothing for git-snap-hook.
	Hook []string
}

// Run records the hook call p with hook.Run. Like hook.Run it never
// fails: errors are logged.
func Run(ctx context.Context, p Process) {
	proc.LimitMemory(proc.StepMemoryLimit)
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	c := hook.Call{
		Agent: p.Agent, Args: p.Args, Stdin: p.Stdin, Dir: p.Dir, DirGiven: p.DirGiven, Store: p.Store,
		Repo: gitsnap.Options{
			UserConfigDir: proc.UserConfigDir(p.Getenv),
			GitEnv:        proc.GitEnv(p.Getenv),
			Warnf:         func(f string, a ...any) { fmt.Fprintf(p.Stderr, "git-snap: warning: "+f+"\n", a...) },
			Now:           func() time.Time { return proc.Now(p.Getenv) },
			Watchman:      proc.Watchman(p.Getenv),
		},
		AgentEnv:     proc.AgentEnv(p.Getenv),
		FollowUp:     p.Getenv(hook.FollowUpVar) != "",
		FollowUpFrom: followUpFrom(p.Getenv(hook.FollowUpVar)),
		Stderr:       p.Stderr,
		Export:       proc.Export,
	}
	if p.StartDetached != nil {
		c.StartDetached = func(args []string, stdin []byte, extra ...string) error {
			return p.StartDetached(append(p.followUpArgs(), args...), stdin, extra...)
		}
	}
	hook.Run(ctx, c)
}

// followUpFrom parses the value of hook.FollowUpVar, returning 0 when it
// is not a valid size.
func followUpFrom(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// followUpArgs returns the follow-up call's command line before the
// agent's name: where this call was told to record, then Hook.
func (p Process) followUpArgs() []string {
	var out []string
	if p.DirGiven { // otherwise the payload's cwd decides, as it did here
		out = append(out, "-C", p.Dir)
	}
	if p.Store != "" {
		out = append(out, "--store", p.Store)
	}
	return append(out, p.Hook...)
}

// usage is git-snap-hook's help.
const usage = `usage: git-snap-hook [-C DIR] [--store DIR] AGENT|git [ARGS…]

Records an agent's hook call as git snap hook does (see git snap hook --help):
reads the hook payload on stdin, snapshots the session it names, prints nothing
and exits 0, logging failures to .git/snap/hook.log. git snap install writes it
into the hooks of personal settings when it is installed beside git-snap.

The agents: %s

   -C DIR         run as if started in DIR
   --store DIR    keep snapshots in the repository at DIR; also $GIT_SNAP_DIR
   --version      print the version
`

// Main runs git-snap-hook with args (without the program name) and
// returns its exit status: 0, even when the call failed (the failure is
// logged), or 2 for a command line it cannot parse.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", Program, err)
		return 1
	}
	p := Process{Dir: dir, Stdin: stdin, Stderr: stderr, Getenv: os.Getenv}
	done, code := p.parse(args, stdout, stderr)
	if done {
		return code
	}
	if exe, err := os.Executable(); err == nil && strings.TrimSuffix(filepath.Base(exe), ".exe") == Program {
		p.StartDetached = func(args []string, stdin []byte, extra ...string) error {
			return proc.StartDetached(exe, args, stdin, extra)
		}
	}
	ctx, stop := proc.WatchSignals(stderr, os.Exit)
	defer stop()
	Run(ctx, p)
	return 0
}

// parse parses the command line into p. It returns done, with the exit
// status, for --version, --help and a command line it cannot parse.
func (p *Process) parse(args []string, stdout, stderr io.Writer) (done bool, code int) {
	fail := func(format string, a ...any) (bool, int) {
		fmt.Fprintf(stderr, "%s: %s\n", Program, fmt.Sprintf(format, a...))
		fmt.Fprintf(stderr, "usage: %s [-C DIR] [--store DIR] AGENT|git [ARGS…]\n", Program)
		return true, 2
	}
	var dirFlag, store string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		name, value, inline := strings.Cut(args[0], "=")
		switch name {
		case "--version":
			fmt.Fprintln(stdout, Version())
			return true, 0
		case "-h", "--help":
			fmt.Fprintf(stdout, usage, strings.Join(agent.Names(), ", "))
			return true, 0
		case "-C", "--store":
			if !inline {
				if len(args) < 2 {
					return fail("%s needs a directory", name)
				}
				value, args = args[1], args[1:]
			}
			if name == "-C" {
				dirFlag = value
			} else {
				store = value
			}
		case "--":
			args = args[1:]
			if len(args) == 0 {
				return fail("name the agent: %s or git", strings.Join(agent.Names(), ", "))
			}
			return p.set(dirFlag, store, args), 0
		default:
			return fail("unknown option %s", args[0])
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return fail("name the agent: %s or git", strings.Join(agent.Names(), ", "))
	}
	return p.set(dirFlag, store, args), 0
}

// set fills p from the flags and the call's arguments.
func (p *Process) set(dirFlag, store string, args []string) bool {
	if dirFlag != "" {
		if !filepath.IsAbs(dirFlag) {
			dirFlag = filepath.Join(p.Dir, dirFlag)
		}
		p.Dir = dirFlag
	}
	if store == "" {
		store = p.Getenv("GIT_SNAP_DIR")
	}
	p.Store, p.DirGiven = store, dirFlag != "" || store != ""
	p.Agent, p.Args = args[0], args[1:]
	return false
}
