package cmdline

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/git-snap/git-snap/cmd/internal/proc"
	"github.com/git-snap/git-snap/mcpserver"
)

type mcpOptions struct {
	AllowWrite bool
	Budget     int
}

func cmdMCP(e *env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the stored sessions to agents over MCP (stdio)",
		Description: `Runs a Model Context Protocol server on stdin and stdout, for an agent to recall
past sessions: the repository's stored history, redacted when it was saved, local and
fetched sessions alike. Agents start it themselves: git snap install AGENT --mcp
registers it in their settings. It reads only: its tools are
   list_sessions     sessions, most recently active first (as sessions), with filters
   list_snapshots    a session's snapshots, newest first (as log)
   search            lines in messages, tool calls and file paths (as search)
   show              a session, one turn (turn N) or a captured file, as Markdown
   diff              what changed between two snapshots (as diff)
   list_checkpoints  named snapshots (as checkpoint --list)
--allow-write adds checkpoint and rollback, which write to the repository; without it
no call writes history. Every answer is cut at --budget characters (65,536 by default,
as much as a pull request's description holds) and says how to read on. A bad call
(an argument a tool does not take, a pattern that cannot be searched) is answered with
an error that says what to fix; the server keeps running.

Examples:
   git snap mcp
   git snap mcp --allow-write
   git snap install claude-code --mcp    # how Claude Code starts it
   codex mcp add git-snap -- git snap mcp`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "allow-write", Usage: "add the tools that write to the repository: checkpoint and rollback"},
			&cli.IntFlag{Name: "budget", Value: mcpserver.DefaultBudget, Usage: "cut each answer at `N` characters"},
		},
		Action: action(e, shape{protocol: true}, parseMCP, runMCP),
	}
}

func parseMCP(c *cli.Context) (mcpOptions, error) {
	o := mcpOptions{AllowWrite: c.Bool("allow-write"), Budget: c.Int("budget")}
	if o.Budget < 1024 {
		return o, usagef("--budget %d: give at least 1024 characters", o.Budget)
	}
	return o, nil
}

// runMCP serves the store on stdin and stdout until the client closes
// stdin or ctx ends.
func runMCP(ctx context.Context, d *deps, o mcpOptions) error {
	proc.LimitMemory(searchMemoryLimit)
	table, err := d.prices()
	if err != nil {
		return err
	}
	if f, ok := d.in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintln(d.errOut, "git snap mcp: an MCP server, reading JSON-RPC on stdin; agents start it themselves (git snap install AGENT --mcp). Ctrl-D ends it.")
	}
	srv, err := mcpserver.New(mcpserver.Options{
		Repo: d.repo, AllowWrite: o.AllowWrite, Budget: o.Budget, Prices: table, Now: d.now,
		Version: proc.Version(),
		CodeState: func(ctx context.Context) (string, bool, error) {
			code, err := d.repo.CodeState(ctx, d.dir, false)
			if err != nil || code.Commit.IsZero() {
				return "", false, err
			}
			return code.Commit.String(), code.Dirty, nil
		},
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	return srv.Serve(ctx, d.in, d.out)
}
