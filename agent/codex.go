package agent

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// Codex reads OpenAI Codex CLI hook payloads, its legacy notify argument,
// and rollout files (see docs/formats.md).
type Codex struct {
	// Home holds the rollouts and the user's hooks: $CODEX_HOME, else
	// ~/.codex.
	Home string
}

func init() {
	register(Registration{New: newCodex, Info: Info{
		Name:     "codex",
		Title:    "Codex CLI",
		Settings: ".codex/hooks.json (--project, the default) or ~/.codex/hooks.json (--user)",
	}})
}

func newCodex(env Env) Adapter { return Codex{Home: env.dir("CODEX_HOME", ".codex")} }

// Name implements Adapter.
func (Codex) Name() string { return "codex" }

// Events implements Installer: Codex has no event for a failed tool
// (PostToolUse has its result); SessionEnd came with release 0.146
// (earlier releases ignore it).
func (Codex) Events() []string {
	return []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop", "PreCompact", "SessionEnd"}
}

// HookTimeout implements HookTimeouts: Codex caps SessionEnd's hooks at 3
// seconds and warns at every start about one asking for more.
func (Codex) HookTimeout(event string) int {
	if event == "SessionEnd" {
		return 3
	}
	return 30
}

// SettingsFile implements Installer: hooks.json in Codex's home for the
// user, .codex/hooks.json in the project (the default). Codex has no
// personal project settings.
func (c Codex) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("codex has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(c.Home, "hooks.json"), nil
	}
	return filepath.Join(workTree, ".codex", "hooks.json"), nil
}

// Decode implements HookReader. A hook call sends its payload on stdin; the
// legacy notify program gets it as its last argument, with kebab-case
// keys and no transcript path, which is then found by its thread id.
func (c Codex) Decode(stdin []byte, args []string) (Payload, error) {
	if n := len(args); n > 0 && strings.HasPrefix(strings.TrimSpace(args[n-1]), "{") {
		return c.decodeNotify([]byte(args[n-1]))
	}
	raw, err := decodeObject(stdin, "Codex hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Agent: "codex", Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"),
		Subagent: str(raw, "agent_transcript_path"), Raw: raw,
	}
	p.ToolInput, _ = raw["tool_input"].(map[string]any)
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the Codex hook payload has no session_id or hook_event_name")
	}
	if p.TranscriptPath == "" {
		p.TranscriptPath = c.findRollout(p.SessionID)
	}
	return p, nil
}

func (c Codex) decodeNotify(arg []byte) (Payload, error) {
	raw, err := decodeObject(arg, "Codex notify argument")
	if err != nil {
		return Payload{}, err
	}
	if str(raw, "type") != "agent-turn-complete" {
		return Payload{}, fmt.Errorf("Codex notify %q is not agent-turn-complete", str(raw, "type"))
	}
	p := Payload{Agent: "codex", Event: "Stop", SessionID: str(raw, "thread-id"), CWD: str(raw, "cwd"), Raw: raw}
	if p.SessionID == "" {
		return Payload{}, fmt.Errorf("the Codex notify argument has no thread-id")
	}
	p.TranscriptPath = c.findRollout(p.SessionID)
	return p, nil
}

// findRollout finds a thread's rollout: sessions/YYYY/MM/DD/ or, in older
// releases, sessions/ itself.
func (c Codex) findRollout(thread string) string {
	for _, pattern := range []string{"sessions/*/*/*/rollout-*-" + thread + ".jsonl", "sessions/rollout-*-" + thread + ".jsonl"} {
		if m, _ := filepath.Glob(filepath.Join(c.Home, pattern)); len(m) > 0 {
			return m[len(m)-1]
		}
	}
	return ""
}

// Transcripts implements HookReader: a subagent's rollout is named by the
// SubagentStop event that ends it.
func (Codex) Transcripts(p Payload) (map[string]string, error) {
	if p.Subagent == "" || p.TranscriptPath == "" {
		return nil, nil
	}
	rel, err := filepath.Rel(filepath.Dir(p.TranscriptPath), p.Subagent)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = subagentsDir + "/" + filepath.Base(p.Subagent)
	}
	return map[string]string{filepath.ToSlash(rel): p.Subagent}, nil
}

// IsPrompt implements RecordReader: a user_message event or, from
// release 0.169, which writes none, an item_completed event of a
// UserMessage item (the user's message as response_item is not told
// apart from the context Codex adds as user messages).
func (Codex) IsPrompt(record any) bool {
	r, _ := record.(map[string]any)
	payload, _ := r["payload"].(map[string]any)
	if r["type"] != "event_msg" {
		return false
	}
	switch payload["type"] {
	case "user_message":
		return true
	case "item_completed":
		item, _ := payload["item"].(map[string]any)
		return item["type"] == "UserMessage"
	}
	return false
}

// CompactEvent implements HookReader.
func (Codex) CompactEvent() string { return "PreCompact" }

// codexReadOnlyTools are Codex's tools that write no file.
var codexReadOnlyTools = map[string]bool{"update_plan": true, "web_search": true, "view_image": true}

