package cmdline

import (
	"context"
	"embed"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/atif"
)

//go:embed completion
var completionScripts embed.FS

var shells = []string{"bash", "zsh", "fish"}

func cmdCompletion(e *env) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Prints a script that completes commands, flags, session and checkpoint names and
agents, for git-snap and for git snap with git's own completion loaded. Names are
listed by the hidden command git snap __complete, from the refs alone.

Examples:
   git snap completion bash > ~/.local/share/bash-completion/completions/git-snap
   git snap completion zsh > ~/.zfunc/_git-snap    # a directory on $fpath, before compinit
   git snap completion fish > ~/.config/fish/completions/git-snap.fish`,
		Action: action(e, shape{min: 1, max: 1, open: withNothing}, parseCompletion, runCompletion),
	}
}

func parseCompletion(c *cli.Context) (string, error) {
	sh := c.Args().First()
	for _, s := range shells {
		if s == sh {
			return sh, nil
		}
	}
	return "", usagef("completion is for %s, not %q", strings.Join(shells, ", "), sh)
}

func runCompletion(_ context.Context, d *deps, shell string) error {
	b, err := completionScripts.ReadFile("completion/git-snap." + shell)
	if err != nil {
		return err
	}
	_, err = d.out.Write(b)
	return err
}

// cmdComplete is what the scripts call: git snap __complete WORD… lists
// the candidates for the last word, one a line, each "value<TAB>what
// it is"; a first line ":files" asks the shell for file names instead.
// It never fails: a repository it cannot read gives no names.
func cmdComplete(e *env) *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) > 0 && words[0] == "--" {
				words = words[1:]
			}
			if len(words) == 0 {
				words = []string{""}
			}
			names := func(kind string) []string { return e.completeNames(c, words, kind) }
			for _, line := range complete(c.App, words, names) {
				fmt.Fprintln(e.stdout, line)
			}
			return nil
		},
	}
}

// What a word may be, beyond the literal values a usage lists.
const (
	kindFiles       = "files"
	kindSessions    = "sessions"
	kindCheckpoints = "checkpoints" // bare names, for checkpoint NAME
	kindRevs        = "revs"        // sessions and snap/<session>/<name>
	kindAgents      = "agents"
)

// complete lists the candidates for the last of words, the arguments
// after git-snap.
func complete(app *cli.App, words []string, names func(kind string) []string) []string {
	cur := words[len(words)-1]
	i := 0
	for i < len(words)-1 && strings.HasPrefix(words[i], "-") { // global flags
		if takesValue(app.Flags, words[i]) && !strings.Contains(words[i], "=") {
			if i+1 == len(words)-1 {
				return values(flagKind(app.Flags, words[i]), cur, names)
			}
			i++
		}
		i++
	}
	if i == len(words)-1 {
		if strings.HasPrefix(cur, "-") {
			return flagNames(app.Flags, cur)
		}
		return commandNames(app, cur)
	}
	cmd := app.Command(words[i])
	if cmd == nil || cmd.Hidden {
		return nil
	}
	if cmd.Name == "help" {
		return commandNames(app, cur)
	}
	rest := words[i+1:]
	if n := len(rest); n >= 2 && takesValue(cmd.Flags, rest[n-2]) && strings.HasPrefix(rest[n-2], "-") && !strings.Contains(rest[n-2], "=") {
		return values(flagKind(cmd.Flags, rest[n-2]), cur, names)
	}
	if strings.HasPrefix(cur, "-") {
		return flagNames(cmd.Flags, cur)
	}
	return values(argKind(usageFor(cmd.ArgsUsage, rest), positionals(cmd, rest[:len(rest)-1])), cur, names)
}

// usageFor picks, of a usage with forms ("NAME [REV] | --list
// [SESSION]"), the form whose flag is among the words, else the first.
func usageFor(usage string, words []string) string {
	forms := strings.Split(usage, " | ")
	for _, f := range forms[1:] {
		flag, _, _ := strings.Cut(f, " ")
		if strings.HasPrefix(flag, "-") && slices.Contains(words, flag) {
			return f
		}
	}
	return forms[0]
}

// positionals counts the arguments before the current word, flags and
// their values left out.
func positionals(cmd *cli.Command, before []string) int {
	n := 0
	for j := 0; j < len(before); j++ {
		switch a := before[j]; {
		case a == "--" || !strings.HasPrefix(a, "-") || a == "-":
			if a != "--" {
				n++
			}
		case takesValue(cmd.Flags, a) && !strings.Contains(a, "="):
			j++
		}
	}
	return n
}

// argKind reads what the n-th argument is from the command's usage
// (REV, SESSION…, claude-code|codex|git): the definitions --help prints
// say what to complete.
func argKind(usage string, n int) string {
	var words []string
	for _, w := range strings.Fields(usage) {
		w = strings.Trim(w, "[]")
		if w != "|" && !strings.HasPrefix(w, "-") && w != "" {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return ""
	}
	w := words[min(n, len(words)-1)]
	if n >= len(words) && !strings.HasSuffix(w, "…") {
		return ""
	}
	w = strings.TrimSuffix(w, "…")
	switch w {
	case "REV", "A", "B":
		return kindRevs
	case "SESSION":
		return kindSessions
	case "NAME":
		return kindCheckpoints
	case "AGENT":
		return kindAgents
	}
	if strings.Contains(w, "FILE") || w == "DIR" {
		return kindFiles
	}
	if strings.Contains(w, "|") {
		return w // literal choices
	}
	return ""
}

// flagKind is what a flag's value is: by its name where that says it,
// else by the placeholder its usage gives (`FILE`, `DIR`, `AGENT`).
func flagKind(flags []cli.Flag, arg string) string {
	f := findFlag(flags, arg)
	if f == nil {
		return ""
	}
	switch f.Names()[0] {
	case "session":
		return kindSessions
	case "checkpoint":
		return kindCheckpoints
	case "color":
		return "auto|always|never"
	case "C", "store":
		return kindFiles
	case "from": // import's: an agent's transcripts, or ATIF trajectories
		return strings.Join(agent.Names(), "|") + "|" + atif.Agent
	}
	if d, ok := f.(cli.DocGenerationFlag); ok {
		switch p, _ := unquoteUsage(d.GetUsage()); p {
		case "FILE", "DIR":
			return kindFiles
		case "AGENT":
			return kindAgents
		}
	}
	return ""
}

func findFlag(flags []cli.Flag, arg string) cli.Flag {
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// values lists the candidates of a kind that start with cur.
func values(kind, cur string, names func(string) []string) []string {
	var all []string
	switch kind {
	case "":
		return nil
	case kindFiles:
		return []string{":files"}
	case kindAgents:
		all = agent.Names()
	case kindSessions, kindCheckpoints, kindRevs:
		all = names(kind)
	default:
		all = strings.Split(kind, "|")
	}
	var out []string
	for _, v := range all {
		if strings.HasPrefix(v, cur) {
			out = append(out, v)
		}
	}
	return out
}

func commandNames(app *cli.App, cur string) []string {
	var out []string
	for _, c := range app.Commands {
		if !c.Hidden && strings.HasPrefix(c.Name, cur) {
			out = append(out, c.Name+"\t"+c.Usage)
		}
	}
	return out
}

func flagNames(flags []cli.Flag, cur string) []string {
	var out []string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			_, usage = unquoteUsage(d.GetUsage())
		}
		for _, n := range f.Names() {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			if strings.HasPrefix(dash+n, cur) {
				out = append(out, dash+n+"\t"+usage)
			}
		}
	}
	return out
}

// completeNames lists sessions, checkpoints or both from the repository
// the words name (-C, --store) or the one the process is in; nothing
// when there is none.
func (e *env) completeNames(c *cli.Context, words []string, kind string) []string {
	dir, store := e.dir, e.getenv("GIT_SNAP_DIR")
	for i := 0; i+1 < len(words)-1; i++ {
		switch words[i] {
		case "-C", "--C":
			dir = e.absIn(dir, words[i+1])
		case "--store":
			store = words[i+1]
		}
	}
	paths, err := e.storePathsAt(store, dir)
	if err != nil {
		return nil
	}
	s, _, err := e.openPaths(c.Context, paths)
	if err != nil {
		return nil
	}
	defer s.Close()
	var out []string
	if kind != kindCheckpoints {
		sessions, _ := s.SessionNames(c.Context)
		out = append(out, sessions...)
		// Names given to sessions, with the first prompt they were
		// named with: what a person recognises a session by.
		aliases, _ := s.SessionAliases()
		for _, a := range aliases {
			out = append(out, a.Name+"\t"+or(a.About, "session "+a.Session))
		}
	}
	if kind != kindSessions {
		cps, _ := s.CheckpointNames(c.Context, "")
		for _, cp := range cps {
			if kind == kindCheckpoints {
				cp = cp[strings.LastIndexByte(cp, '/')+1:]
			}
			out = append(out, cp)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (e *env) absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
