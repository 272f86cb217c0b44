package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Codex reads config.toml in each config layer (its home for the user,
// .codex/ in a project). git-snap writes one line there, the legacy
// notify program, and reads what decides whether hooks run at all: the
// hooks feature and the project's trust (see docs/formats.md).

// codexConfig is what git-snap reads of a config.toml.
type codexConfig struct {
	Notify   []string
	Features map[string]any
	Projects map[string]map[string]any
	// Hooks holds, under "state", the trust of each hook (see Trust).
	Hooks map[string]any
}

// readCodexConfig reads a config.toml; one that does not exist is empty.
func readCodexConfig(path string) (codexConfig, []byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return codexConfig{}, nil, nil
	}
	if err != nil {
		return codexConfig{}, nil, err
	}
	var all map[string]any
	if err := decodeTOML(data, &all); err != nil {
		return codexConfig{}, data, tomlError(path, err)
	}
	c, err := codexConfigOf(all)
	if err != nil {
		return c, data, &SettingsError{Path: path, Msg: err.Error()}
	}
	return c, data, nil
}

// codexConfigOf picks git-snap's keys out of a decoded config.toml, by
// their exact names as Codex reads them. A table of another type is read
// as absent (Codex refuses such a file itself; doctor and install go on
// as they would without it); a notify that is not a list of strings is
// an error, as install would otherwise write a second one.
func codexConfigOf(all map[string]any) (codexConfig, error) {
	var c codexConfig
	if v, ok := all["notify"]; ok {
		list, _ := v.([]any)
		c.Notify = make([]string, len(list))
		for i, a := range list {
			if c.Notify[i], ok = a.(string); !ok {
				break
			}
		}
		if list == nil || !ok {
			return codexConfig{}, fmt.Errorf("notify is %v, not a list of strings: Codex's notify is a program and its arguments, notify = [\"program\", \"arg\"]", v)
		}
	}
	c.Features, _ = all["features"].(map[string]any)
	c.Hooks, _ = all["hooks"].(map[string]any)
	if projects, ok := all["projects"].(map[string]any); ok {
		c.Projects = make(map[string]map[string]any, len(projects))
		for k, v := range projects {
			c.Projects[k], _ = v.(map[string]any)
		}
	}
	return c, nil
}

// decodeTOML decodes a config.toml into v. A UTF-8 byte order mark at
// the start is skipped: Codex reads a file that has one, go-toml would
// not.
func decodeTOML(data []byte, v any) error {
	return toml.Unmarshal(bytes.TrimPrefix(data, utf8BOM), v)
}

// tomlError is the error for a config.toml that is not TOML: at the
// line the decoder stopped, when it says.
func tomlError(path string, err error) *SettingsError {
	line := 0
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ = de.Position()
	}
	return &SettingsError{Path: path, Line: line, Msg: "not valid TOML (" + err.Error() + ")"}
}

// ConfigFile is the config.toml of the layer whose hooks file is
// hooksFile: notify is written there.
func (Codex) ConfigFile(hooksFile string) string {
	return filepath.Join(filepath.Dir(hooksFile), "config.toml")
}

// isOurNotify recognises the notify program git-snap writes, in either
// form (see notifyArgv).
func isOurNotify(argv []string) bool {
	switch {
	case len(argv) == 2 && IsHookProgram(argv[0]):
		return argv[1] == "codex"
	case len(argv) >= 3:
		return strings.Contains(argv[0], "git-snap") && argv[len(argv)-2] == "hook" && argv[len(argv)-1] == "codex"
	}
	return false
}

// notifyArgv is the notify program git-snap writes for exe: the hook
// program's `exe codex`, or git-snap's `exe hook codex`.
func notifyArgv(exe string) []string {
	if IsHookProgram(exe) {
		return []string{exe, "codex"}
	}
	return []string{exe, "hook", "codex"}
}

// NotifyLine is the config.toml line that makes exe Codex's notify
// program: Codex appends the turn's JSON as the last argument.
func NotifyLine(exe string) string {
	argv := notifyArgv(exe)
	for i, a := range argv {
		argv[i] = jsonString(a)
	}
	return "notify = [" + strings.Join(argv, ", ") + "]"
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
	body, bom := bytes.CutPrefix(data, utf8BOM)
	switch {
	case c.Notify != nil && !isOurNotify(c.Notify):
		return false, fmt.Sprintf("%s already runs %q as notify, and Codex runs only one: left as it is (hooks do the work on releases that have them)", path, strings.Join(c.Notify, " ")), nil
	case c.Notify != nil:
		lines := strings.Split(string(body), "\n")
		i, ok := notifyLine(body, func(i int) []byte { return replaceLine(lines, i, &want) }, notifyArgv(exe))
		if !ok {
			return false, fmt.Sprintf("%s: git-snap's notify spans lines; left as it is", path), nil
		}
		if lines[i] == want {
			return false, "", nil
		}
		return true, "", writeFileAtomic(path, withBOM(bom, replaceLine(lines, i, &want)), 0o644)
	}
	// A top-level key goes before the first table: first in the file,
	// after the byte order mark if it has one.
	return true, "", writeFileAtomic(path, withBOM(bom, append([]byte(want+"\n"), body...)), 0o644)
}

// UninstallNotify removes git-snap's notify line, and the file when
// nothing else is left in it.
func UninstallNotify(path string) (bool, error) {
	c, data, err := readCodexConfig(path)
	if err != nil || !isOurNotify(c.Notify) {
		return false, err
	}
	body, bom := bytes.CutPrefix(data, utf8BOM)
	lines := strings.Split(string(body), "\n")
	i, ok := notifyLine(body, func(i int) []byte { return replaceLine(lines, i, nil) }, nil)
	if !ok {
		return false, &SettingsError{Path: path, Msg: "git-snap's notify spans lines: remove it by hand"}
	}
	rest := replaceLine(lines, i, nil)
	if len(bytes.TrimSpace(rest)) == 0 {
		return true, removeSettings(path, nil)
	}
	return true, writeFileAtomic(path, withBOM(bom, rest), 0o644)
}

// replaceLine is lines joined with line i replaced by *with, or left
// out for nil.
func replaceLine(lines []string, i int, with *string) []byte {
	out := append([]string{}, lines[:i]...)
	if with != nil {
		out = append(out, *with)
	}
	return []byte(strings.Join(append(out, lines[i+1:]...), "\n"))
}

func withBOM(bom bool, data []byte) []byte {
	if !bom {
		return data
	}
	return append(append([]byte{}, utf8BOM...), data...)
}

// notifyLine finds the line that holds the top-level notify key, a
// one-line array. A line is only a candidate until TOML says so: edit(i)
// is the file with that line changed, and it is the key's line when the
// file decoded after the edit differs from the file before in notify
// alone (then notify is want, or gone for nil). A line that looks like
// the key inside a multi-line string fails that test: changing it
// changes the string.
func notifyLine(data []byte, edit func(i int) []byte, want []string) (int, bool) {
	var before map[string]any
	if err := decodeTOML(data, &before); err != nil {
		return 0, false
	}
	delete(before, "notify")
	for i, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || strings.TrimSpace(k) != "notify" {
			continue
		}
		if v = strings.TrimSpace(v); !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
			continue
		}
		var after map[string]any
		if err := decodeTOML(edit(i), &after); err != nil {
			continue
		}
		got, has := after["notify"]
		delete(after, "notify")
		if !reflect.DeepEqual(before, after) {
			continue
		}
		if want == nil && !has || want != nil && fmt.Sprint(got) == fmt.Sprint(toAny(want)) {
			return i, true
		}
	}
	return 0, false
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
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
