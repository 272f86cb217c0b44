package agent

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/snapshot"
)

// ClaudeCode reads Claude Code's hook payloads and transcripts
// (see docs/formats.md).
type ClaudeCode struct {
	// ConfigDir holds the user's settings: $CLAUDE_CONFIG_DIR, else
	// ~/.claude.
	ConfigDir string
	// ManagedSettings is the administrator's settings file; "" for the
	// system's (/etc/claude-code/managed-settings.json on Linux).
	ManagedSettings string
	// GlobalConfig is Claude Code's own state file, .claude.json, which
	// holds the user's MCP servers: in $CLAUDE_CONFIG_DIR when that is
	// set, else in the home directory; "" for the one beside ConfigDir.
	GlobalConfig string
}

func init() {
	register(Registration{New: newClaudeCode, Info: Info{
		Name:     "claude-code",
		Title:    "Claude Code",
		Settings: ".claude/settings.local.json (--local, the default), .claude/settings.json (--project) or ~/.claude/settings.json (--user)",
	}})
}

func newClaudeCode(env Env) Adapter {
	dir := env.dir("CLAUDE_CONFIG_DIR", ".claude")
	global := filepath.Join(env.Home, ".claude.json")
	if env.Getenv != nil && env.Getenv("CLAUDE_CONFIG_DIR") != "" {
		global = filepath.Join(dir, ".claude.json")
	}
	return ClaudeCode{ConfigDir: dir, GlobalConfig: global}
}

// Name implements Adapter.
func (ClaudeCode) Name() string { return "claude-code" }

// Events implements Installer: every event that adds to the transcript
// or ends a part of it.
func (ClaudeCode) Events() []string {
	return []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "SessionEnd"}
}

// SettingsFile implements Installer: settings.json in the config
// directory for the user; in the project, .claude/settings.json, shared,
// or .claude/settings.local.json, personal (the default).
func (c ClaudeCode) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case UserScope:
		return filepath.Join(c.ConfigDir, "settings.json"), nil
	case ProjectScope:
		return filepath.Join(workTree, ".claude", "settings.json"), nil
	}
	return filepath.Join(workTree, ".claude", "settings.local.json"), nil
}

// Decode implements HookReader: the payload is a JSON object on stdin.
func (ClaudeCode) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, "Claude Code hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Agent: "claude-code", Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"), Raw: raw,
	}
	p.ToolInput, _ = raw["tool_input"].(map[string]any)
	p.Subagent = str(raw, "agent_transcript_path")
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the Claude Code hook payload has no session_id or hook_event_name")
	}
	return p, nil
}

// Transcripts implements HookReader: subagent transcripts live in
// <session>/subagents/ beside the main one (any depth); Claude Code 2.0
// and before wrote them beside it, as agent-<id>.jsonl files of the
// parent's sessionId, which SubagentStop names (agent_transcript_path) and
// which are looked for when a turn or the session ends and on import.
// Names are relative to the main transcript's folder.
func (ClaudeCode) Transcripts(p Payload) (map[string]string, error) {
	if p.TranscriptPath == "" {
		return nil, nil
	}
	main := p.TranscriptPath
	dir := filepath.Dir(main)
	out := map[string]string{}
	var skipped Unread
	err := filepath.WalkDir(filepath.Join(strings.TrimSuffix(main, filepath.Ext(main)), subagentsDir), func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && os.IsNotExist(err):
			return nil
		case err != nil: // a file where a folder goes, a folder not readable: the rest is still recorded
			skipped.add(path, err)
			return nil
		case !d.IsDir() && strings.HasSuffix(path, ".jsonl"):
			rel, _ := filepath.Rel(dir, path)
			out[filepath.ToSlash(rel)] = path
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.Subagent != "" && strings.HasSuffix(p.Subagent, ".jsonl") { // a transcript, not any file a payload names
		rel, err := filepath.Rel(dir, p.Subagent)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = subagentsDir + "/" + filepath.Base(p.Subagent)
		}
		out[filepath.ToSlash(rel)] = p.Subagent
	}
	switch p.Event {
	case "SubagentStop", "Stop", "SessionEnd", "import":
		siblings, err := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
		if err != nil {
			return nil, err
		}
		for _, path := range siblings {
			if claudeSessionOf(path) == p.SessionID {
				out[filepath.Base(path)] = path
			}
		}
	}
	return out, skipped.err()
}

// claudeSessionPrefix is how much of a transcript claudeSessionOf reads:
// sessionId comes in a record's first members.
const claudeSessionPrefix = 8 << 10

var claudeSessionID = lazy.Regexp(`"sessionId"\s*:\s*"([^"\\]{1,200})"`)