// ChangesFiles is false after Codex's planning and searching tools.
func (Codex) ChangesFiles(p Payload) bool { return !readOnly(p, codexReadOnlyTools) }

// TouchedFiles implements RecordReader: the paths of an apply_patch call.
func (Codex) TouchedFiles(record any) []string {
	r, _ := record.(map[string]any)
	payload, _ := r["payload"].(map[string]any)
	if r["type"] != "response_item" || str(payload, "name") != "apply_patch" {
		return nil
	}
	patch := str(payload, "input")
	if patch == "" {
		patch = str(payload, "arguments")
	}
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, prefix); ok {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	return out
}

// View implements RecordReader: a rollout line is {timestamp, type, payload}.
// Response items are the conversation; event_msg lines are events, a
// token_count one with the session's running token total; turn_context
// names the model of the turn.
func (Codex) View(record any) (snapshot.Message, bool) {
	obj, _ := record.(map[string]any)
	p, ok := obj["payload"].(map[string]any)
	if !ok || str(obj, "type") == "" {
		return snapshot.Message{}, false
	}
	m := snapshot.Message{Time: str(obj, "timestamp"), ID: str(p, "id")}
	switch str(obj, "type") {
	case "response_item":
		viewResponseItem(&m, p)
	case "event_msg":
		viewEvent(&m, p)
	case "turn_context":
		m.Role, m.Model = "event", str(p, "model")
	default:
		m.Role = str(obj, "type")
	}
	return m, true
}

func viewResponseItem(m *snapshot.Message, p map[string]any) {
	switch kind := str(p, "type"); kind {
	case "message":
		m.Role, m.Parts = str(p, "role"), snapshot.ContentParts(p)
	case "reasoning":
		m.Role = "assistant"
		m.Parts = []snapshot.Part{{Kind: snapshot.PartThinking, Text: snapshot.ContentText(p["summary"])}}
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
		m.Role = "assistant"
		name := str(p, "name")
		switch {
		case kind == "web_search_call":
			name = "web_search"
		case name == "":
			name = "shell"
		}
		m.Parts = []snapshot.Part{{Kind: snapshot.PartToolCall, Tool: name, CallID: str(p, "call_id"), Input: firstOf(p, "arguments", "input", "action")}}
	case "function_call_output", "custom_tool_call_output":
		m.Role = "tool"
		out := snapshot.ContentText(p["output"])
		m.Parts = []snapshot.Part{{Kind: snapshot.PartToolResult, CallID: str(p, "call_id"), Text: out, IsError: codexFailed(out)}}
	default:
		m.Role = kind
	}
}

func viewEvent(m *snapshot.Message, p map[string]any) {
	m.Role = "event"
	kind := str(p, "type")
	if kind == "token_count" {
		info, _ := p["info"].(map[string]any)
		if total, ok := info["total_token_usage"].(map[string]any); ok {
			m.TotalUsage = codexUsage(total)
		}
	}
	m.Parts = []snapshot.Part{{Kind: snapshot.PartOther, Text: kind}}
	switch kind {
	case "user_message", "agent_message":
		m.Parts = []snapshot.Part{{Kind: snapshot.PartText, Text: str(p, "message")}}
	case "item_completed": // 0.169: a finished item; messages carry their text
		item, _ := p["item"].(map[string]any)
		if t := str(item, "type"); t == "UserMessage" || t == "AgentMessage" {
			m.Parts = []snapshot.Part{{Kind: snapshot.PartText, Text: itemText(item)}}
		}
	}
}

// itemText is the text of an item_completed message: its content's
// parts' text, whatever their type's case ("text", "Text").
func itemText(item map[string]any) string {
	parts, _ := item["content"].([]any)
	var texts []string
	for _, p := range parts {
		if o, ok := p.(map[string]any); ok && strings.EqualFold(str(o, "type"), "text") {
			texts = append(texts, str(o, "text"))
		}
	}
	return strings.Join(texts, "\n")
}

// codexUsage reads a token_count total. Codex's input_tokens includes
// the cached input (cached_input_tokens) and, from release 0.169, the
// input written to the cache (cache_write_input_tokens, from a
// provider's cache_write_tokens), both counted separately; its output_tokens
// includes reasoning (total_tokens is input + output).
func codexUsage(total map[string]any) *snapshot.Usage {
	cached, written := snapshot.Int(total["cached_input_tokens"]), snapshot.Int(total["cache_write_input_tokens"])
	return &snapshot.Usage{Input: snapshot.Int(total["input_tokens"]) - cached - written, CacheRead: cached, CacheWrite: written,
		Output: snapshot.Int(total["output_tokens"])}
}

