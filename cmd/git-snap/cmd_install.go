package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
)

func cmdInstall(e *env, install bool) *cli.Command {
	name, verb := "install", "add git-snap's hooks to"
	if !install {
		name, verb = "uninstall", "remove git-snap's hooks (only those) from"
	}
	return &cli.Command{
		Name:      name,
		Usage:     verb + " an agent's settings, or git",
		ArgsUsage: "claude-code|codex|git",
		Description: fmt.Sprintf(`%s: claude-code into .claude/settings.local.json (--local, the default),
.claude/settings.json (--project) or ~/.claude/settings.json (--user); codex into
.codex/hooks.json (--project, the default) or ~/.codex/hooks.json (--user); git as a
post-commit hook chained with any hook already there. Every other setting and hook is
kept; installing twice changes nothing.

Examples:
   git snap install claude-code
   git snap install codex --user
   git snap install git
   git snap uninstall claude-code --project`, verb),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "user", Usage: "the user's settings, for every project"},
			&cli.BoolFlag{Name: "project", Usage: "the project's shared settings"},
			&cli.BoolFlag{Name: "local", Usage: "the project's personal settings (Claude Code)"},
		},
		Action: action(e, shape{min: 1, max: 1, open: withNothing}, func(c *cli.Context) (installOptions, error) {
			return parseInstall(c, install)
		}, runInstall),
	}
}

type installOptions struct {
	Agent   string // claude-code, codex, git
	Install bool   // false: uninstall
	Scope   agent.Scope
	User    bool
}

func parseInstall(c *cli.Context, install bool) (installOptions, error) {
	if btoi(c.Bool("user"))+btoi(c.Bool("project"))+btoi(c.Bool("local")) > 1 {
		return installOptions{}, usagef("choose one of --user, --project and --local")
	}
	o := installOptions{Agent: c.Args().First(), Install: install, Scope: agent.DefaultScope, User: c.Bool("user")}
	switch {
	case o.User:
		o.Scope = agent.UserScope
	case c.Bool("project"):
		o.Scope = agent.ProjectScope
	case c.Bool("local"):
		o.Scope = agent.LocalScope
	}
	return o, nil
}

// runInstall adds git-snap's hooks to an agent's settings or to git, or
// removes them, keeping everything else.
func runInstall(_ context.Context, d *deps, o installOptions) error {
	exe, _ := os.Executable()
	paths, err := d.pathsAt(d.workDir)
	if o.Agent == "git" {
		if err != nil {
			return err
		}
		dir := filepath.Join(paths.CommonDir, "hooks")
		return reportInstall(d.out, o.Install, dir+"/post-commit", func() (bool, error) {
			if o.Install {
				return agent.InstallGitHook(dir, agent.HookCommand(exe, "git"))
			}
			return agent.UninstallGitHook(dir)
		})
	}
	a, file, err := settingsFile(d, o, paths, err)
	if err != nil {
		return err
	}
	return reportInstall(d.out, o.Install, file, func() (bool, error) {
		if o.Install {
			return agent.Install(a, file, agent.HookCommand(exe, o.Agent))
		}
		return agent.Uninstall(a, file)
	})
}

func reportInstall(w io.Writer, install bool, file string, do func() (bool, error)) error {
	changed, err := do()
	if err != nil {
		return err
	}
	switch {
	case !changed && install:
		fmt.Fprintf(w, "git-snap's hooks are already in %s\n", file)
	case !changed:
		fmt.Fprintf(w, "no git-snap hooks in %s\n", file)
	case install:
		fmt.Fprintf(w, "added git-snap's hooks to %s\n", file)
	default:
		fmt.Fprintf(w, "removed git-snap's hooks from %s\n", file)
	}
	return nil
}

// settingsFile picks the settings file of an agent and scope.
func settingsFile(d *deps, o installOptions, paths gitstore.Paths, repoErr error) (agent.Adapter, string, error) {
	if !o.User && (repoErr != nil || paths.WorkTree == "") {
		return nil, "", usagef("run install inside a work tree, or use --user")
	}
	a, err := agent.Lookup(o.Agent, d.agentEnv)
	if err != nil {
		return nil, "", usagef("install knows %s and git, not %q", strings.Join(agent.Names(), ", "), o.Agent)
	}
	file, err := a.SettingsFile(o.Scope, paths.WorkTree)
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	return a, file, nil
}

// agentEnv locates agents' files from this process's environment.
func (e *env) agentEnv() agent.Env {
	return agent.Env{Home: e.getenv("HOME"), Getenv: e.getenv}
}