// claudeSessionOf is the sessionId of a transcript's first record that
// has one in the file's first bytes, "" when none does.
func claudeSessionOf(path string) string {
	f, err := OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, claudeSessionPrefix)
	n, _ := io.ReadFull(f, buf)
	if m := claudeSessionID().FindSubmatch(buf[:n]); m != nil {
		return string(m[1])
	}
	return ""
}

// ParentOf implements SubagentFiler: agent-<id>.jsonl is a subagent's
// transcript, under <session>/subagents/ (its parent <session>.jsonl
// beside that folder) or, from Claude Code 2.0 and before, beside its
// parent, named by the sessionId its records carry.
func (ClaudeCode) ParentOf(path string) (string, string, bool) {
	if !strings.HasPrefix(filepath.Base(path), "agent-") {
		return "", "", false
	}
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == subagentsDir {
			session := filepath.Base(filepath.Dir(d))
			return session, filepath.Dir(d) + ".jsonl", true
		}
	}
	session := claudeSessionOf(path)
	if session == "" || snapshot.CheckName("session", session) != nil {
		return "", "", false
	}
	return session, filepath.Join(filepath.Dir(path), session+".jsonl"), true
}

// IsPrompt implements RecordReader: a user record whose content is text the
// user typed (not a tool result, not injected by the harness).
// Slash commands are not prompts here: they are turns only when the model
// answers them (see IsCommand).
func (ClaudeCode) IsPrompt(record any) bool {
	text, ok := userText(record)
	return ok && !strings.HasPrefix(text, "<") // <command-name>, <local-command-stdout>, …
}

// IsCommand reports whether a record is a slash command the user typed:
// Claude Code writes "<command-name>/name</command-name>" (with
// <command-message> and <command-args>) as the user's text. A custom
// command's prompt follows as an isMeta record and the model answers it;
// a built-in one (/mcp, /clear) is answered by <local-command-stdout>.
func (ClaudeCode) IsCommand(record any) bool {
	text, ok := userText(record)
	return ok && strings.Contains(text, "<command-name>")
}

// IsInput reports whether a record is text given to the conversation that
// is not a command: a prompt, or a built-in command's output.
func (c ClaudeCode) IsInput(record any) bool {
	_, ok := userText(record)
	return ok && !c.IsCommand(record)
}

// userText is the text of a user record that is not injected by the
// harness (isMeta), part of a subagent's thread or a compaction summary.
func userText(record any) (string, bool) {
	r, _ := record.(map[string]any)
	if r["type"] != "user" || r["isMeta"] == true || r["isSidechain"] == true || r["isCompactSummary"] == true {
		return "", false
	}
	msg, _ := r["message"].(map[string]any)
	text, ok := msg["content"].(string)
	return text, ok
}

// CompactEvent implements HookReader.
func (ClaudeCode) CompactEvent() string { return "PreCompact" }

// claudeReadOnlyTools are Claude Code's tools that write no file.
var claudeReadOnlyTools = map[string]bool{"Read": true, "Grep": true, "Glob": true, "LS": true, "WebFetch": true,
	"WebSearch": true, "NotebookRead": true, "TodoWrite": true, "TodoRead": true, "ExitPlanMode": true}

// ChangesFiles is false after Claude Code's reading and searching tools.
func (ClaudeCode) ChangesFiles(p Payload) bool { return !readOnly(p, claudeReadOnlyTools) }

