// Package doctor checks that capture works.
//
// For each agent it reports where git-snap's hooks are installed and
// whether their command runs, anything else the agent needs (see
// agent.Needer), and when the agent last called a hook and how long the
// call took. For the repository it checks git's post-commit hook, the
// hook log's last errors, stale locks, leftover temporary files,
// repository formats git-snap refuses, and whether hook calls read the
// work tree through watchman. The command line only prints the Report.
package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-snap/git-snap/hooklog"

	"github.com/git-snap/git-snap/capture"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/codestate"
	"github.com/git-snap/git-snap/gitstore"
)

// Options says where to look. The caller fills it in from its process's
// environment, since this package reads none.
type Options struct {
	// Paths locates the repository; the zero value means there is none,
	// and only the user's settings are checked.
	Paths gitstore.Paths
	// OpenErr is why the store could not be opened, or nil when it
	// could. It is set for a repository format git-snap refuses
	// (SHA-256, reftable, …).
	OpenErr error
	Env     agent.Env
	// LookPath finds a command as the agent's shell would (exec.LookPath).
	LookPath func(file string) (string, error)
	// Agents limits the report to these agents ("git" for git's hook);
	// nil for all.
	Agents []string
	Now    time.Time
	// Errors is the number of the hook log's most recent failures to
	// report.
	Errors int
	// Version is the version git-snap-hook must report
	// (`git-snap-hook version X`, where X is git-snap's version).
	// ProgramVersion runs a program with --version and returns its
	// output. Doctor uses it to run the hook program named in each hook
	// command, to check that it runs and belongs to this git-snap. When
	// ProgramVersion is nil, the program is only looked up.
	Version        string
	ProgramVersion func(prog string) (string, error)
	// Watchman is the socket of the user's watchman server, or "" when
	// none was found. It decides whether hook calls read the work tree
	// through watchman.
	Watchman string
}

// Report holds what doctor found.
type Report struct {
	Agents     []AgentReport   `json:"agents"`
	Repository []agent.Check   `json:"repository"`
	Errors     []hooklog.Error `json:"last_errors"`
	// Broken: some agent's capture, or the repository, is broken.
	Broken bool `json:"broken"`
}

// AgentReport is one agent's part of the Report.
type AgentReport struct {
	Agent     string        `json:"agent"`
	Installed []Install     `json:"installed"`
	Checks    []agent.Check `json:"checks"`
	LastCall  *hooklog.Call `json:"last_call,omitempty"`
	Verdict   string        `json:"verdict"`
	Broken    bool          `json:"broken"`
}

// Install is a settings file (or hook script) that contains git-snap's
// hooks.
type Install struct {
	File     string   `json:"file"`
	Commands []string `json:"commands"`
	Events   []string `json:"events"`
}

// Run checks the agents o.Agents names (all when nil) and the repository
// o.Paths locates.
func Run(ctx context.Context, o Options) Report {
	r := Report{Agents: []AgentReport{}, Errors: []hooklog.Error{}}
	o.ProgramVersion = once(o.ProgramVersion)
	log := hooklog.Log{Last: map[string]hooklog.Call{}}
	var logErr error
	if o.Paths.CommonDir != "" {
		log, logErr = hooklog.Read(filepath.Join(o.Paths.CommonDir, "snap", "hook.log"), max(o.Errors, 1))
	}
	for _, a := range agent.Adapters(o.Env) {
		if o.wants(a.Name()) {
			r.Agents = append(r.Agents, checkAgent(a, o, log))
		}
	}
	for _, name := range o.Agents { // agents added by a program of their own
		if a, err := agent.Lookup(name, o.Env); err == nil && !slices.Contains(agent.Names(), name) {
			r.Agents = append(r.Agents, checkAgent(a, o, log))
		}
	}
	if o.wants("git") && o.Paths.CommonDir != "" {
		r.Agents = append(r.Agents, checkGit(ctx, o, log))
	}
	r.Repository = checkRepository(o, logErr)
	if o.Paths.WorkTree != "" {
		r.Repository = append(r.Repository, checkCodeState(ctx, o))
	}
	if o.Errors > 0 && log.Errors != nil {
		r.Errors = log.Errors
	}
	for _, a := range r.Agents {
		r.Broken = r.Broken || a.Broken
	}
	for _, c := range r.Repository {
		r.Broken = r.Broken || c.Status == agent.Fail
	}
	return r
}

