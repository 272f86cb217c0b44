package main

import (
	"fmt"
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
		Action: func(c *cli.Context) error {
			if err := args(c, 1, 1); err != nil {
				return err
			}
			if btoi(c.Bool("user"))+btoi(c.Bool("project"))+btoi(c.Bool("local")) > 1 {
				return usagef("choose one of --user, --project and --local")
			}
			return e.runInstall(c, c.Args().First(), install)
		},
	}
}

func (e *env) runInstall(c *cli.Context, name string, install bool) error {
	exe, _ := os.Executable()
	paths, err := e.storePaths(c)
	if name == "git" {
		if err != nil {
			return err
		}
		dir := filepath.Join(paths.CommonDir, "hooks")
		return e.reportInstall(install, dir+"/post-commit", func() (bool, error) {
			if install {
				return agent.InstallGitHook(dir, agent.HookCommand(exe, "git"))
			}
			return agent.UninstallGitHook(dir)
		})
	}
	a, file, err := e.settingsFile(c, name, paths, err)
	if err != nil {
		return err
	}
	return e.reportInstall(install, file, func() (bool, error) {
		if install {
			return agent.InstallHooks(file, name, agent.HookCommand(exe, name), a.Events())
		}
		return agent.UninstallHooks(file, name)
	})
}

func (e *env) reportInstall(install bool, file string, do func() (bool, error)) error {
	changed, err := do()
	if err != nil {
		return err
	}
	switch {
	case !changed && install:
		fmt.Fprintf(e.stdout, "git-snap's hooks are already in %s\n", file)
	case !changed:
		fmt.Fprintf(e.stdout, "no git-snap hooks in %s\n", file)
	case install:
		fmt.Fprintf(e.stdout, "added git-snap's hooks to %s\n", file)
	default:
		fmt.Fprintf(e.stdout, "removed git-snap's hooks from %s\n", file)
	}
	return nil
}

// settingsFile picks the settings file of an agent and scope.
func (e *env) settingsFile(c *cli.Context, name string, paths gitstore.Paths, repoErr error) (agent.Adapter, string, error) {
	user := c.Bool("user")
	if !user && (repoErr != nil || paths.WorkTree == "") {
		return nil, "", usagef("run install inside a work tree, or use --user")
	}
	a, err := agent.Lookup(name, e.agentEnv())
	if err != nil {
		return nil, "", usagef("install knows %s and git, not %q", strings.Join(agent.Names(), ", "), name)
	}
	scope := agent.DefaultScope
	switch {
	case user:
		scope = agent.UserScope
	case c.Bool("project"):
		scope = agent.ProjectScope
	case c.Bool("local"):
		scope = agent.LocalScope
	}
	file, err := a.SettingsFile(scope, paths.WorkTree)
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	return a, file, nil
}

// agentEnv locates agents' files from this process's environment.
func (e *env) agentEnv() agent.Env {
	return agent.Env{Home: e.getenv("HOME"), Getenv: e.getenv}
}
