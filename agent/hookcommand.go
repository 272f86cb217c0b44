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

// InNpxCache reports whether path is in npx's cache (…/_npx/<hash>/…),
// where npx installs a package to run it once, and from where npm may
// remove it: a hook command must not name a program there.
func InNpxCache(path string) bool {
	return strings.Contains(path, "/_npx/") || strings.Contains(path, `\_npx\`)
}

// HookCommand is the command line an agent runs for git-snap's hook:
// `exe AGENT` for the hook program, `exe hook AGENT` for git-snap
// (and git-snap as PATH finds it where exe is not known to stay, see
// HookProgramFor), its program written as ShellWord writes it.
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
	return ShellWord(prog) + args
}

// windowsSpecial are the characters of a Windows path that Git Bash, cmd
// or PowerShell would read as more than a letter of a name. Quotes do not
// keep $ and ` from Git Bash and PowerShell, nor % from cmd: a path with
// them does not run in all three, however it is written.
const windowsSpecial = " \t&()[]{}^=;!',`$%"

// unixSpecial are the characters sh reads as more than a letter.
const unixSpecial = " \t'\"\\$`;&|<>()*?[]{}!#~"

// ShellWord writes a program's path as one word of a command line that
// the shells an agent runs its hooks in all read back as the path. A
// Windows path (C:\…, \\server\…) is written with forward slashes, which
// Windows takes and which Git Bash, the shell Claude Code runs hooks in
// there, does not strip as it strips backslashes; in double quotes when
// it holds a space or a character special to Git Bash, cmd or
// PowerShell (PowerShell then needs & before it: see PowerShellCommand).
// A Unix path is in sh's single quotes when it needs them.
func ShellWord(prog string) string {
	if isWindowsPath(prog) {
		prog = strings.ReplaceAll(prog, `\`, "/")
		if strings.ContainsAny(prog, windowsSpecial) {
			return `"` + prog + `"`
		}
		return prog
	}
	if strings.ContainsAny(prog, unixSpecial) {
		return "'" + strings.ReplaceAll(prog, "'", `'\''`) + "'"
	}
	return prog
}

// PowerShellCommand is a hook command as PowerShell runs it: a command
// line that starts with a quoted program needs the call operator, which
// sh and cmd would not take.
func PowerShellCommand(cmd string) string {
	if strings.HasPrefix(cmd, `"`) || strings.HasPrefix(cmd, "'") {
		return "& " + cmd
	}
	return cmd
}

// isWindowsPath reports whether p is an absolute Windows path: a drive
// letter and a slash, or a UNC path.
func isWindowsPath(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
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
// way ShellWord quotes it (after PowerShell's call operator, if any), and
// the arguments after it.
func SplitCommand(cmd string) (prog, rest string) {
	cmd = strings.TrimPrefix(cmd, "& ")
	switch {
	case strings.HasPrefix(cmd, `"`):
		prog, rest, _ = strings.Cut(cmd[1:], `"`)
		return prog, strings.TrimPrefix(rest, " ")
	case !strings.HasPrefix(cmd, "'"):
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
