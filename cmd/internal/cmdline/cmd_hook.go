package cmdline

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/cmd/internal/hookcmd"
)

func cmdHook(e *env) *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "record an agent's hook call (run by the agent, not by you)",
		ArgsUsage: strings.Join(agent.Names(), "|") + "|git [ARGS…]",
		Description: fmt.Sprintf(`Called by an agent's hooks (see git snap install): reads the hook payload on stdin,
and snapshots the session it names from the lines its transcript gained since the last
call. It is passive: it prints nothing, never blocks the agent, and exits 0 even when
something fails, logging to .git/snap/hook.log instead. git snap hook git post-commit
marks the sessions active in this work tree with the new commit; git snap hook git
post-rewrite records the commits an amend or a rebase rewrote (git's pairs on stdin).
git-snap-hook AGENT does the same and starts quicker, linking nothing else: git snap
install writes it into personal settings when it is installed beside git-snap.

The agents: %s
(the hooks git snap install writes name the event where the agent sends none).

Examples:
   echo "$PAYLOAD" | git snap hook claude-code
   echo "$PAYLOAD" | git snap hook gemini
   git snap hook codex '{"type":"agent-turn-complete","thread-id":"019d…"}'`, strings.Join(agent.Names(), ", ")),
		SkipFlagParsing: true,
		Action:          helpFirst(action(e, shape{max: -1, open: withNothing, protocol: true}, parseHook, runHook)),
	}
}

// helpFirst shows the command's help for -h or --help as its first
// argument, which a command that parses no flags would take as its own.
func helpFirst(next cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if a := c.Args().First(); a == "-h" || a == "--help" {
			cli.HelpPrinter(c.App.Writer, cli.CommandHelpTemplate, c.Command)
			return nil
		}
		return next(c)
	}
}

// parseHook reads the agent's name and what follows it; the rest of the
// call comes from the process (runHook).
func parseHook(c *cli.Context) (hookcmd.Process, error) {
	if c.NArg() == 0 {
		return hookcmd.Process{}, usagef("hook needs the agent: %s or git", strings.Join(agent.Names(), ", "))
	}
	return hookcmd.Process{Agent: c.Args().First(), Args: c.Args().Tail()}, nil
}

// searchMemoryLimit is the heap a search has the collector aim under: an
// index build keeps one segment's text and postings live at a time (12
// MiB), and the pack index mapped beside the heap is 31 MB at a million
// objects: under a limit of 56 MB the build's peak was still 102 MB.
const searchMemoryLimit = 48 << 20

// readMemoryLimit is the heap a command that reads whole sessions (show,
// stats, export, view) or every session's newest snapshot (sessions)
// has the collector aim under: they read a record and write a turn at a
// time, and keep of a long session only its outline (tens of bytes a
// record), of a session in a list only its line, but GOGC alone let the
// heap grow to twice its peak, garbage included (docs/design.md §8).
const readMemoryLimit = 60 << 20

// runHook records one hook call, as git-snap-hook does (hookcmd.Run). It
// is passive: what goes wrong is logged, never reported to the agent,
// which must not be held up.
func runHook(ctx context.Context, d *deps, p hookcmd.Process) error {
	p.Dir, p.DirGiven, p.Store = d.workDir, d.dirGiven, d.storeFlag
	p.Stdin, p.Stderr, p.Getenv, p.StartDetached, p.Hook = d.in, d.errOut, d.getenv, d.startDetached, []string{"hook"}
	hookcmd.Run(ctx, p)
	return nil
}