// TouchedFiles implements RecordReader: file_path of Write, Edit, MultiEdit and
// NotebookEdit calls (and MCP tools of those names).
func (ClaudeCode) TouchedFiles(record any) []string {
	r, _ := record.(map[string]any)
	msg, _ := r["message"].(map[string]any)
	blocks, _ := msg["content"].([]any)
	var out []string
	for _, b := range blocks {
		bl, _ := b.(map[string]any)
		if bl["type"] != "tool_use" {
			continue
		}
		name := str(bl, "name")
		if i := strings.LastIndex(name, "__"); i >= 0 {
			name = name[i+2:]
		}
		switch name {
		case "Write", "Edit", "MultiEdit", "NotebookEdit":
			in, _ := bl["input"].(map[string]any)
			if p := str(in, "file_path"); p != "" {
				out = append(out, p)
			} else if p := str(in, "notebook_path"); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// View implements RecordReader: a record wraps the API message under
// "message". Its id (uuid) and time are the record's; its role, content,
// model and usage the message's, and usage is keyed by the message's id,
// which every record of one split response repeats.
func (ClaudeCode) View(record any) (snapshot.Message, bool) {
	obj, _ := record.(map[string]any)
	inner, ok := obj["message"].(map[string]any)
	if !ok {
		return claudeProgress(obj)
	}
	if notClaude(obj) {
		return snapshot.Message{}, false
	}
	if obj["type"] == "api-request-blob" {
		// Claude Code 2.1.3xx keeps the blocks of the requests it sent
		// (system prompt, reminders, the conversation's tail) as
		// api-request-blob records named by their hash: a copy of what
		// the conversation holds, not part of it.
		return snapshot.Message{ID: str(obj, "hash"), Role: "api-request-blob"}, true
	}
	outer := snapshot.ViewMessage(obj)
	m := snapshot.ViewMessage(inner)
	m.ID, m.Time = outer.ID, outer.Time
	if str(inner, "role") == "" {
		m.Role = outer.Role
	}
	if m.Usage != nil {
		m.UsageKey = str(inner, "id")
		if m.UsageKey == "" {
			m.UsageKey = m.ID
		}
	}
	return m, true
}

// IsCompaction implements RecordReader: the boundary record written where the
// conversation was summarised.
func (ClaudeCode) IsCompaction(record any) bool {
	r, _ := record.(map[string]any)
	return r["type"] == "system" && r["subtype"] == "compact_boundary"
}

// SessionName implements Importer: a transcript is <session-id>.jsonl, a
// subagent's agent-<id>.jsonl.
func (ClaudeCode) SessionName(path string) string { return idInName(path) }

// Check implements Importer: Claude Code records carry a type and, for
// conversation records, a uuid and sessionId; Codex lines carry a payload.
func (ClaudeCode) Check(records []any) error {
	for _, rec := range records {
		r, ok := rec.(map[string]any)
		if !ok {
			continue
		}
		if _, codex := r["payload"]; codex {
			return fmt.Errorf("this is a Codex rollout (its lines have a payload); use --from codex")
		}
		if _, _, qwen := qwenRecord(r); qwen {
			continue
		}
		if _, ok := r["sessionId"]; ok && str(r, "type") != "" && (str(r, "uuid") != "" || r["isSidechain"] != nil) {
			return nil
		}
		if r["type"] == "summary" || r["type"] == "file-history-snapshot" {
			continue
		}
	}
	return fmt.Errorf("no Claude Code record (with a type, a uuid and a sessionId) in the first lines")
}

// Thread implements Threads: a subagent's records are marked isSidechain
// and carry the agentId of its agent-<id>.jsonl.
func (ClaudeCode) Thread(record any) string {
	r, _ := record.(map[string]any)
	if r["isSidechain"] != true {
		return ""
	}
	id, _ := r["agentId"].(string)
	return id
}

// Spawned implements Threads: the result of a Task call is a user record
// whose toolUseResult names the agentId it ran.
func (ClaudeCode) Spawned(record any) (string, string) {
	r, _ := record.(map[string]any)
	res, _ := r["toolUseResult"].(map[string]any)
	id, _ := res["agentId"].(string)
	msg, _ := r["message"].(map[string]any)
	parts, _ := msg["content"].([]any)
	if id == "" || r["type"] != "user" {
		return "", ""
	}
	for _, p := range parts {
		p, _ := p.(map[string]any)
		if call, ok := p["tool_use_id"].(string); ok && p["type"] == "tool_result" && call != "" {
			return call, id
		}
	}
	return "", ""
}

// SessionID implements SessionIDReader: the sessionId of its records.
func (ClaudeCode) SessionID(first []any) string {
	for _, rec := range first {
		r, _ := rec.(map[string]any)
		if id := str(r, "sessionId"); id != "" {
			return id
		}
	}
	return ""
}

// Mirrored implements Mirrorer: a progress record of type agent_progress
// holds, under data.message, a record of the running subagent data.agentId
// as its own file has it, less the members that say whose it is.
func (ClaudeCode) Mirrored(record any) (string, map[string]any, bool) {
	obj, _ := record.(map[string]any)
	data, _ := obj["data"].(map[string]any)
	inner, _ := data["message"].(map[string]any)
	sub := str(data, "agentId")
	if obj["type"] != "progress" || str(data, "type") != "agent_progress" || inner == nil || sub == "" {
		return "", nil, false
	}
	copied := make(map[string]any, len(inner)+3)
	for k, v := range inner {
		copied[k] = v
	}
	copied["isSidechain"], copied["agentId"] = true, sub
	if id, ok := obj["sessionId"]; ok {
		copied["sessionId"] = id
	}
	return sub, copied, true
}

// SubagentFile implements Mirrorer: agent-<id>.jsonl.
func (ClaudeCode) SubagentFile(subagent string) string { return "agent-" + subagent + ".jsonl" }

// notClaude reports whether a record that wraps a message is another
// agent's of that shape (Qwen Code's, pi's, Droid's).
func notClaude(r map[string]any) bool {
	_, _, qwen := qwenRecord(r)
	_, pi := piEntry(r)
	_, _, droid := droidMessage(r)
	return qwen || pi || droid
}

// claudeProgress reads a subagent's API response that Claude Code mirrors
// into its parent's transcript as it runs (a progress record of type
// agent_progress): its model and usage, keyed by the response's id, so
// that it is one model call with the same response in the subagent's own
// file, and the only record of it when that file is missing. It has no
// parts: its text and tool calls are the subagent's file's to show.
func claudeProgress(obj map[string]any) (snapshot.Message, bool) {
	data, _ := obj["data"].(map[string]any)
	outer, _ := data["message"].(map[string]any)
	inner, _ := outer["message"].(map[string]any)
	if obj["type"] != "progress" || str(data, "type") != "agent_progress" || str(outer, "type") != "assistant" || inner["usage"] == nil {
		return snapshot.Message{}, false
	}
	m := snapshot.ViewMessage(inner)
	m.ID, m.Time, m.Role, m.Parts = str(obj, "uuid"), str(obj, "timestamp"), "assistant", nil
	m.UsageKey = cmp.Or(str(inner, "id"), m.ID)
	return m, true
}

// claudeManagedSettings is the settings file an administrator manages,
// which Claude Code reads above every other.
func claudeManagedSettings() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-settings.json`
	}
	return "/etc/claude-code/managed-settings.json"
}

// Needs implements Needer: no settings file Claude Code reads turns its
// hooks off ("disableAllHooks": true in any of them, or
// "allowManagedHooksOnly": true in the managed one, which leaves only an
// administrator's hooks).
func (c ClaudeCode) Needs(_, workTree string) []Check {
	files := []string{c.managed(), filepath.Join(c.ConfigDir, "settings.json")}
	if workTree != "" {
		files = append(files, filepath.Join(workTree, ".claude", "settings.json"), filepath.Join(workTree, ".claude", "settings.local.json"))
	}
	check := Check{Name: "claude-code hooks on", Status: OK, Detail: "no settings file turns hooks off"}
	for i, f := range files {
		s, err := readSettings(f)
		if err != nil {
			continue // a file Claude Code cannot read either; the settings check names the hooks' own
		}
		switch {
		case s.get("disableAllHooks") == true:
			check.Status, check.Detail = Fail, fmt.Sprintf(`"disableAllHooks": true in %s: Claude Code runs no hook`, f)
			check.Fix = fmt.Sprintf(`remove "disableAllHooks" from %s`, f)
		case i == 0 && s.get("allowManagedHooksOnly") == true:
			check.Status, check.Detail = Fail, fmt.Sprintf(`"allowManagedHooksOnly": true in %s: Claude Code runs only hooks an administrator manages`, f)
			check.Fix = fmt.Sprintf("ask whoever manages %s to add git-snap's hooks there", f)
		default:
			continue
		}
		return []Check{check}
	}
	return []Check{check}
}

// managed is the managed settings file: ManagedSettings, else the
// system's.
func (c ClaudeCode) managed() string {
	if c.ManagedSettings != "" {
		return c.ManagedSettings
	}
	return claudeManagedSettings()
}

// ModelAPI implements ModelAPIer: Claude Code speaks Anthropic's
// Messages API.
func (ClaudeCode) ModelAPI() string { return "anthropic-messages" }

// ModelEndpoint implements ModelAPIer: Claude Code takes its API's base
// URL and a key from the environment.
func (ClaudeCode) ModelEndpoint(url string) string {
	return "ANTHROPIC_BASE_URL=" + url + " ANTHROPIC_API_KEY=replay claude"
}

// Title implements Titler: the name the user gave the session with
// /rename (a custom-title record), else the newest summary Claude Code
// wrote of it (a summary record).
func (ClaudeCode) Title(doc map[string]any) string {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	var custom, summary string
	for _, rec := range msgs {
		r, _ := rec.(map[string]any)
		switch r["type"] {
		case "custom-title":
			if t := str(r, "customTitle"); t != "" {
				custom = t
			}
		case "summary":
			if t := str(r, "summary"); t != "" {
				summary = t
			}
		}
	}
	if custom != "" {
		return custom
	}
	return summary
}

// IsPreamble implements Preambler: text Claude Code injects as the
// user's (isMeta: a command's expansion, caveats, reminders) and its
// system records.
func (ClaudeCode) IsPreamble(record any) bool {
	r, _ := record.(map[string]any)
	switch r["type"] {
	case "system":
		return true
	case "user":
		_, text := userTextAny(r)
		return r["isMeta"] == true && text
	}
	return false
}

// userTextAny reports whether a user record's content is text (not a
// tool result), whoever wrote it.
func userTextAny(r map[string]any) (string, bool) {
	msg, _ := r["message"].(map[string]any)
	switch c := msg["content"].(type) {
	case string:
		return c, true
	case []any:
		for _, b := range c {
			if m, _ := b.(map[string]any); m["type"] == "text" {
				return str(m, "text"), true
			}
		}
	}
	return "", false
}