// codexFailed reads the exit code of a tool's output. Codex wraps some in
// {"output": …, "metadata": {"exit_code": N}}; newer exec_command output
// is text with a header of "Key: value" lines, one of them "Process
// exited with code N", before the line "Output:".
func codexFailed(out string) bool {
	v, err := snapshot.Parse([]byte(out), snapshot.Limits{})
	if err != nil {
		for _, line := range strings.Split(out, "\n") {
			if line == "Output:" {
				break
			}
			if code, ok := strings.CutPrefix(line, "Process exited with code "); ok {
				return strings.TrimSpace(code) != "0"
			}
		}
		return false
	}
	o, _ := v.(map[string]any)
	meta, _ := o["metadata"].(map[string]any)
	return snapshot.Int(meta["exit_code"]) != 0
}

// firstOf is the value of the first of keys that o has, even null.
func firstOf(o map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := o[k]; ok {
			return v
		}
	}
	return nil
}

// IsCompaction implements RecordReader: the line that replaces the history
// with its summary. Releases that also write a context_compacted event
// write it beside that line, for the same compaction, so the event is
// not counted.
func (Codex) IsCompaction(record any) bool {
	r, _ := record.(map[string]any)
	return r["type"] == "compacted"
}

// SessionName implements Importer: a rollout is
// rollout-<local time>-<thread id>.jsonl, and the thread id (a UUID)
// names the session, as the hooks' session_id does.
func (Codex) SessionName(path string) string { return idInName(path) }

// Check implements Importer: rollout lines are {timestamp, type, payload}.
func (Codex) Check(records []any) error {
	for _, rec := range records {
		r, ok := rec.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := r["payload"]; ok && r["type"] != nil {
			return nil
		}
		if _, claude := r["sessionId"]; claude {
			return fmt.Errorf("this is a Claude Code transcript; use --from claude-code")
		}
	}
	return fmt.Errorf("no Codex rollout line ({timestamp, type, payload}) in the first lines")
}

// TranscriptName implements TranscriptNamer: the rollout's own name when
// it was recorded from one, else rollout-<time>-<thread id>.jsonl, the
// time the thread's first record's (Codex writes local time there; the
// record's UTC time is what the snapshot knows).
func (Codex) TranscriptName(session string, doc map[string]any) string {
	if name := RecordedName(doc); strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl") {
		return name
	}
	return "rollout-" + codexStart(doc).UTC().Format("2006-01-02T15-04-05") + "-" + session + ".jsonl"
}

// codexStart is the time of a rollout's first record that has one.
func codexStart(doc map[string]any) time.Time {
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	for _, m := range msgs[:min(len(msgs), 20)] {
		r, _ := m.(map[string]any)
		if at, err := time.Parse(time.RFC3339Nano, str(r, "timestamp")); err == nil {
			return at
		}
	}
	return time.Unix(0, 0)
}

// ResumeTarget implements Resumer: the thread's rollout where Codex has
// it, else sessions/YYYY/MM/DD/ of its start in Codex's home; codex
// resume takes the thread id.
func (c Codex) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	if err := snapshot.CheckName("session", session); err != nil {
		return "", "", err
	}
	command := "codex resume " + session
	if cwd, _ := doc["cwd"].(string); filepath.IsAbs(cwd) {
		command = andThen("cd "+shellQuote(cwd), command)
	}
	if p := c.findRollout(session); p != "" {
		return p, command, nil
	}
	day := codexStart(doc).UTC().Format("2006/01/02")
	return filepath.Join(c.Home, "sessions", filepath.FromSlash(day), c.TranscriptName(session, doc)), command, nil
}

// SessionID implements SessionIDReader: the thread id session_meta gives.
func (Codex) SessionID(first []any) string {
	for _, rec := range first {
		r, _ := rec.(map[string]any)
		if p, _ := r["payload"].(map[string]any); r["type"] == "session_meta" {
			return str(p, "id")
		}
	}
	return ""
}

// ModelAPI implements ModelAPIer: Codex speaks OpenAI's Responses API
// (wire_api = "responses"; release 0.169 refuses "chat").
func (Codex) ModelAPI() string { return "openai-responses" }

// ModelEndpoint implements ModelAPIer: Codex takes a model provider only
// from the user's config.toml (a project's may not set one), and reads
// its key from the variable env_key names.
func (Codex) ModelEndpoint(url string) string {
	return `model_provider = "replay"     # in ~/.codex/config.toml, with:
[model_providers.replay]
name = "git-snap replay"
base_url = "` + url + `/v1"
wire_api = "responses"
env_key = "REPLAY_API_KEY"    # then: REPLAY_API_KEY=replay codex exec …`
}

// codexContext starts the user messages Codex writes itself: the
// environment, the user's and the project's instructions.
var codexContext = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>"}

// IsPreamble implements Preambler: developer and system messages, and
// the context Codex sends as the user's.
func (Codex) IsPreamble(record any) bool {
	r, _ := record.(map[string]any)
	p, _ := r["payload"].(map[string]any)
	if str(r, "type") != "response_item" || str(p, "type") != "message" {
		return false
	}
	switch str(p, "role") {
	case "developer", "system":
		return true
	case "user":
		text := strings.TrimSpace(snapshot.ContentText(p["content"]))
		for _, c := range codexContext {
			if strings.HasPrefix(text, c) {
				return true
			}
		}
	}
	return false
}
