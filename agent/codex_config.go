package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex reads config.toml in each config layer (its home for the user,
// .codex/ in a project). git-snap writes one line there, the legacy
// notify program, and reads what decides whether hooks run at all: the
// hooks feature and the project's trust (see docs/formats.md).

// codexConfig is what git-snap reads of a config.toml.
type codexConfig struct {
	Notify   []string                  `toml:"notify"`
	Features map[string]any            `toml:"features"`
	Projects map[string]map[string]any `toml:"projects"`
	// Hooks holds, under "state", the trust of each hook (see Trust).
	Hooks map[string]any `toml:"hooks"`
}

// readCodexConfig reads a config.toml; one that does not exist is empty.
func readCodexConfig(path string) (codexConfig, []byte, error) {
	var c codexConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil, nil
	}
	if err != nil {
		return c, nil, err
	}
	if _, err := toml.Decode(string(data), &c); err != nil {
		line := 0
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line = pe.Position.Line
		}
		return c, data, &SettingsError{Path: path, Line: line, Msg: "not valid TOML (" + err.Error() + ")"}
	}
	return c, data, nil
}

// ConfigFile is the config.toml of the layer whose hooks file is
// hooksFile: notify is written there.
func (Codex) ConfigFile(hooksFile string) string {
	return filepath.Join(filepath.Dir(hooksFile), "config.toml")
}

// isOurNotify recognises the notify program git-snap writes.
func isOurNotify(argv []string) bool {
	return len(argv) >= 3 && strings.Contains(argv[0], "git-snap") && argv[len(argv)-2] == "hook" && argv[len(argv)-1] == "codex"
}

// NotifyLine is the config.toml line that makes exe Codex's notify
// program: Codex appends the turn's JSON as the last argument.
func NotifyLine(exe string) string {
	return fmt.Sprintf("notify = [%s, %s, %s]", jsonString(exe), jsonString("hook"), jsonString("codex"))
}

// InstallNotify makes git-snap Codex's notify program in config.toml,
// which releases without hooks call after each turn. A notify program of
// someone else's is left as it is and named in note: Codex runs one.
func InstallNotify(path, exe string) (changed bool, note string, err error) {
	c, data, err := readCodexConfig(path)
	if err != nil {
		return false, "", err
	}
	want := NotifyLine(exe)
	switch {
	case c.Notify != nil && !isOurNotify(c.Notify):
		return false, fmt.Sprintf("%s already runs %q as notify, and Codex runs only one: left as it is (hooks do the work on releases that have them)", path, strings.Join(c.Notify, " ")), nil
	case c.Notify != nil:
		i, ok := notifyLine(data)
		if !ok {
			return false, fmt.Sprintf("%s: git-snap's notify spans lines; left as it is", path), nil
		}
		lines := strings.Split(string(data), "\n")
		if lines[i] == want {
			return false, "", nil
		}
		lines[i] = want
		return true, "", writeFileAtomic(path, []byte(strings.Join(lines, "\n")), 0o644)
	}
	// A top-level key goes before the first table: first in the file.
	return true, "", writeFileAtomic(path, append([]byte(want+"\n"), data...), 0o644)
}

// UninstallNotify removes git-snap's notify line, and the file when
// nothing else is left in it.
func UninstallNotify(path string) (bool, error) {
	c, data, err := readCodexConfig(path)
	if err != nil || !isOurNotify(c.Notify) {
		return false, err
	}
	i, ok := notifyLine(data)
	if !ok {
		return false, &SettingsError{Path: path, Msg: "git-snap's notify spans lines: remove it by hand"}
	}
	lines := strings.Split(string(data), "\n")
	rest := strings.Join(append(lines[:i:i], lines[i+1:]...), "\n")
	if strings.TrimSpace(rest) == "" {
		return true, os.Remove(path)
	}
	return true, writeFileAtomic(path, []byte(rest), 0o644)
}

// notifyLine finds the one-line top-level notify key, before any table.
func notifyLine(data []byte) (int, bool) {
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			return 0, false
		}
		if k, v, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == "notify" {
			v = strings.TrimSpace(v)
			return i, strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]")
		}
	}
	return 0, false
}

// Needs implements Needer: what Codex needs before git-snap's hooks in
// hooksFile run, read from the user's config.toml: the hooks feature not
// turned off (it is on by default since hooks became stable;
// `codex_hooks` its first name), the project's trust (a project's
// .codex/ layer loads only in a trusted project) and the trust of each
// of git-snap's hooks as they are now (see Trust).
func (c Codex) Needs(hooksFile, workTree string) []Check {
	user := c.UserConfig()
	cfg, _, err := readCodexConfig(user)
	if err != nil {
		return []Check{{Name: "codex config", Status: Fail, Detail: err.Error(), Fix: "fix " + user}}
	}
	feature := Check{Name: "codex hooks feature", Status: OK, Detail: "[features] hooks is not set: on by default"}
	for _, key := range []string{"codex_hooks", "hooks"} {
		if v, ok := cfg.Features[key].(bool); ok {
			feature.Detail = fmt.Sprintf("[features] %s = %v in %s", key, v, user)
			if !v {
				feature.Status, feature.Fix = Fail, fmt.Sprintf("set [features] %s = true in %s (or run codex --enable %s)", key, user, key)
			}
		}
	}
	return append([]Check{feature}, c.trustNeeds(cfg, hooksFile, workTree)...)
}
