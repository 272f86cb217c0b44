// Package proc holds what git-snap's programs (git-snap and
// git-snap-hook) need from their process and do to it. It reads the
// environment for the library, which reads none itself: git's
// variables, the user's settings directory, the time of new snapshots,
// and where agents keep their files. It also reports the build's
// version, starts background processes, handles signals and sets the
// heap limit.
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

// GitEnv reads git's environment variables through getenv, for the
// library, which reads none itself.
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

// systemConfig returns the path of git's system config file:
// $GIT_CONFIG_SYSTEM, else where the git on PATH keeps it, or "" when
// $GIT_CONFIG_NOSYSTEM is set.
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

// Home returns the user's home directory: $HOME, else $USERPROFILE,
// which Windows sets instead of HOME (git for Windows looks there too),
// or "" when neither is set.
func Home(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	return getenv("USERPROFILE")
}

// UserConfigDir returns the directory of the user's settings:
// $XDG_CONFIG_HOME, or ~/.config as the XDG base directory specification
// says.
func UserConfigDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if home := Home(getenv); home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// Now returns the time to give new snapshots: $GIT_COMMITTER_DATE when
// set, as git does, so that runs can be reproduced.
func Now(getenv func(string) string) time.Time {
	if t, ok := parseGitDate(getenv("GIT_COMMITTER_DATE")); ok {
		return t
	}
	return time.Now()
}

// AgentEnv returns where agents keep their files: under the home
// directory (Home), or where their own variables say.
func AgentEnv(getenv func(string) string) agent.Env {
	return agent.Env{Home: Home(getenv), Getenv: getenv}
}

// parseConfigParameters parses $GIT_CONFIG_PARAMETERS, where git -c
// passes its settings to the commands it runs: shell-quoted
// 'key'='value' or 'key=value' items separated by spaces. An item that
// cannot be parsed is skipped, since the rest of the line may still be
// good.
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

// sqDequote parses one single-quoted word at the start of s, with the
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

// configCount reads the $GIT_CONFIG_KEY_n and $GIT_CONFIG_VALUE_n pairs
// that $GIT_CONFIG_COUNT counts.
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

// parseGitDate parses a time the way git parses $GIT_COMMITTER_DATE:
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
