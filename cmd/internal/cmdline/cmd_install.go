package cmdline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/capture"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"

	"github.com/git-snap/git-snap/cmd/internal/hookcmd"
	"github.com/git-snap/git-snap/cmd/internal/proc"
)

// installGit adds git-snap's post-commit hook where git runs hooks
// (core.hooksPath when set), or says what to add to the hook manager
// that owns that folder.
func installGit(ctx context.Context, d *deps, o installOptions, paths gitstore.Paths, exe string) error {
	loc, err := capture.GitHooks(ctx, paths, nil)
	if err != nil {
		return err
	}
	if o.Install && loc.Managed != "" {
		fmt.Fprintf(d.out, "core.hooksPath is %s, %s\n", loc.Dir, loc.Managed)
		return usagef("git-snap's post-commit hook was not installed: add it as said above, then git snap doctor checks it")
	}
	if o.Install {
		if err := mustStay(agent.HookProgramFor(agent.LocalScope, exe)); err != nil {
			return err
		}
	}
	command := agent.HookCommandFor(agent.LocalScope, exe, "git")
	return reportInstall(d.out, o.Install, filepath.Join(loc.Dir, "post-commit"), func() (bool, error) {
		if o.Install {
			return capture.InstallGitHook(loc.Dir, command)
		}
		return capture.UninstallGitHook(loc.Dir)
	})
}

func cmdInstall(e *env, install bool) *cli.Command {
	name, verb, usage := "install", "add git-snap's hooks to", "add git-snap's hooks to an agent's settings or git, or install the manual pages"
	if !install {
		name, verb, usage = "uninstall", "remove git-snap's hooks (only those) from", "remove git-snap's hooks (only those) from an agent's settings or git, or the manual pages"
	}
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: strings.Join(agent.Names(), "|") + "|git|man",
		Description: fmt.Sprintf(`%s each agent's file:
%s   git          post-commit and post-rewrite hooks chained with any hook already there
Every other setting and hook is kept; installing twice changes nothing. Codex runs the
hooks only in a trusted project and once each hook is trusted: install records both
in ~/.codex/config.toml (uninstall removes the hooks' trust), or says what to add.
--mcp registers git snap mcp, the MCP server over the stored sessions, instead of the
hooks: Claude Code's .mcp.json (--project) or ~/.claude.json (--user, and --local, the
default, under the project's entry), Codex's [mcp_servers.git-snap] in config.toml beside
its hooks, Gemini CLI's mcpServers in its settings.json, Copilot CLI's
~/.copilot/mcp-config.json (--user), OpenCode's mcp in opencode.json.
man: the manual pages git-snap(1) and
git-snap-<command>(1) into DIR/man1 (--prefix, default ~/.local/share/man), for git help snap.

Examples:
   git snap install claude-code
   git snap install codex --user
   git snap install git
   git snap install claude-code --mcp --project   # the MCP server in .mcp.json
   git snap install man --prefix /usr/local/share/man
   git snap uninstall claude-code --project`, verb, agentSettingsHelp(agent.Agents())),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "user", Usage: "the user's settings, for every project"},
			&cli.BoolFlag{Name: "project", Usage: "the project's shared settings"},
			&cli.BoolFlag{Name: "local", Usage: "the project's personal settings (Claude Code)"},
			&cli.StringFlag{Name: "prefix", Usage: "with man: install into `DIR`/man1 (default: $XDG_DATA_HOME/man, ~/.local/share/man)"},
			&cli.BoolFlag{Name: "mcp", Usage: "git-snap's MCP server (git snap mcp) in the agent's settings instead of its hooks: " + strings.Join(mcpAgents(), ", ")},
		},
		Action: action(e, shape{min: 1, max: 1, open: withNothing}, func(c *cli.Context) (installOptions, error) {
			o, err := parseInstall(c, install)
			if err == nil && o.Agent != "man" && c.IsSet("prefix") {
				err = usagef("--prefix is for %s man", name)
			}
			if err == nil && o.Agent == "man" {
				o.Man, err = parseInstallMan(c, e)
			}
			if err == nil && o.MCP && (o.Agent == "man" || o.Agent == "git") {
				err = usagef("--mcp is for an agent: %s", strings.Join(mcpAgents(), ", "))
			}
			return o, err
		}, runInstall),
	}
}