func (o Options) wants(name string) bool {
	return o.Agents == nil || contains(o.Agents, name)
}

// checkAgent finds git-snap's hooks in each of the agent's settings
// files and checks them.
func checkAgent(a agent.Adapter, o Options, log hooklog.Log) AgentReport {
	r := AgentReport{Agent: a.Name(), Installed: []Install{}, Checks: []agent.Check{}}
	seen := map[string]bool{}
	for _, scope := range []agent.Scope{agent.UserScope, agent.ProjectScope, agent.LocalScope} {
		if scope != agent.UserScope && o.Paths.WorkTree == "" {
			continue
		}
		file, err := a.SettingsFile(scope, o.Paths.WorkTree)
		if err != nil || seen[file] {
			continue
		}
		seen[file] = true
		byEvent, err := agent.HookCommandsOf(a, file)
		if err != nil {
			r.Checks = append(r.Checks, agent.Check{Name: "settings", Status: agent.Fail, Detail: err.Error(), Fix: "fix " + file})
			continue
		}
		if len(byEvent) == 0 {
			continue
		}
		in := install(file, byEvent)
		r.Installed = append(r.Installed, in)
		r.Checks = append(r.Checks, checkInstall(a, in, o)...)
		if n, ok := a.(agent.Needer); ok {
			r.Checks = append(r.Checks, n.Needs(file, o.Paths.WorkTree)...)
		}
	}
	if c, ok := checkVersion(a.Name(), o); ok && len(r.Installed) > 0 {
		r.Checks = append(r.Checks, c)
	}
	if call, ok := log.Last[a.Name()]; ok {
		r.LastCall = &call
	}
	r.Verdict, r.Broken = verdict(r)
	return r
}

// install gathers a file's hooks.
func install(file string, byEvent map[string][]string) Install {
	in := Install{File: file}
	cmds := map[string]bool{}
	for ev, cs := range byEvent {
		in.Events = append(in.Events, ev)
		for _, c := range cs {
			cmds[c] = true
		}
	}
	for c := range cmds {
		in.Commands = append(in.Commands, c)
	}
	sort.Strings(in.Events)
	sort.Strings(in.Commands)
	return in
}

// checkInstall checks that each command of an install runs and that
// every event git-snap needs is there.
func checkInstall(a agent.Adapter, in Install, o Options) []agent.Check {
	var out []agent.Check
	for _, cmd := range in.Commands {
		out = append(out, checkCommand(cmd, in.File, o))
	}
	var missing []string
	for _, ev := range a.Events() {
		if !contains(in.Events, ev) {
			missing = append(missing, ev)
		}
	}
	if len(missing) > 0 {
		out = append(out, agent.Check{Name: "events", Status: agent.Warn, Detail: fmt.Sprintf("%s has no git-snap hook for %s", in.File, strings.Join(missing, ", ")),
			Fix: "git snap install " + a.Name() + " adds them"})
	}
	return out
}

