package cmdline

import (
	"context"

	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/doctor"
	"github.com/git-snap/git-snap/render"

	"github.com/git-snap/git-snap/cmd/internal/hookcmd"
	"github.com/git-snap/git-snap/cmd/internal/proc"
)

func cmdDoctor(e *env) *cli.Command {
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check that capture works: hooks, commands, agents' flags, last calls, locks",
		ArgsUsage: "[AGENT…]",
		Description: `For each agent (or those named, git for git's post-commit hook): which settings files
hold git-snap's hooks, whether their command runs, what the agent needs besides (Codex:
the hooks feature, the project's trust, each hook's trust; Claude Code: no settings
file turning hooks off), and its last hook call
with its time and latency, from .git/snap/hook.log. Then the log's last errors, stale
locks, leftover temporary files, a repository shape git-snap refuses, and how a hook
call reads the work tree (through watchman, or with git status). One verdict
line per agent. Exits 1 when capture is broken, 0 otherwise.

Examples:
   git snap doctor
   git snap doctor codex --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: action(e, shape{max: -1, open: withNothing}, parseDoctor, runDoctor),
	}
}

type doctorOptions struct {
	Agents []string // nil: all
	JSON   bool
}

func parseDoctor(c *cli.Context) (doctorOptions, error) {
	o := doctorOptions{Agents: c.Args().Slice(), JSON: c.Bool("json")}
	if len(o.Agents) == 0 {
		o.Agents = nil
	}
	return o, nil
}

// errBroken makes doctor exit 1: the report above says why.
var errBroken = errors.New("capture is broken: see the report above")

// runDoctor prints doctor's report; capture broken is exit status 1.
func runDoctor(ctx context.Context, d *deps, o doctorOptions) error {
	for _, a := range o.Agents {
		if _, err := agent.Lookup(a, d.agentEnv); err != nil && a != "git" {
			return usagef("%v, and git", err)
		}
	}
	r := doctorReport(ctx, d, o.Agents)
	if o.JSON {
		if err := d.writeJSON(render.NewDoctorJSON(r)); err != nil {
			return err
		}
	} else {
		printDoctor(d.out, r)
	}
	if r.Broken {
		return errBroken
	}
	return nil
}

// doctorReport runs the checks for this process's repository and user.
func doctorReport(ctx context.Context, d *deps, agents []string) doctor.Report {
	o := doctor.Options{Env: d.agentEnv, LookPath: exec.LookPath, Agents: agents, Now: d.now(), Errors: 5,
		Version:        hookcmd.Version(),
		ProgramVersion: func(prog string) (string, error) { return proc.ProgramVersion(ctx, prog) },
		Watchman:       proc.Watchman(d.getenv)}
	if paths, err := d.pathsAt(d.workDir); err == nil {
		o.Paths = paths
		if s, _, err := d.openAt(ctx, d.workDir); err != nil {
			o.OpenErr = err
		} else {
			s.Close()
		}
	}
	return doctor.Run(ctx, o)
}

// printDoctor writes the report for a person.
func printDoctor(w io.Writer, r doctor.Report) {
	for _, a := range r.Agents {
		fmt.Fprintf(w, "%-12s %s\n", a.Agent, a.Verdict)
		for _, in := range a.Installed {
			fmt.Fprintf(w, "  hooks in %s (%d events)\n", in.File, len(in.Events))
		}
		if c := a.LastCall; c != nil {
			outcome := "ok"
			if !c.OK {
				outcome = "failed"
			}
			fmt.Fprintf(w, "  last call %s, %s, took %s, %s\n", c.Time.Local().Format(time.DateTime), c.Event, c.Latency, outcome)
		}
		printChecks(w, a.Checks)
	}
	if len(r.Repository) > 0 {
		fmt.Fprintln(w, "repository")
		printChecks(w, r.Repository)
	}
	if len(r.Errors) > 0 {
		fmt.Fprintln(w, "last errors in hook.log")
		for _, e := range r.Errors {
			fmt.Fprintf(w, "  %s %s: %s\n", e.Time.Local().Format(time.DateTime), e.Agent, e.Message)
		}
	}
}

func printChecks(w io.Writer, checks []agent.Check) {
	for _, c := range checks {
		if c.Status == agent.OK && c.Name == "command" {
			fmt.Fprintf(w, "  %-4s %s\n", c.Status, c.Detail)
			continue
		}
		fmt.Fprintf(w, "  %-4s %s: %s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" && c.Status != agent.OK {
			fmt.Fprintf(w, "       fix: %s\n", c.Fix)
		}
	}
}

// printInstallCheck ends an install with doctor's verdict for the agent.
func printInstallCheck(ctx context.Context, d *deps, name string) error {
	r := doctorReport(ctx, d, []string{name})
	for _, a := range r.Agents {
		fmt.Fprintf(d.out, "check: %s\n", a.Verdict)
		for _, c := range a.Checks {
			if c.Status == agent.Fail {
				fmt.Fprintf(d.out, "  %s: %s\n", c.Name, c.Detail)
			}
		}
	}
	return nil
}
