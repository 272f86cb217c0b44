package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// flatHooks edits a hooks file of the shape Cursor and GitHub Copilot CLI
// read: {"version": 1, "hooks": {event: [entry, …]}}, one flat list of
// entries per event (no matcher groups).
type flatHooks struct {
	agent string
	// entry is git-snap's entry for an event, running command.
	entry func(event, command string) *ordered
	// fields are the entry's members that hold its command line.
	fields []string
}

// ours recognises an entry git-snap wrote, wherever the binary was.
func (f flatHooks) ours(e any) bool {
	o, _ := e.(*ordered)
	if o == nil {
		return false
	}
	for _, k := range f.fields {
		cmd, _ := o.get(k).(string)
		if IsHookCommand(cmd, f.agent) {
			return true
		}
	}
	return false
}

// install adds git-snap's entry to each event that has none, and gives
// one of git-snap's that runs another command (a binary since moved, or
// git-snap where the hook program now is) this one, keeping every other
// entry and setting.
func (f flatHooks) install(path, command string, events []string) (bool, error) {
	return editSettings(path, false, func(s *ordered) (bool, error) {
		hooks, err := hooksOf(s)
		if err != nil {
			return false, err
		}
		changed := false
		for _, ev := range events {
			list, ok := hooks.get(ev).([]any)
			if !ok && hooks.get(ev) != nil {
				return false, fmt.Errorf("hooks.%s is %s, not a list of hooks", ev, jsonKind(hooks.get(ev)))
			}
			want, found := f.entry(ev, command), false
			for _, e := range list {
				if f.ours(e) {
					found = true
					changed = f.setCommand(e.(*ordered), want) || changed
				}
			}
			if !found {
				hooks.set(ev, append(list, want))
				changed = true
			}
		}
		if changed {
			if s.get("version") == nil {
				s.set("version", json.Number("1"))
			}
			s.set("hooks", hooks)
		}
		return changed, nil
	})
}

// uninstall removes git-snap's entries, and the file when nothing but
// its version is left in it.
func (f flatHooks) uninstall(path string) (bool, error) {
	empty := false
	changed, err := editSettings(path, false, func(s *ordered) (bool, error) {
		hooks, _ := s.get("hooks").(*ordered)
		if hooks == nil {
			return false, nil
		}
		removed := false
		for _, ev := range append([]string(nil), hooks.keys...) {
			list, _ := hooks.get(ev).([]any)
			var kept []any
			for _, e := range list {
				if f.ours(e) {
					removed = true
				} else {
					kept = append(kept, e)
				}
			}
			if len(kept) == 0 && len(list) > 0 {
				hooks.del(ev)
			} else if len(kept) != len(list) {
				hooks.set(ev, kept)
			}
		}
		if removed && len(hooks.keys) == 0 {
			s.del("hooks")
			empty = len(s.keys) == 0 || (len(s.keys) == 1 && s.keys[0] == "version")
		}
		return removed, nil
	})
	if err != nil || !empty {
		return changed, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return true, err
	}
	return true, nil
}

// setCommand gives an entry of git-snap's the command lines of want,
// keeping its other members; it reports whether any changed.
func (f flatHooks) setCommand(e, want *ordered) bool {
	changed := false
	for _, k := range f.fields {
		if v := want.get(k); v != nil && e.get(k) != v {
			e.set(k, v)
			changed = true
		}
	}
	return changed
}