type installOptions struct {
	Agent   string // an agent.Names() name, git or man
	Install bool   // false: uninstall
	Scope   agent.Scope
	User    bool
	Man     manOptions // for man
	MCP     bool       // the MCP server's entry, not the hooks
}

func parseInstall(c *cli.Context, install bool) (installOptions, error) {
	if btoi(c.Bool("user"))+btoi(c.Bool("project"))+btoi(c.Bool("local")) > 1 {
		return installOptions{}, usagef("choose one of --user, --project and --local")
	}
	o := installOptions{Agent: c.Args().First(), Install: install, Scope: agent.DefaultScope, User: c.Bool("user"), MCP: c.Bool("mcp")}
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
// removes them, keeping everything else; an install ends with the
// agent's check from doctor.
func runInstall(ctx context.Context, d *deps, o installOptions) error {
	if o.Agent == "man" {
		return runInstallMan(d, o.Install, o.Man)
	}
	exe := installExe()
	paths, err := d.pathsAt(d.workDir)
	if o.MCP {
		return installMCP(d, o, paths, err, exe)
	}
	if o.Install {
		exe = hookExe(ctx, d, exe)
	}
	if o.Agent == "git" {
		if err != nil {
			return err
		}
		return installGit(ctx, d, o, paths, exe)
	}
	a, file, err := settingsFile(d, o, paths, err)
	if err != nil {
		return err
	}
	shared := agent.Shared(a, o.Scope, paths.WorkTree)
	scope := agent.LocalScope
	if shared {
		scope = agent.ProjectScope
	}
	if o.Install {
		if err := mustStay(agent.HookProgramFor(scope, exe)); err != nil {
			return err
		}
	}
	command := agent.HookCommandFor(scope, exe, o.Agent)
	if c, ok := a.(agent.Codex); ok {
		if err := c.CheckConfigs(file); err != nil {
			return err
		}
		if !o.Install {
			if err := untrustCodex(d, c, file); err != nil {
				return err
			}
		}
	}
	err = reportInstall(d.out, o.Install, file, func() (bool, error) {
		if o.Install {
			return agent.Install(a, file, command)
		}
		return agent.Uninstall(a, file)
	})
	if err != nil {
		return err
	}
	if err := installExtras(d, o, a, file, scope, exe, paths); err != nil {
		return err
	}
	if !o.Install {
		return nil
	}
	if shared {
		fmt.Fprintf(d.out, "the hooks run %q as PATH finds it: everyone who shares %s needs git-snap on PATH\n", command, filepath.Base(file))
	}
	return printInstallCheck(ctx, d, o.Agent)
}

// mcpAgents are the agents install --mcp registers the server with.
func mcpAgents() []string {
	var out []string
	for _, name := range agent.Names() {
		if a, err := agent.Lookup(name, agent.Env{}); err == nil {
			if _, ok := a.(agent.MCPHost); ok {
				out = append(out, name)
			}
		}
	}
	return out
}

// installMCP registers git-snap's MCP server in the agent's settings, or
// removes it, keeping everything else.
func installMCP(d *deps, o installOptions, paths gitstore.Paths, repoErr error, exe string) error {
	if !o.User && (repoErr != nil || paths.WorkTree == "") {
		return usagef("run install --mcp inside a work tree, or use --user")
	}
	if err := d.needHome(); err != nil {
		return err
	}
	a, err := agent.Lookup(o.Agent, d.agentEnv)
	if err != nil {
		return usagef("install --mcp knows %s, not %q", strings.Join(mcpAgents(), ", "), o.Agent)
	}
	host, ok := a.(agent.MCPHost)
	if !ok {
		return usagef("install --mcp knows %s; for %s, add the command git-snap mcp as an MCP server (stdio) in its settings by hand", strings.Join(mcpAgents(), ", "), o.Agent)
	}
	cfg, err := host.MCPConfig(o.Scope, paths.WorkTree)
	if err != nil {
		return usagef("%v", err)
	}
	program := agent.MCPProgram(cfg, exe)
	if o.Install {
		if err := mustStay(program); err != nil {
			return err
		}
	}
	var changed bool
	if o.Install {
		changed, err = agent.InstallMCP(cfg, program)
	} else {
		changed, err = agent.UninstallMCP(cfg)
	}
	if err != nil {
		return err
	}
	w := d.out
	switch {
	case !changed && o.Install:
		fmt.Fprintf(w, "git-snap's MCP server is already in %s\n", cfg.File)
	case !changed:
		fmt.Fprintf(w, "no git-snap MCP server in %s\n", cfg.File)
	case o.Install:
		fmt.Fprintf(w, "added git-snap's MCP server (%s mcp) to %s\n", program, cfg.File)
	default:
		fmt.Fprintf(w, "removed git-snap's MCP server from %s\n", cfg.File)
	}
	if o.Install {
		if cfg.Shared {
			fmt.Fprintf(w, "it runs %q as PATH finds it: everyone who shares %s needs git-snap on PATH\n", program+" mcp", filepath.Base(cfg.File))
		}
		if cfg.Note != "" {
			fmt.Fprintf(w, "note: %s\n", cfg.Note)
		}
	}
	return nil
}

// installExe is this binary's path, for the hooks of personal settings;
// "" when unknown.
func installExe() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// mustStay refuses to write prog into settings when it is a path that
// will not stay: npx runs git-snap from its cache, which npm clears, and
// the hooks would then stop recording without a word.
func mustStay(prog string) error {
	if !agent.InNpxCache(prog) {
		return nil
	}
	return usagef("git-snap runs from npx's cache (%s), which npm may clear: the hooks would stop recording. Install git-snap for good (npm install -g git-snap, or another way the README gives), then run git snap install again; nothing was written", filepath.Dir(prog))
}

// hookExe is the program the hooks of personal settings run: the hook
// program installed beside git-snap (exe), which starts in less time,
// when it answers with git-snap's version; else git-snap itself. One of
// another version (git-snap updated alone) is said, and not used: a hook
// call must do what this git-snap does.
func hookExe(ctx context.Context, d *deps, exe string) string {
	if exe == "" {
		return exe
	}
	name := agent.HookProgram
	if strings.HasSuffix(exe, ".exe") {
		name += ".exe"
	}
	prog := filepath.Join(filepath.Dir(exe), name)
	if _, err := os.Stat(prog); err != nil {
		return exe
	}
	got, err := proc.ProgramVersion(ctx, prog)
	if want := hookcmd.Version(); err != nil || got != want {
		if err == nil {
			err = fmt.Errorf("it says %q, not %q", got, want)
		}
		fmt.Fprintf(d.out, "note: %s is not used (%v): the hooks run git-snap hook; install both programs again to use it\n", prog, err)
		return exe
	}
	return prog
}

// installExtras does what an agent needs beside its hooks: the personal
// settings file kept out of git, Codex's notify program, and what the
// agent needs before the hooks run, printed.
func installExtras(d *deps, o installOptions, a agent.Adapter, file string, scope agent.Scope, exe string, paths gitstore.Paths) error {
	if o.Install && scope == agent.LocalScope && paths.WorkTree != "" && strings.HasPrefix(file, paths.WorkTree+string(filepath.Separator)) {
		added, err := agent.ExcludeLocal(paths.CommonDir, paths.WorkTree, file)
		if err != nil {
			return err
		}
		if added {
			fmt.Fprintf(d.out, "added %s to .git/info/exclude\n", strings.TrimPrefix(file, paths.WorkTree+string(filepath.Separator)))
		}
	}
	if c, ok := a.(agent.Codex); ok {
		if err := installNotify(d, o, c, file, scope, exe); err != nil {
			return err
		}
		if o.Install {
			if err := trustCodex(d, c, file, paths.WorkTree); err != nil {
				return err
			}
		}
	}
	if g, ok := a.(agent.Gemini); ok && o.Install {
		if err := trustGemini(d, g, file, paths.WorkTree); err != nil {
			return err
		}
	}
	if c, ok := a.(agent.Copilot); ok && o.Install {
		if err := trustCopilot(d, c, file, paths.WorkTree); err != nil {
			return err
		}
	}
	if n, ok := a.(agent.Needer); ok && o.Install {
		for _, c := range n.Needs(file, paths.WorkTree) {
			if c.Status != agent.OK {
				fmt.Fprintf(d.out, "%s needs: %s\n", a.Name(), c.Fix)
			}
		}
	}
	return nil
}

// trustCodex records in the user's config.toml the trust Codex needs
// before it runs git-snap's hooks in file (the project's, each hook's),
// or says what to add where the file is of a shape git-snap does not
// edit.
func trustCodex(d *deps, c agent.Codex, file, workTree string) error {
	changes, err := c.Trust(file, workTree)
	for _, ch := range changes {
		if ch.Done {
			fmt.Fprintf(d.out, "trusted %s in %s\n", ch.What, c.UserConfig())
			continue
		}
		fmt.Fprintf(d.out, "codex needs %s trusted: add to %s\n%s\n", ch.What, c.UserConfig(), indent(ch.Manual, "    "))
	}
	return err
}

// trustGemini trusts the project's folder in the user's
// trustedFolders.json when Gemini CLI would otherwise ignore its
// settings and so git-snap's hooks there, or says what to add.
func trustGemini(d *deps, g agent.Gemini, file, workTree string) error {
	ch, err := g.TrustFolder(file, workTree)
	switch {
	case err != nil:
		return err
	case ch.Done:
		fmt.Fprintf(d.out, "trusted %s in %s\n", ch.What, g.TrustedFolders())
	case ch.Manual != "":
		fmt.Fprintf(d.out, "gemini needs %s trusted: add to %s\n%s\n", ch.What, g.TrustedFolders(), indent(ch.Manual, "    "))
	}
	return nil
}

// trustCopilot adds the repository to the trusted folders of the user's
// config.json, without which Copilot CLI loads none of its hooks, or says
// what to add.
func trustCopilot(d *deps, c agent.Copilot, file, workTree string) error {
	ch, err := c.TrustFolder(file, workTree)
	switch {
	case err != nil:
		return err
	case ch.Done:
		fmt.Fprintf(d.out, "trusted %s in %s\n", ch.What, c.UserConfig())
	case ch.Manual != "":
		fmt.Fprintf(d.out, "copilot needs %s trusted: add to %s\n%s\n", ch.What, c.UserConfig(), indent(ch.Manual, "    "))
	}
	return nil
}

// untrustCodex removes the trust git-snap recorded for its hooks in
// file, before they go.
func untrustCodex(d *deps, c agent.Codex, file string) error {
	n, err := c.Untrust(file)
	if n > 0 {
		fmt.Fprintf(d.out, "removed the trust of git-snap's %d hooks from %s\n", n, c.UserConfig())
	}
	return err
}

// indent puts prefix before each line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// installNotify writes or removes git-snap as Codex's notify program, in
// the config.toml beside a hooks file of the user's. A project's
// config.toml may not set notify (Codex 0.169 ignores it there and warns
// at each start), so a project install removes one git-snap wrote there.
func installNotify(d *deps, o installOptions, c agent.Codex, file string, scope agent.Scope, exe string) error {
	config := c.ConfigFile(file)
	if !o.Install || o.Scope != agent.UserScope {
		removed, err := agent.UninstallNotify(config)
		if removed {
			fmt.Fprintf(d.out, "removed git-snap's notify from %s\n", config)
		}
		return err
	}
	changed, note, err := agent.InstallNotify(config, agent.HookProgramFor(scope, exe))
	switch {
	case err != nil:
		return err
	case note != "":
		fmt.Fprintf(d.out, "note: %s\n", note)
	case changed:
		fmt.Fprintf(d.out, "set git-snap as notify in %s\n", config)
	}
	return nil
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
	if err := d.needHome(); err != nil {
		return nil, "", err
	}
	a, err := agent.Lookup(o.Agent, d.agentEnv)
	if errors.Is(err, agent.ErrUnknownAgent) {
		add := fmt.Sprintf("; a program %s%s on PATH would add it (see docs/agents.md)", agent.ExternalPrefix, o.Agent)
		if snapshot.CheckName("agent", o.Agent) != nil {
			add = " (an agent's name is letters, digits, '.', '_' and '-')"
		}
		return nil, "", usagef("install knows %s and git, not %q%s", strings.Join(agent.Names(), ", "), o.Agent, add)
	}
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	file, err := a.SettingsFile(o.Scope, paths.WorkTree)
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	if err := inProject(file, paths.WorkTree, a.Events()); err != nil {
		return nil, "", err
	}
	return a, file, nil
}

// inProject refuses a settings file of the project (or a hook file in
// its hooks folder, one per event) whose links lead out of the work
// tree: a repository could commit one, and install would then write
// wherever it points. Files of the home are the user's own, and may
// link anywhere.
func inProject(file, workTree string, events []string) error {
	rel, err := filepath.Rel(workTree, file)
	if workTree == "" || err != nil || !filepath.IsLocal(rel) {
		return nil
	}
	root, err := filepath.EvalSymlinks(workTree)
	if err != nil {
		return nil
	}
	files := []string{file}
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		for _, ev := range events {
			files = append(files, filepath.Join(file, ev))
		}
	}
	for _, f := range files {
		to := resolvePath(f, 0)
		if r, err := filepath.Rel(root, to); err != nil || !filepath.IsLocal(r) {
			return usagef("%s leads out of the project, to %s: install writes a project's settings only inside it; replace the link with a file, or use --user; nothing was written", f, to)
		}
	}
	return nil
}