// checkCommand checks that a hook command's program resolves to an
// executable file. It also runs the hook program, to check that it runs
// and has this git-snap's version.
func checkCommand(cmd, file string, o Options) agent.Check {
	prog, _ := agent.SplitCommand(cmd)
	path := prog
	var err error
	switch {
	case !strings.Contains(prog, "/") && o.LookPath == nil:
		return agent.Check{Name: "command", Status: agent.Warn, Detail: prog + ": not looked up"}
	case !strings.Contains(prog, "/"):
		path, err = o.LookPath(prog)
	default:
		err = executable(prog)
	}
	if err == nil && agent.IsHookProgram(path) && o.ProgramVersion != nil {
		var said string
		if said, err = o.ProgramVersion(path); err == nil && said != o.Version {
			return agent.Check{Name: "command", Status: agent.Warn, Detail: fmt.Sprintf("%q in %s runs %s, which says %q, not %q: the hooks run another version than this git-snap", cmd, file, path, said, o.Version),
				Fix: "install git-snap and git-snap-hook again together (see the README), then git snap install again"}
		}
	}
	if err != nil {
		return agent.Check{Name: "command", Status: agent.Fail, Detail: fmt.Sprintf("%q in %s does not run: %v", cmd, file, err),
			Fix: "run git snap install again with the git-snap you use (it repairs the command), or put git-snap on PATH"}
	}
	return agent.Check{Name: "command", Status: agent.OK, Detail: fmt.Sprintf("%q runs %s", cmd, path)}
}

// once runs f once for each program, however many commands name it.
func once(f func(prog string) (string, error)) func(prog string) (string, error) {
	if f == nil {
		return nil
	}
	type said struct {
		out string
		err error
	}
	seen := map[string]said{}
	return func(prog string) (string, error) {
		if s, ok := seen[prog]; ok {
			return s.out, s.err
		}
		out, err := f(prog)
		seen[prog] = said{out, err}
		return out, err
	}
}

// executable checks that path is a file with an execute bit. On Windows,
// where files have no execute bit, it checks only that path is a file.
func executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case fi.IsDir() || runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// verdict sums up an agent's checks in one line.
func verdict(r AgentReport) (string, bool) {
	var fails, warns []string
	for _, c := range r.Checks {
		switch c.Status {
		case agent.Fail:
			fails = append(fails, c.Detail)
		case agent.Warn:
			warns = append(warns, c.Name)
		}
	}
	switch {
	case len(fails) > 0:
		return "BROKEN: " + fails[0], true
	case len(r.Installed) == 0:
		return "not installed (git snap install " + r.Agent + ")", false
	case len(warns) > 0:
		return "installed; check " + strings.Join(warns, ", "), false
	case r.LastCall == nil:
		return "installed; no hook call recorded yet", false
	}
	return "ok", false
}

// checkGit checks git's hooks: where git runs hooks from
// (core.hooksPath) and whether git-snap's post-commit and post-rewrite
// hooks are there.
func checkGit(ctx context.Context, o Options, log hooklog.Log) AgentReport {
	r := AgentReport{Agent: "git", Installed: []Install{}, Checks: []agent.Check{}}
	loc, _ := capture.GitHooks(ctx, o.Paths, nil)
	hook := filepath.Join(loc.Dir, "post-commit")
	def := filepath.Join(o.Paths.CommonDir, "hooks")
	if cmd, found := capture.GitHookCommand(loc.Dir); found {
		r.Installed = append(r.Installed, Install{File: hook, Commands: []string{cmd}, Events: []string{"post-commit"}})
		r.Checks = append(r.Checks, checkCommand(cmd, hook, o))
		if !capture.GitRewriteHookInstalled(loc.Dir) {
			r.Checks = append(r.Checks, agent.Check{Name: "post-rewrite", Status: agent.Warn,
				Detail: fmt.Sprintf("git-snap's post-rewrite hook is not in %s: after a rebase or an amend, snapshots no longer lead to the commits that replaced those they were taken at", loc.Dir),
				Fix:    "git snap install git (it adds the hook, chained with yours)"})
		}
	} else if loc.HooksPath != "" {
		if _, inDefault := capture.GitHookCommand(def); inDefault {
			r.Checks = append(r.Checks, agent.Check{Name: "core.hooksPath", Status: agent.Fail,
				Detail: fmt.Sprintf("core.hooksPath is %s: git no longer runs git-snap's post-commit in %s", loc.HooksPath, def),
				Fix:    "git snap install git (it writes there, or says what to add to the hook manager)"})
		} else if loc.Managed != "" && managerRuns(loc.Dir) {
			r.Installed = append(r.Installed, Install{File: loc.Dir, Commands: []string{"git-snap hook git post-commit"}, Events: []string{"post-commit"}})
		}
	}
	if call, ok := log.Last["git"]; ok {
		r.LastCall = &call
	}
	r.Verdict, r.Broken = verdict(r)
	return r
}

