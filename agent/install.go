package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ordered is a JSON object that keeps its members' order, so that a
// settings file edited here differs from the user's only where git-snap
// added or removed its own entries.
type ordered struct {
	keys []string
	vals map[string]any
}

func (o *ordered) get(k string) any { return o.vals[k] }

func (o *ordered) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *ordered) del(k string) {
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			return
		}
	}
}

// SettingsError is a settings file install will not edit: not valid
// JSON (comments, say), or an entry git-snap would have to overwrite. The
// file is left as it is.
type SettingsError struct {
	Path string
	Line int // 0 when the problem has no one place
	Msg  string
}

// Error names the file, the line and what to do.
func (e *SettingsError) Error() string {
	at := e.Path
	if e.Line > 0 {
		at = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return fmt.Sprintf("%s: %s; nothing was changed: fix or move the file and run the command again", at, e.Msg)
}

// UserError marks the error as the user's to correct.
func (e *SettingsError) UserError() {}

func parseOrdered(data []byte) (*ordered, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &ordered{vals: map[string]any{}}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, &SettingsError{Line: lineAt(data, dec.InputOffset()), Msg: "not valid JSON (" + err.Error() + ")"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &SettingsError{Line: lineAt(data, dec.InputOffset()), Msg: "data after the JSON object"}
	}
	o, ok := v.(*ordered)
	if !ok {
		return nil, &SettingsError{Msg: "the settings are not a JSON object"}
	}
	return o, nil
}

// lineAt is the line of byte offset off, counted from 1.
func lineAt(data []byte, off int64) int {
	return bytes.Count(data[:min(int(off), len(data))], []byte("\n")) + 1
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &ordered{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				o.set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	}
	return tok, nil
}

func writeOrdered(b *bytes.Buffer, v any, indent string) {
	switch v := v.(type) {
	case *ordered:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(indent + "  " + jsonString(k) + ": ")
			writeOrdered(b, v.vals[k], indent+"  ")
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range v {
			b.WriteString(indent + "  ")
			writeOrdered(b, e, indent+"  ")
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		out, _ := json.Marshal(v)
		b.Write(out)
	}
}

// isOurs recognises a handler git-snap installed, wherever the binary was.
func isOurs(handler any, agent string) bool {
	h, _ := handler.(*ordered)
	if h == nil {
		return false
	}
	cmd, _ := h.get("command").(string)
	return IsHookCommand(cmd, agent)
}

// HookTimeouts is an Installer whose agent bounds some events' hooks more
// tightly than install's default of 30 seconds.
type HookTimeouts interface {
	HookTimeout(event string) int
}

// InstallHooks adds a handler running command for each event to the
// hooks of a Claude Code or Codex settings file, keeping every other
// setting and hook. It reports whether the file changed: installing
// twice changes nothing, and a handler of git-snap's with another
// command (a binary since moved) is given this one.
func InstallHooks(path, agent, command string, events []string) (bool, error) {
	return installHooks(path, agent, command, events, nil)
}

// InstallFor is InstallHooks for an adapter's events and timeouts.
func InstallFor(a Adapter, path, command string) (bool, error) {
	t, _ := a.(HookTimeouts)
	return installHooks(path, a.Name(), command, a.Events(), t)
}

func installHooks(path, agent, command string, events []string, t HookTimeouts) (bool, error) {
	return editSettings(path, false, func(s *ordered) (bool, error) {
		hooks, err := hooksOf(s)
		if err != nil {
			return false, err
		}
		changed := false
		for _, ev := range events {
			groups, ok := hooks.get(ev).([]any)
			if !ok && hooks.get(ev) != nil {
				return false, fmt.Errorf("hooks.%s is %s, not a list of matcher groups", ev, jsonKind(hooks.get(ev)))
			}
			if hasOurs(groups, agent) {
				changed = setCommand(groups, agent, command) || changed
				continue
			}
			timeout := 30
			if t != nil {
				timeout = t.HookTimeout(ev)
			}
			handler := &ordered{vals: map[string]any{}}
			handler.set("type", "command")
			handler.set("command", command)
			handler.set("timeout", json.Number(fmt.Sprint(timeout)))
			group := &ordered{vals: map[string]any{}}
			group.set("hooks", []any{handler})
			hooks.set(ev, append(groups, group))
			changed = true
		}
		if changed {
			s.set("hooks", hooks)
		}
		return changed, nil
	})
}

// hooksOf is the settings' hooks object, new when there is none; one of
// another shape is an error, never overwritten.
func hooksOf(s *ordered) (*ordered, error) {
	switch h := s.get("hooks").(type) {
	case nil:
		return &ordered{vals: map[string]any{}}, nil
	case *ordered:
		return h, nil
	default:
		return nil, fmt.Errorf(`"hooks" is %s, not an object of events`, jsonKind(h))
	}
}

// jsonKind names the kind of a decoded settings value.
func jsonKind(v any) string {
	switch v.(type) {
	case *ordered:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// setCommand gives git-snap's handlers in groups the command; it reports
// whether one had another.
func setCommand(groups []any, agent, command string) bool {
	changed := false
	for _, h := range ours(groups, agent) {
		if h.get("command") != command {
			h.set("command", command)
			changed = true
		}
	}
	return changed
}

// ours lists git-snap's handlers for agent in an event's matcher groups.
func ours(groups []any, agent string) []*ordered {
	var out []*ordered
	for _, g := range groups {
		gr, _ := g.(*ordered)
		if gr == nil {
			continue
		}
		hs, _ := gr.get("hooks").([]any)
		for _, h := range hs {
			if isOurs(h, agent) {
				out = append(out, h.(*ordered))
			}
		}
	}
	return out
}

// HookCommands lists the commands of git-snap's handlers for agent in a
// settings file, by event, for doctor; a file that does not exist has
// none.
func HookCommands(path, agent string) (map[string][]string, error) {
	s, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	hooks, err := hooksOf(s)
	if err != nil {
		return nil, &SettingsError{Path: path, Msg: err.Error()}
	}
	out := map[string][]string{}
	for _, ev := range hooks.keys {
		groups, _ := hooks.get(ev).([]any)
		for _, h := range ours(groups, agent) {
			cmd, _ := h.get("command").(string)
			out[ev] = append(out[ev], cmd)
		}
		out[ev] = append(out[ev], flatCommands(groups, agent)...)
		if len(out[ev]) == 0 {
			delete(out, ev)
		}
	}
	return out, nil
}

// flatCommands are the command lines of git-snap's entries in a flat
// list of hooks, as Cursor and Copilot CLI read them ({command} or
// {bash, powershell} entries, no matcher groups): for each, its
// command or bash line.
func flatCommands(list []any, agent string) []string {
	var out []string
	for _, e := range list {
		o, _ := e.(*ordered)
		if o == nil || o.get("hooks") != nil {
			continue
		}
		for _, k := range []string{"command", "bash"} {
			if cmd, _ := o.get(k).(string); IsHookCommand(cmd, agent) {
				out = append(out, cmd)
				break
			}
		}
	}
	return out
}

func hasOurs(groups []any, agent string) bool { return len(ours(groups, agent)) > 0 }

// UninstallHooks removes only the handlers git-snap installed; a file
// left with nothing in it is removed.
func UninstallHooks(path, agent string) (bool, error) {
	return editSettings(path, true, func(s *ordered) (bool, error) {
		hooks, _ := s.get("hooks").(*ordered)
		if hooks == nil {
			return false, nil
		}
		changed := false
		for _, ev := range append([]string(nil), hooks.keys...) {
			groups, ok := hooks.get(ev).([]any)
			if !ok {
				continue // not git-snap's to touch
			}
			kept, removed := withoutOurs(groups, agent)
			changed = changed || removed
			if len(kept) == 0 {
				hooks.del(ev)
			} else {
				hooks.set(ev, kept)
			}
		}
		if changed && len(hooks.keys) == 0 {
			s.del("hooks")
		}
		return changed, nil
	})
}

// withoutOurs removes git-snap's handlers from an event's matcher groups,
// and the groups left with none; it reports whether it removed any.
func withoutOurs(groups []any, agent string) ([]any, bool) {
	var kept []any
	removed := false
	for _, g := range groups {
		gr, _ := g.(*ordered)
		if gr == nil {
			kept = append(kept, g)
			continue
		}
		hs, _ := gr.get("hooks").([]any)
		var keep []any
		for _, h := range hs {
			if isOurs(h, agent) {
				removed = true
			} else {
				keep = append(keep, h)
			}
		}
		if len(keep) > 0 || len(hs) == 0 {
			if len(keep) != len(hs) {
				gr.set("hooks", keep)
			}
			kept = append(kept, gr)
		}
	}
	return kept, removed
}

// editSettings edits a settings file in place, or, with removeEmpty, removes
// it when the edit leaves it holding nothing. A file that is not valid
// JSON, or an edit refused, leaves it as it was.
func editSettings(path string, removeEmpty bool, edit func(*ordered) (bool, error)) (bool, error) {
	s, bom, err := readSettingsBOM(path)
	if err != nil {
		return false, err
	}
	changed, err := edit(s)
	if err != nil {
		return false, &SettingsError{Path: path, Msg: err.Error()}
	}
	if !changed {
		return false, nil
	}
	if removeEmpty && len(s.keys) == 0 {
		return true, removeSettings(path, []byte("{}\n"))
	}
	var b bytes.Buffer
	if bom {
		b.Write(utf8BOM) // the file keeps the mark its editor wrote
	}
	writeOrdered(&b, s, "")
	b.WriteByte('\n')
	return true, writeFileAtomic(path, b.Bytes(), 0o644)
}

// readSettings reads a settings file; one that does not exist is empty.
func readSettings(path string) (*ordered, error) {
	s, _, err := readSettingsBOM(path)
	return s, err
}

// readSettingsBOM is readSettings, and says whether the file starts
// with a UTF-8 byte order mark (read past, and written back).
func readSettingsBOM(path string) (*ordered, bool, error) {
	data, err := readSettingsFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	data, bom := bytes.CutPrefix(data, utf8BOM)
	s, err := parseOrdered(data)
	return s, bom, withPath(err, path)
}

// withPath names the file in a SettingsError.
func withPath(err error, path string) error {
	var se *SettingsError
	if errors.As(err, &se) {
		se.Path = path
	}
	return err
}

// writeFileAtomic writes a file through a temporary one renamed over it,
// so that a reader never sees half of it. The file is edited where it
// is: a symbolic link (a settings file kept in a dotfiles repository) is
// followed and stays a link, and an existing file keeps its mode (a
// 0600 file holding tokens stays 0600); mode is for a new file, less
// the umask.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	target, err := resolveLink(path)
	if err != nil {
		return err
	}
	keep := false
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return &SettingsError{Path: path, Msg: "not a regular file (" + fi.Mode().Type().String() + "); left as it is"}
		}
		mode, keep = fi.Mode().Perm(), true
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	var tmp *os.File
	for i := 0; ; i++ {
		tmp, err = os.OpenFile(fmt.Sprintf("%s.git-snap.tmp%d", target, i), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, fs.ErrExist) || i == 100 {
			break
		}
	}
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil && keep {
		err = tmp.Chmod(mode) // exactly the old mode, whatever the umask
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// resolveLink gives the file a path names: path itself, or, for a
// symbolic link, the file it leads to (one that does not exist yet
// included), so that an edit writes there and the link stays.
func resolveLink(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", &SettingsError{Path: path, Msg: "too many symbolic links"}
}

// removeSettings removes a settings file left empty; a symbolic link
// stays, pointing at a file now emptied to empty, so that whoever made
// the link finds it as they left it.
func removeSettings(path string, empty []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return writeFileAtomic(path, empty, 0o644)
	}
	return os.Remove(path)
}

// utf8BOM is the byte order mark some editors put first in a file.
var utf8BOM = []byte("\xef\xbb\xbf")

// jsonString is a JSON-encoded string for settings files and scripts.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Shared reports whether scope's settings file is the one a team commits
// (the agent's project settings): its hooks must then name git-snap as
// PATH finds it.
func Shared(a Adapter, scope Scope, workTree string) bool {
	if scope == UserScope || workTree == "" {
		return false
	}
	file, err := a.SettingsFile(scope, workTree)
	project, perr := a.SettingsFile(ProjectScope, workTree)
	return err == nil && perr == nil && file == project
}

// ExcludeLocal adds a personal settings file of the work tree to the
// repository's .git/info/exclude, so that it is never committed; it
// reports whether it added it.
func ExcludeLocal(commonDir, workTree, file string) (bool, error) {
	rel, err := filepath.Rel(workTree, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false, nil
	}
	line := "/" + filepath.ToSlash(rel)
	path := filepath.Join(commonDir, "info", "exclude")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == line {
			return false, nil
		}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	data = append(data, "# git-snap: personal agent settings\n"+line+"\n"...)
	return true, writeFileAtomic(path, data, 0o644)
}

// OwnSettings lists, relative to a work tree, the files git-snap writes
// itself (agents' settings, its own config): they are never captured as
// files the agent touched.
func OwnSettings() map[string]bool {
	out := map[string]bool{".git-snap.yaml": true}
	root := string(filepath.Separator)
	for _, a := range Adapters(Env{}) {
		for _, scope := range []Scope{ProjectScope, LocalScope} {
			f, err := a.SettingsFile(scope, root)
			if err != nil {
				continue
			}
			out[filepath.ToSlash(strings.TrimPrefix(f, root))] = true
			if c, ok := a.(interface{ ConfigFile(string) string }); ok {
				out[filepath.ToSlash(strings.TrimPrefix(c.ConfigFile(f), root))] = true
			}
		}
	}
	return out
}
