package agent

import (
	"path/filepath"
	"strings"
)

// HookProgram is the name of the program that records hook calls and
// links nothing else (cmd/git-snap-hook): `git-snap-hook AGENT` does what
// `git-snap hook AGENT` does, and starts in less time. Install writes it
// into personal settings when it sits beside git-snap.
const HookProgram = "git-snap-hook"

// IsHookProgram reports whether path names the hook program (with .exe
// on Windows), wherever it is.
func IsHookProgram(path string) bool {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	return strings.TrimSuffix(base, ".exe") == HookProgram
}

// HookProgramFor is the program a scope's hook commands run: git-snap
// as PATH finds it for the files a team commits (ProjectScope), never
// one machine's path to it; exe for personal ones, which is git-snap or
// the hook program beside it. An exe that will not stay (a go run
// binary) or is not known as git-snap's (renamed) is git-snap too.
func HookProgramFor(scope Scope, exe string) string {
	if scope == ProjectScope || exe == "" || strings.Contains(exe, string(filepath.Separator)+"go-build") || !strings.Contains(filepath.Base(exe), "git-snap") {
		return "git-snap"
	}
	return exe
}

// HookCommand is the command line an agent runs for git-snap's hook:
// `exe AGENT` for the hook program, `exe hook AGENT` for git-snap
// (and git-snap as PATH finds it where exe is not known to stay, see
// HookProgramFor). A path with spaces or quotes is quoted for sh.
func HookCommand(exe, agent string) string {
	return hookCommand(HookProgramFor(LocalScope, exe), agent)
}

// HookCommandFor is the hook command for a scope's settings (see
// HookProgramFor).
func HookCommandFor(scope Scope, exe, agent string) string {
	return hookCommand(HookProgramFor(scope, exe), agent)
}

func hookCommand(prog, agent string) string {
	args := " hook " + agent
	if IsHookProgram(prog) {
		args = " " + agent
	}
	if strings.ContainsAny(prog, " '\"") {
		prog = "'" + strings.ReplaceAll(prog, "'", `'\''`) + "'"
	}
	return prog + args
}

// IsHookCommand recognises a command line of git-snap's hook for agent,
// in either form and wherever the program was: `…git-snap… hook AGENT`
// or `…/git-snap-hook AGENT`, each maybe followed by more arguments (the
// event, for an agent that sends none).
func IsHookCommand(cmd, agent string) bool {
	prog, rest := SplitCommand(cmd)
	if IsHookProgram(prog) {
		return rest == agent || strings.HasPrefix(rest, agent+" ")
	}
	if !strings.Contains(cmd, "git-snap") {
		return false
	}
	_, after, ok := strings.Cut(cmd, " hook "+agent)
	return ok && (after == "" || after[0] == ' ')
}

// SplitCommand splits a hook command line into its program, unquoted the
// way HookCommand quotes it, and the arguments after it.
func SplitCommand(cmd string) (prog, rest string) {
	if !strings.HasPrefix(cmd, "'") {
		prog, rest, _ = strings.Cut(cmd, " ")
		return prog, rest
	}
	var b strings.Builder
	rest = cmd[1:]
	for {
		i := strings.IndexByte(rest, '\'')
		if i < 0 {
			return b.String() + rest, ""
		}
		b.WriteString(rest[:i])
		rest = rest[i+1:]
		if !strings.HasPrefix(rest, `\''`) {
			return b.String(), strings.TrimPrefix(rest, " ")
		}
		b.WriteByte('\'')
		rest = rest[3:]
	}
}
