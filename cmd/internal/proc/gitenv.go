// Package proc is what git-snap's programs (git-snap and git-snap-hook)
// take from their process and do to it: what the environment says for
// the library, which reads none itself (git's variables, the user's
// settings folder, the time of new snapshots, where agents keep their
// files), the build's version, a process started apart, the heap's
// limit.
package proc

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
)

// GitEnv is what git's environment variables say, as getenv reads them,
// for the library, which reads none itself.
func GitEnv(getenv func(string) string) gitstore.GitEnv {
	return gitstore.GitEnv{
		GitDir:         getenv("GIT_DIR"),
		WorkTree:       getenv("GIT_WORK_TREE"),
		CommitterName:  getenv("GIT_COMMITTER_NAME"),
		CommitterEmail: getenv("GIT_COMMITTER_EMAIL"),
		Home:           Home(getenv),
		XDGConfigHome:  getenv("XDG_CONFIG_HOME"),
		ConfigNoSystem: getenv("GIT_CONFIG_NOSYSTEM") != "",
		ConfigSystem:   systemConfig(getenv),
		ConfigGlobal:   getenv("GIT_CONFIG_GLOBAL"),
		ConfigPairs:    append(parseConfigParameters(getenv("GIT_CONFIG_PARAMETERS")), configCount(getenv)...),
	}
}

// systemConfig is git's system config file: $GIT_CONFIG_SYSTEM, else
// where the git on PATH keeps it; none with $GIT_CONFIG_NOSYSTEM.
func systemConfig(getenv func(string) string) string {
	if getenv("GIT_CONFIG_NOSYSTEM") != "" {
		return ""
	}
	if f := getenv("GIT_CONFIG_SYSTEM"); f != "" {
		return f
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return ""
	}
	return gitstore.SystemConfigFile(git)
}

// Home is the user's home folder: $HOME, else $USERPROFILE, which
// Windows sets where HOME is not (git for Windows looks there too); ""
// when neither is set.
func Home(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	return getenv("USERPROFILE")
}

// UserConfigDir is where the user's settings live: $XDG_CONFIG_HOME, or
// ~/.config as the XDG base directory specification says.
func UserConfigDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if home := Home(getenv); home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// Now is the time of new snapshots: $GIT_COMMITTER_DATE when set, as git
// does, so that runs can be reproduced.
func Now(getenv func(string) string) time.Time {
	if t, ok := parseGitDate(getenv("GIT_COMMITTER_DATE")); ok {
		return t
	}
	return time.Now()
}

// AgentEnv is where agents keep their files: under the home folder
// (Home), or where their own variables say.
func AgentEnv(getenv func(string) string) agent.Env {
	return agent.Env{Home: Home(getenv), Getenv: getenv}
}

// parseConfigParameters reads $GIT_CONFIG_PARAMETERS, where git -c puts
// what it sets for the commands it runs: shell-quoted 'key'='value' or
// 'key=value' items separated by spaces. What cannot be read is skipped,
// as the rest of the line may still be good.
func parseConfigParameters(v string) []string {
	var out []string
	for v = strings.TrimSpace(v); v != ""; v = strings.TrimSpace(v) {
		key, rest, ok := sqDequote(v)
		if !ok {
			return out
		}
		var value string
		if after, isPair := strings.CutPrefix(rest, "="); isPair {
			if value, rest, ok = sqDequote(after); !ok {
				return out
			}
		} else {
			key, value, _ = strings.Cut(key, "=")
		}
		out = append(out, key, value)
		v = rest
	}
	return out
}

// sqDequote reads one single-quoted word at the start of s, with the
// '\” and '\!' escapes git writes, and returns it and what follows.
func sqDequote(s string) (word, rest string, ok bool) {
	var b strings.Builder
	for strings.HasPrefix(s, "'") {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		b.WriteString(s[1 : end+1])
		s = s[end+2:]
		if len(s) >= 3 && s[0] == '\\' && (s[1] == '\'' || s[1] == '!') && s[2] == '\'' {
			b.WriteByte(s[1]) // '\'' and '\!' between quoted parts
			s = s[2:]
			continue
		}
		return b.String(), s, true
	}
	return "", "", false
}

// configCount reads the pairs $GIT_CONFIG_COUNT numbers.
func configCount(getenv func(string) string) []string {
	n, err := strconv.Atoi(getenv("GIT_CONFIG_COUNT"))
	if err != nil || n <= 0 || n > 1000 {
		return nil
	}
	var out []string
	for i := range n {
		out = append(out, getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i)), getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i)))
	}
	return out
}

// parseGitDate reads a time the way git reads $GIT_COMMITTER_DATE:
// "@unix", "unix +zone", "@unix +zone" or RFC 3339. It returns false
// when v is empty or unreadable.
func parseGitDate(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	secs, zone, _ := strings.Cut(strings.TrimPrefix(v, "@"), " ")
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	t := time.Unix(n, 0).UTC()
	if z, err := time.Parse("-0700", zone); err == nil {
		t = t.In(z.Location())
	}
	return t, true
}
