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

func parseOrdered(data []byte) (*ordered, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &ordered{vals: map[string]any{}}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON object")
	}
	o, ok := v.(*ordered)
	if !ok {
		return nil, fmt.Errorf("the settings are not a JSON object")
	}
	return o, nil
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

// HookCommand is the command line an agent runs for git-snap's hook.
func HookCommand(exe, agent string) string {
	if exe == "" || strings.Contains(exe, string(filepath.Separator)+"go-build") {
		exe = "git-snap" // a go run binary goes away: rely on PATH
	}
	if strings.ContainsAny(exe, " '\"") {
		exe = "'" + strings.ReplaceAll(exe, "'", `'\''`) + "'"
	}
	return exe + " hook " + agent
}

// isOurs recognises a handler git-snap installed, wherever the binary was.
func isOurs(handler any, agent string) bool {
	h, _ := handler.(*ordered)
	if h == nil {
		return false
	}
	cmd, _ := h.get("command").(string)
	return strings.HasSuffix(cmd, " hook "+agent) && strings.Contains(cmd, "git-snap")
}

// InstallHooks adds a handler running command for each event to the
// hooks of a Claude Code or Codex settings file, keeping every other
// setting and hook. It reports whether the file changed: installing
// twice changes nothing.
func InstallHooks(path, agent, command string, events []string) (bool, error) {
	return installGroups(path, agent, command, events, json.Number("30"))
}

// installGroups is InstallHooks with the handlers' timeout in the unit
// the agent reads (seconds for Claude Code and Codex, milliseconds for
// Gemini CLI).
func installGroups(path, agent, command string, events []string, timeout json.Number) (bool, error) {
	return editSettings(path, func(s *ordered) bool {
		hooks, _ := s.get("hooks").(*ordered)
		if hooks == nil {
			hooks = &ordered{vals: map[string]any{}}
		}
		changed := false
		for _, ev := range events {
			groups, _ := hooks.get(ev).([]any)
			if hasOurs(groups, agent) {
				continue
			}
			handler := &ordered{vals: map[string]any{}}
			handler.set("type", "command")
			handler.set("command", command)
			handler.set("timeout", timeout)
			group := &ordered{vals: map[string]any{}}
			group.set("hooks", []any{handler})
			hooks.set(ev, append(groups, group))
			changed = true
		}
		if changed {
			s.set("hooks", hooks)
		}
		return changed
	})
}

func hasOurs(groups []any, agent string) bool {
	for _, g := range groups {
		gr, _ := g.(*ordered)
		if gr == nil {
			continue
		}
		hs, _ := gr.get("hooks").([]any)
		for _, h := range hs {
			if isOurs(h, agent) {
				return true
			}
		}
	}
	return false
}

// UninstallHooks removes only the handlers git-snap installed.
func UninstallHooks(path, agent string) (bool, error) {
	return editSettings(path, func(s *ordered) bool {
		hooks, _ := s.get("hooks").(*ordered)
		if hooks == nil {
			return false
		}
		changed := false
		for _, ev := range append([]string(nil), hooks.keys...) {
			groups, _ := hooks.get(ev).([]any)
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
		return changed
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

func editSettings(path string, edit func(*ordered) bool) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	s, err := parseOrdered(data)
	if err != nil {
		return false, fmt.Errorf("%s: %w; fix or move the file and try again", path, err)
	}
	if !edit(s) {
		return false, nil
	}
	var b bytes.Buffer
	writeOrdered(&b, s, "")
	b.WriteByte('\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	tmp := path + ".git-snap.tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, path)
}

// jsonString is a JSON-encoded string for settings files and scripts.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