// managerRuns reports whether a post-commit hook in a hook manager's
// directory (or, for husky's .husky/_, the directory above) runs
// git-snap.
func managerRuns(dir string) bool {
	for _, p := range []string{filepath.Join(dir, "post-commit"), filepath.Join(filepath.Dir(dir), "post-commit")} {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "git-snap hook git") {
			return true
		}
	}
	return false
}

// checkRepository checks the repository for a format git-snap refuses,
// stale locks, leftover temporary files, and a hook log it cannot read.
func checkRepository(o Options, logErr error) []agent.Check {
	out := []agent.Check{}
	if o.Paths.CommonDir == "" {
		return append(out, agent.Check{Name: "repository", Status: agent.Warn, Detail: "not in a git repository: only the user's settings were checked"})
	}
	if o.OpenErr != nil {
		out = append(out, agent.Check{Name: "repository", Status: agent.Fail, Detail: o.OpenErr.Error(), Fix: "git-snap writes only to repositories it can write safely (docs/design.md §5)"})
	}
	if logErr != nil {
		out = append(out, agent.Check{Name: "hook log", Status: agent.Warn, Detail: logErr.Error()})
	}
	in := gitstore.Inspect(o.Paths, o.Now)
	for _, l := range in.Locks {
		if l.Stale() {
			out = append(out, agent.Check{Name: "lock", Status: agent.Fail, Detail: fmt.Sprintf("%s is stale (%s, left %s ago): every write to that ref waits on it", l.Path, holder(l), l.Age.Round(time.Second)),
				Fix: "if no git or git-snap process runs here, remove it: rm " + l.Path})
			continue
		}
		out = append(out, agent.Check{Name: "lock", Status: agent.Warn, Detail: fmt.Sprintf("%s is held (%s, %s)", l.Path, holder(l), l.Age.Round(time.Second))})
	}
	if len(in.Temp) > 0 {
		out = append(out, agent.Check{Name: "temporary files", Status: agent.Warn, Detail: fmt.Sprintf("%d left by killed writers, e.g. %s", len(in.Temp), in.Temp[0]), Fix: "git snap gc removes them"})
	}
	return out
}

// checkCodeState reports how a hook call after a shell tool reads the
// work tree: through watchman, which lists what changed since the last
// call, or with git status, which reads every file.
func checkCodeState(ctx context.Context, o Options) agent.Check {
	answers, detail := codestate.Watcher(ctx, codestate.Options{Dir: o.Paths.WorkTree, Watchman: o.Watchman})
	start := "watchman watch-project " + o.Paths.WorkTree
	switch {
	case answers:
		return agent.Check{Name: "work tree", Status: agent.OK, Detail: detail + ": a hook call after a shell tool reads only the files changed since the last call"}
	case o.Watchman != "":
		return agent.Check{Name: "work tree", Status: agent.Warn, Detail: detail + ": each hook call after a shell tool runs git status, which reads every file of the work tree",
			Fix: "start it: " + start}
	}
	return agent.Check{Name: "work tree", Status: agent.OK, Detail: detail + ": each hook call after a shell tool runs git status, which reads every file of the work tree; " +
		"in a large one, install watchman (apt-get install watchman, brew install watchman) and run " + start + ", and hook calls read only what changed"}
}

func holder(l gitstore.Lock) string {
	switch {
	case l.PID == 0:
		return "no note of its holder"
	case l.Dead:
		return fmt.Sprintf("process %d is gone", l.PID)
	}
	return fmt.Sprintf("process %d", l.PID)
}
