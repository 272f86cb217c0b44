package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Codex runs the hooks of a hooks.json only past two gates, both kept in
// the user's config.toml (docs/formats.md):
//
//   - a project's .codex/ layer loads only when the project is trusted:
//     [projects."<abs path>"] trust_level = "trusted";
//   - each hook runs only once its definition is trusted:
//     [hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash =
//     "sha256:<hex>", the SHA-256 of the handler's normalized identity
//     (its event, matcher and handler as canonical JSON), which Codex
//     writes when the user trusts the hook in /hooks. Headless,
//     `codex exec --dangerously-bypass-hook-trust` runs hooks without it.
//
// git-snap computes the trust of its own hooks the way Codex does, so
// that install can record it and doctor can check it (a changed hook
// needs trusting again).

// CodexHook is one of git-snap's handlers in a Codex hooks file, as
// Codex's hook trust names it.
type CodexHook struct {
	Key  string // <hooks.json path>:<event, snake_case>:<group>:<handler>
	Hash string // sha256:<hex> of its normalized identity
}

// codexEventLabel is an event's name in a hook trust key: SessionStart
// is session_start.
func codexEventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexHookHash is the trust hash of one handler: canonical JSON (keys
// sorted, compact) of {event_name, matcher (when set), hooks: [the
// handler's type, command, timeout (600 when unset) and async]}.
func codexHookHash(label string, matcher any, handler *ordered) string {
	h := map[string]any{"type": "command", "async": false, "timeout": json.Number("600")}
	for _, k := range handler.keys {
		switch k {
		case "type", "command", "async", "timeout":
			h[k] = handler.vals[k]
		case "timeoutSec":
			h["timeout"] = handler.vals[k]
		case "statusMessage":
			h[k] = handler.vals[k]
		}
	}
	identity := map[string]any{"event_name": label, "hooks": []any{h}}
	if s, ok := matcher.(string); ok {
		identity["matcher"] = s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // serde_json escapes no HTML characters
	_ = enc.Encode(identity) // maps encode with sorted keys: canonical
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CodexHooks lists git-snap's handlers in a Codex hooks file with their
// trust keys and hashes, in the file's order.
func CodexHooks(hooksFile string) ([]CodexHook, error) {
	s, err := readSettings(hooksFile)
	if err != nil {
		return nil, err
	}
	hooks, err := hooksOf(s)
	if err != nil {
		return nil, &SettingsError{Path: hooksFile, Msg: err.Error()}
	}
	var out []CodexHook
	for _, ev := range hooks.keys {
		groups, _ := hooks.get(ev).([]any)
		for gi, g := range groups {
			gr, _ := g.(*ordered)
			if gr == nil {
				continue
			}
			handlers, _ := gr.get("hooks").([]any)
			for hi, h := range handlers {
				if !isOurs(h, "codex") {
					continue
				}
				label := codexEventLabel(ev)
				out = append(out, CodexHook{Key: fmt.Sprintf("%s:%s:%d:%d", hooksFile, label, gi, hi), Hash: codexHookHash(label, gr.get("matcher"), h.(*ordered))})
			}
		}
	}
	return out, nil
}

// CheckConfigs reads the config.toml files install would read or edit
// for hooksFile (the user's, and the one beside hooksFile), so that a
// file that is not TOML stops install before it writes anything.
func (c Codex) CheckConfigs(hooksFile string) error {
	for _, path := range []string{c.ConfigFile(hooksFile), c.UserConfig()} {
		if _, _, err := readCodexConfig(path); err != nil {
			return err
		}
	}
	return nil
}

// UserConfig is the user's config.toml, where Codex keeps both trusts.
func (c Codex) UserConfig() string { return filepath.Join(c.Home, "config.toml") }

// TrustChange is what CodexTrust did, or could not do, to one gate.
type TrustChange struct {
	What string // "the project /src/demo", "git-snap's 7 hooks of …/hooks.json"
	// Done: written to the user's config.toml; else Manual says what to
	// add by hand (the file's shape was one git-snap will not edit).
	Done   bool
	Manual string
}

// Trust records in the user's config.toml what Codex needs before it
// runs git-snap's hooks in hooksFile: the project's trust when the file
// is the project's (workTree), and the trust of each of git-snap's hooks.
// A gate already open is left as it is; an edit that would not read back
// as intended (the table defined inline, say) is not written, and what to
// add is returned instead.
func (c Codex) Trust(hooksFile, workTree string) ([]TrustChange, error) {
	path := c.UserConfig()
	cfg, data, err := readCodexConfig(path)
	if err != nil {
		return nil, err
	}
	var out []TrustChange
	if workTree != "" && strings.HasPrefix(hooksFile, workTree+string(filepath.Separator)) {
		if level, _ := cfg.Projects[workTree]["trust_level"].(string); level != "trusted" {
			table := []string{"projects", workTree}
			ch := TrustChange{What: "the project " + workTree}
			data, ch.Done = tomlSet(data, table, "trust_level", "trusted")
			if !ch.Done {
				ch.Manual = tomlTable(table) + "\ntrust_level = \"trusted\""
			}
			out = append(out, ch)
		}
	}
	hooks, err := CodexHooks(hooksFile)
	if err != nil {
		return nil, err
	}
	var manual []string
	changed := 0
	for _, h := range hooks {
		if cfg.hookTrusted(h) {
			continue
		}
		table := []string{"hooks", "state", h.Key}
		var ok bool
		if data, ok = tomlSet(data, table, "trusted_hash", h.Hash); !ok {
			manual = append(manual, tomlTable(table)+"\ntrusted_hash = "+tomlQuote(h.Hash))
		}
		changed++
	}
	if changed > 0 {
		out = append(out, TrustChange{What: fmt.Sprintf("git-snap's %d hooks of %s", changed, hooksFile), Done: len(manual) == 0, Manual: strings.Join(manual, "\n")})
	}
	if !anyDone(out) {
		return out, nil
	}
	return out, writeConfig(path, data)
}

// writeConfig replaces a config.toml, keeping its mode (new: only the
// user's, as it may hold keys).
func writeConfig(path string, data []byte) error {
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return writeFileAtomic(path, data, mode)
}

func anyDone(changes []TrustChange) bool {
	for _, c := range changes {
		if c.Done {
			return true
		}
	}
	return false
}

// Untrust removes the hook trust git-snap recorded for its hooks in
// hooksFile (before they are uninstalled); the project's trust, which
// other settings depend on, is kept. It reports how many it removed.
func (c Codex) Untrust(hooksFile string) (int, error) {
	path := c.UserConfig()
	_, data, err := readCodexConfig(path)
	if err != nil || data == nil {
		return 0, err
	}
	hooks, err := CodexHooks(hooksFile)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, h := range hooks {
		var ok bool
		if data, ok = tomlDeleteTable(data, []string{"hooks", "state", h.Key}); ok {
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	return n, writeConfig(path, data)
}

// hookTrusted reports whether config.toml trusts h as it is now and does
// not disable it.
func (cfg codexConfig) hookTrusted(h CodexHook) bool {
	st := cfg.hookState(h.Key)
	hash, _ := st["trusted_hash"].(string)
	return hash == h.Hash && st["enabled"] != false
}

// hookState is [hooks.state."key"] of a config.toml.
func (cfg codexConfig) hookState(key string) map[string]any {
	state, _ := cfg.Hooks["state"].(map[string]any)
	st, _ := state[key].(map[string]any)
	return st
}

// A config.toml is edited line by line, so that the user's comments and
// layout stay; an edit is kept only when the file decodes afterwards to
// what it did before with that one value set.

// tomlSet sets key to the string value in the table whose dotted key is
// table: on the key's own line when the table has it, else after the
// table's header, else in a new table at the end. ok is false when the
// result would not read back as intended; data is then unchanged.
func tomlSet(data []byte, table []string, key, value string) ([]byte, bool) {
	lines := strings.Split(string(data), "\n")
	line := key + " = " + tomlQuote(value)
	start, end := tomlFind(lines, table)
	var out []string
	switch {
	case start < 0:
		out = append(out, lines...)
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, tomlTable(table), line, "")
	default:
		at := -1
		for i := start + 1; i < end; i++ {
			if k, _, ok := strings.Cut(lines[i], "="); ok && strings.TrimSpace(k) == key {
				at = i
			}
		}
		out = append(out, lines[:start+1]...)
		if at >= 0 {
			out = append(out, lines[start+1:at]...)
			out = append(out, line)
			out = append(out, lines[at+1:]...)
		} else {
			out = append(out, line)
			out = append(out, lines[start+1:]...)
		}
	}
	edited := []byte(strings.Join(out, "\n"))
	if start < 0 && inlineParent(lines, table) || !tomlReadsAs(data, edited, append(table, key), value) {
		return data, false
	}
	return edited, true
}

// inlineParent reports whether a line may define one of table's parents
// as an inline table ({…}), which TOML forbids a header to extend (the
// decoder used to check edits accepts it; Codex's does not).
func inlineParent(lines []string, table []string) bool {
	parents := table[:len(table)-1]
	for _, l := range lines {
		k, v, ok := strings.Cut(l, "=")
		if !ok || !strings.HasPrefix(strings.TrimSpace(v), "{") {
			continue
		}
		keys, ok := tomlHeader("[" + strings.TrimSpace(k) + "]")
		if ok && slices.Contains(parents, keys[len(keys)-1]) {
			return true
		}
	}
	return false
}

// tomlDeleteTable removes a table, its header and lines up to the next
// header; ok is false when it has none (or the result would not read as
// the file without it).
func tomlDeleteTable(data []byte, table []string) ([]byte, bool) {
	lines := strings.Split(string(data), "\n")
	start, end := tomlFind(lines, table)
	if start < 0 {
		return data, false
	}
	for end > start+1 && strings.TrimSpace(lines[end-1]) == "" && end < len(lines) {
		end-- // keep the blank line before the next table
	}
	kept := append(lines[:start:start], lines[end:]...)
	for len(kept) > 1 && strings.TrimSpace(kept[len(kept)-1]) == "" && strings.TrimSpace(kept[len(kept)-2]) == "" {
		kept = kept[:len(kept)-1] // one line ending at the end, not the removed tables' blank lines
	}
	edited := []byte(strings.Join(kept, "\n"))
	if !tomlReadsAs(data, edited, table, nil) {
		return data, false
	}
	return edited, true
}

// tomlFind finds a table's header line and the line after its last; -1
// when no header names it.
func tomlFind(lines []string, table []string) (start, end int) {
	start = -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "[") {
			continue
		}
		if start >= 0 {
			return start, i
		}
		if keys, ok := tomlHeader(t); ok && reflect.DeepEqual(keys, table) {
			start = i
		}
	}
	return start, len(lines)
}

// tomlHeader reads a table header's dotted key: [a."b c".d]; ok is false
// for an array of tables or what does not read.
func tomlHeader(line string) ([]string, bool) {
	if strings.HasPrefix(line, "[[") {
		return nil, false
	}
	var keys []string
	rest := strings.TrimSpace(line[1:])
	for {
		var key string
		switch {
		case strings.HasPrefix(rest, `"`):
			end := 1
			for end < len(rest) && (rest[end] != '"' || rest[end-1] == '\\') {
				end++
			}
			if end >= len(rest) {
				return nil, false
			}
			var s string
			if json.Unmarshal([]byte(rest[:end+1]), &s) != nil {
				return nil, false
			}
			key, rest = s, rest[end+1:]
		case strings.HasPrefix(rest, "'"):
			end := strings.IndexByte(rest[1:], '\'')
			if end < 0 {
				return nil, false
			}
			key, rest = rest[1:end+1], rest[end+2:]
		default:
			end := strings.IndexFunc(rest, func(r rune) bool { return !bareKeyRune(r) })
			if end <= 0 {
				return nil, false
			}
			key, rest = rest[:end], rest[end:]
		}
		keys = append(keys, key)
		rest = strings.TrimSpace(rest)
		switch {
		case strings.HasPrefix(rest, "."):
			rest = strings.TrimSpace(rest[1:])
		case strings.HasPrefix(rest, "]"):
			return keys, true
		default:
			return nil, false
		}
	}
}

// bareKeyRune reports whether r may be in a bare TOML key (ASCII letters
// and digits, '_' and '-'; read leniently, any letter or digit).
func bareKeyRune(r rune) bool {
	return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// tomlTable is a table's header line.
func tomlTable(table []string) string {
	parts := make([]string, len(table))
	for i, k := range table {
		parts[i] = k
		if strings.IndexFunc(k, func(r rune) bool { return r >= 128 || !bareKeyRune(r) }) >= 0 || k == "" {
			parts[i] = tomlQuote(k)
		}
	}
	return "[" + strings.Join(parts, ".") + "]"
}

// tomlQuote is a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlReadsAs reports whether edited decodes to what before does with
// the value at path set to value (nil: removed).
func tomlReadsAs(before, edited []byte, path []string, value any) bool {
	var want, got map[string]any
	if err := decodeTOML(before, &want); err != nil {
		return false
	}
	if err := decodeTOML(edited, &got); err != nil {
		return false
	}
	if want == nil {
		want = map[string]any{}
	}
	m := want
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			if _, taken := m[k]; taken {
				return false
			}
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	last := path[len(path)-1]
	if value == nil {
		delete(m, last)
		pruneEmpty(want, path[:len(path)-1])
		pruneEmpty(got, path[:len(path)-1])
	} else {
		m[last] = value
	}
	return reflect.DeepEqual(want, got)
}

// pruneEmpty removes the tables along path left empty, which a removal
// may leave or not depending on how the file spelled them.
func pruneEmpty(m map[string]any, path []string) {
	if len(path) == 0 || m == nil {
		return
	}
	next, ok := m[path[0]].(map[string]any)
	if !ok {
		return
	}
	pruneEmpty(next, path[1:])
	if len(next) == 0 {
		delete(m, path[0])
	}
}

// trustNeeds checks the two gates for git-snap's hooks in
// hooksFile: the project's trust when the file is the project's, and
// each hook's.
func (c Codex) trustNeeds(cfg codexConfig, hooksFile, workTree string) []Check {
	user := c.UserConfig()
	var out []Check
	if workTree != "" && strings.HasPrefix(hooksFile, workTree+string(filepath.Separator)) {
		trust := Check{Name: "codex project trust", Status: OK, Detail: workTree + " is trusted"}
		if level, _ := cfg.Projects[workTree]["trust_level"].(string); level != "trusted" {
			trust.Status, trust.Detail = Fail, fmt.Sprintf("%s is not trusted in %s: Codex ignores its .codex/hooks.json", workTree, user)
			trust.Fix = fmt.Sprintf("git snap install codex trusts it, or add %s trust_level = \"trusted\" to %s (or trust the project when Codex asks)", tomlTable([]string{"projects", workTree}), user)
		}
		out = append(out, trust)
	}
	hooks, err := CodexHooks(hooksFile)
	if err != nil {
		return append(out, Check{Name: "codex hook trust", Status: Fail, Detail: err.Error(), Fix: "fix " + hooksFile})
	}
	var untrusted, disabled []string
	for _, h := range hooks {
		switch st := cfg.hookState(h.Key); {
		case st["enabled"] == false:
			disabled = append(disabled, h.Key)
		case !cfg.hookTrusted(h):
			untrusted = append(untrusted, h.Key)
		}
	}
	sort.Strings(untrusted)
	switch {
	case len(disabled) > 0:
		return append(out, Check{Name: "codex hook trust", Status: Fail, Detail: fmt.Sprintf("%d of git-snap's hooks are turned off in %s, e.g. %s", len(disabled), user, disabled[0]),
			Fix: "turn them on in codex's /hooks, or remove enabled = false from their [hooks.state] tables"})
	case len(untrusted) > 0:
		return append(out, Check{Name: "codex hook trust", Status: Fail,
			Detail: fmt.Sprintf("%d of git-snap's %d hooks are not trusted as they are now in %s (e.g. %s): Codex does not run them", len(untrusted), len(hooks), user, untrusted[0]),
			Fix:    "git snap install codex trusts them (or trust them in codex's /hooks); headless, codex exec --dangerously-bypass-hook-trust runs them untrusted"})
	}
	return append(out, Check{Name: "codex hook trust", Status: OK, Detail: fmt.Sprintf("git-snap's %d hooks are trusted in %s", len(hooks), user)})
}