// resolvePath is where path leads through its symbolic links, a link
// to a file not yet made included.
func resolvePath(path string, depth int) string {
	for ; depth < 40; depth++ {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	if r, err := filepath.EvalSymlinks(path); err == nil || depth >= 40 {
		return cmp.Or(r, path)
	}
	dir := filepath.Dir(path)
	if dir == path {
		return path
	}
	return filepath.Join(resolvePath(dir, depth+1), filepath.Base(path))
}

// agentEnv locates agents' files from this process's environment.
func (e *env) agentEnv() agent.Env { return proc.AgentEnv(e.getenv) }

// needHome refuses a command that reads or writes agents' files, which
// are under the home folder, when no variable names it: a path would be
// joined onto "" and name a file in the working directory instead.
func (d *deps) needHome() error {
	if d.agentEnv.Home != "" {
		return nil
	}
	return usagef("neither HOME nor USERPROFILE is set: set HOME to your home folder, where agents keep their settings and transcripts; nothing was written")
}

// agentSettingsHelp lists each agent's settings files, as its adapter
// declares them (agent.Agents), wrapped under the agent's name.
func agentSettingsHelp(agents []agent.Info) string {
	var b strings.Builder
	for _, in := range agents {
		line := fmt.Sprintf("   %-12s ", in.Name)
		for _, w := range strings.Fields(in.Settings) {
			if len(line)+1+len(w) > 87 {
				b.WriteString(strings.TrimRight(line, " ") + "\n")
				line = strings.Repeat(" ", 16)
			}
			line += w + " "
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}
