package agent

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Qwen reads Qwen Code's hook payloads and chats (see docs/formats.md).
// Its hooks are Claude Code's (matcher groups in settings.json, payloads
// naming the transcript); its chat is JSONL, appended, in
// ~/.qwen/projects/<project key>/chats/<session>.jsonl: records with
// uuid, parentUuid, sessionId and type (user, assistant, tool_result,
// system), whose message holds Gemini's parts (text, functionCall,
// functionResponse) under role user or model.
type Qwen struct {
	// Dir holds the user's settings and chats: ~/.qwen.
	Dir string
}

func init() {
	register(Registration{New: newQwen, Info: Info{
		Name:     "qwen",
		Title:    "Qwen Code",
		Settings: ".qwen/settings.json (--project, the default) or ~/.qwen/settings.json (--user)",
	}})
}

func newQwen(env Env) Adapter { return Qwen{Dir: filepath.Join(env.Home, ".qwen")} }

// Name implements Adapter.
func (Qwen) Name() string { return "qwen" }

// Events implements Installer: Claude Code's events, which Qwen Code
// fires alike (SessionEnd not in -p mode).
func (Qwen) Events() []string {
	return []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "SessionEnd"}
}

// SettingsFile implements Installer: settings.json in ~/.qwen for the
// user, .qwen/settings.json in the project (the default).
func (q Qwen) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("qwen has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(q.Dir, "settings.json"), nil
	}
	return filepath.Join(workTree, ".qwen", "settings.json"), nil
}

// Decode implements HookReader: Claude Code's payload, naming the chat.
func (q Qwen) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, "Qwen Code hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Agent: q.Name(), Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"), Raw: raw,
	}
	p.ToolInput, _ = raw["tool_input"].(map[string]any)
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the Qwen Code hook payload has no session_id or hook_event_name")
	}
	return p, nil
}

// WritesAfter implements LateWriter: Qwen Code queues its chat's writes,
// and the response that ends a turn may land after the Stop hook
// returns (seen with -p: the last two records missing after a resume).
func (Qwen) WritesAfter(p Payload) bool { return p.Event == "Stop" || p.Event == "SessionEnd" }

// Ended implements LateWriter: a turn ends with a response that calls no
// tool.
func (Qwen) Ended(last any) bool {
	r, parts, ok := qwenRecord(last)
	if !ok || str(r, "type") != "assistant" {
		return false
	}
	for _, p := range parts {
		if part, _ := p.(map[string]any); part["functionCall"] != nil {
			return false
		}
	}
	return true
}

// Transcripts implements HookReader: a chat is one file.
func (Qwen) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader.
func (Qwen) CompactEvent() string { return "PreCompact" }

// qwenReadOnlyTools are Qwen Code's tools that write no file.
var qwenReadOnlyTools = map[string]bool{"read_file": true, "read_many_files": true, "list_directory": true, "glob": true,
	"grep_search": true, "web_fetch": true, "web_search": true, "todo_write": true}

// ChangesFiles is false after Qwen Code's reading and searching tools.
func (Qwen) ChangesFiles(p Payload) bool { return !readOnly(p, qwenReadOnlyTools) }

// qwenRecord is a chat record: the record and its message's parts; ok is
// false for a record not of Qwen Code's shape (a uuid, a sessionId, a
// type, and a message of parts when it has one).
func qwenRecord(record any) (r map[string]any, parts []any, ok bool) {
	r, _ = record.(map[string]any)
	if str(r, "uuid") == "" || str(r, "sessionId") == "" || str(r, "type") == "" {
		return nil, nil, false
	}
	_, hasParent := r["parentUuid"]
	_, claude := r["isSidechain"] // Claude Code's records, of the same ids, carry it
	msg, wrapped := r["message"].(map[string]any)
	parts, partsOK := msg["parts"].([]any)
	_, provenance := r["provenance"]
	_, payload := r["systemPayload"]
	if !hasParent || claude || wrapped && !partsOK || r["message"] != nil && !wrapped || !wrapped && !provenance && !payload {
		return nil, nil, false
	}
	return r, parts, true
}

// IsPrompt implements RecordReader: a user record with text, which Qwen
// Code marks as the user's own (provenance real_user).
func (Qwen) IsPrompt(record any) bool {
	r, parts, ok := qwenRecord(record)
	if !ok || str(r, "type") != "user" || str(r, "provenance") != "" && str(r, "provenance") != "real_user" {
		return false
	}
	return strings.TrimSpace(geminiText(parts)) != ""
}

// TouchedFiles implements RecordReader: file_path of write_file and edit
// calls.
func (Qwen) TouchedFiles(record any) []string {
	_, parts, _ := qwenRecord(record)
	var out []string
	for _, p := range parts {
		part, _ := p.(map[string]any)
		call, _ := part["functionCall"].(map[string]any)
		switch str(call, "name") {
		case "write_file", "edit", "replace":
			args, _ := call["args"].(map[string]any)
			if f := str(args, "file_path"); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// View implements RecordReader: user and tool_result records are the
// user's side (a prompt, the results of tool calls), assistant records
// one model response with its usage; system records (telemetry, file
// attribution) are events.
func (Qwen) View(record any) (snapshot.Message, bool) {
	r, parts, ok := qwenRecord(record)
	if !ok {
		return snapshot.Message{}, false
	}
	m := snapshot.Message{ID: str(r, "uuid"), Time: str(r, "timestamp"), Model: str(r, "model")}
	switch str(r, "type") {
	case "assistant":
		m.Role = "assistant"
	case "user", "tool_result":
		m.Role = "user"
	default:
		m.Role = "event"
		return m, true
	}
	for _, p := range parts {
		m.Parts = append(m.Parts, qwenPart(p, r)...)
	}
	if u, ok := r["usageMetadata"].(map[string]any); ok && m.Role == "assistant" {
		cached := snapshot.Int(u["cachedContentTokenCount"])
		m.UsageKey = m.ID
		m.Usage = &snapshot.Usage{Input: snapshot.Int(u["promptTokenCount"]) - cached, CacheRead: cached,
			Output: snapshot.Int(u["candidatesTokenCount"]) + snapshot.Int(u["thoughtsTokenCount"])}
	}
	return m, true
}

// qwenPart reads one part of a message: text (a thought when marked so),
// a tool call, or a tool's result, failed when the record's
// toolCallResult says so.
func qwenPart(p any, r map[string]any) []snapshot.Part {
	part, _ := p.(map[string]any)
	if call, ok := part["functionCall"].(map[string]any); ok {
		return []snapshot.Part{{Kind: snapshot.PartToolCall, Tool: str(call, "name"), CallID: str(call, "id"), Input: call["args"]}}
	}
	if resp, ok := part["functionResponse"].(map[string]any); ok {
		result, _ := r["toolCallResult"].(map[string]any)
		status := cmp.Or(str(result, "status"), "success")
		return []snapshot.Part{{Kind: snapshot.PartToolResult, CallID: str(resp, "id"), Text: geminiResult(map[string]any{"result": []any{part}}),
			IsError: status != "success"}}
	}
	if t, ok := part["text"].(string); ok {
		if part["thought"] == true {
			return []snapshot.Part{{Kind: snapshot.PartThinking, Text: t}}
		}
		return []snapshot.Part{{Kind: snapshot.PartText, Text: t}}
	}
	return nil
}

// IsCompaction implements RecordReader: the system record Qwen Code
// writes where it compressed the chat.
func (Qwen) IsCompaction(record any) bool {
	r, _, ok := qwenRecord(record)
	return ok && str(r, "type") == "system" && str(r, "subtype") == "chat_compression"
}

// SessionName implements Importer: a chat is <session id>.jsonl.
func (Qwen) SessionName(path string) string { return idInName(path) }

// SessionID implements SessionIDReader.
func (Qwen) SessionID(first []any) string {
	for _, rec := range first {
		if r, _, ok := qwenRecord(rec); ok {
			return str(r, "sessionId")
		}
	}
	return ""
}

// Check implements Importer: the first records are Qwen Code's (uuid,
// parentUuid, sessionId, type; messages of parts).
func (Qwen) Check(records []any) error {
	for _, rec := range records {
		if _, _, ok := qwenRecord(rec); ok {
			return nil
		}
	}
	return fmt.Errorf("no Qwen Code record (uuid, parentUuid, sessionId, type, and a message of parts) in the first lines")
}

// qwenProjectDir is the folder of a project's chats: its path with
// every character but ASCII letters and digits made '-', as Claude
// Code names its projects' folders.
func qwenProjectDir(cwd string) string { return claudeProjectDir(cwd) }

// ResumeTarget implements Resumer: projects/<project key>/chats/<id>.jsonl
// in ~/.qwen, resumed by qwen --resume in the project.
func (q Qwen) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	cwd, _ := doc["cwd"].(string)
	if cwd == "" {
		cwd = claudeCWD(doc) // every record names it
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", "", fmt.Errorf("the snapshot names no project folder (cwd) to resume the session in")
	}
	if err := snapshot.CheckName("session", session); err != nil {
		return "", "", err
	}
	path := filepath.Join(q.Dir, "projects", qwenProjectDir(cwd), "chats", session+".jsonl")
	return path, fmt.Sprintf("cd %s && qwen --resume %s", shellQuote(cwd), session), nil
}

// ModelAPI implements ModelAPIer: Qwen Code speaks Chat Completions to
// an OpenAI-compatible server.
func (Qwen) ModelAPI() string { return "openai-chat" }

// ModelEndpoint implements ModelAPIer: the server and model from the
// environment.
func (Qwen) ModelEndpoint(url string) string {
	return "OPENAI_BASE_URL=" + url + "/v1 OPENAI_API_KEY=replay OPENAI_MODEL=<the recorded model> qwen --auth-type openai"
}

// Needs implements Needer: no settings file Qwen Code reads turns its
// hooks off ("disableAllHooks": true), and, where the user turned folder
// trust on, the project is trusted (an untrusted folder's settings, so
// its hooks, are not read).
func (q Qwen) Needs(hooksFile, workTree string) []Check {
	user := filepath.Join(q.Dir, "settings.json")
	files := []string{user}
	if workTree != "" {
		files = append(files, filepath.Join(workTree, ".qwen", "settings.json"))
	}
	out := []Check{{Name: "qwen hooks on", Status: OK, Detail: "no settings file turns hooks off"}}
	for _, f := range files {
		if s, err := readSettings(f); err == nil && s.get("disableAllHooks") == true {
			out[0] = Check{Name: "qwen hooks on", Status: Fail, Detail: fmt.Sprintf(`"disableAllHooks": true in %s: Qwen Code runs no hook`, f),
				Fix: fmt.Sprintf(`remove "disableAllHooks" from %s`, f)}
			break
		}
	}
	if workTree != "" && strings.HasPrefix(hooksFile, workTree+string(filepath.Separator)) && q.trustOn(user) {
		out = append(out, q.trustCheck(workTree))
	}
	return out
}

// trustOn reports whether the user turned Qwen Code's folder trust on
// (security.folderTrust.enabled; off by default).
func (Qwen) trustOn(user string) bool {
	s, err := readSettings(user)
	if err != nil {
		return false
	}
	sec, _ := s.get("security").(*ordered)
	if sec == nil {
		return false
	}
	ft, _ := sec.get("folderTrust").(*ordered)
	return ft != nil && ft.get("enabled") == true
}

// trustCheck checks that ~/.qwen/trustedFolders.json trusts the project
// (or a folder above it), as Gemini CLI's does.
func (q Qwen) trustCheck(workTree string) Check {
	file := filepath.Join(q.Dir, "trustedFolders.json")
	s, err := readSettings(file)
	if err == nil {
		for dir := workTree; ; dir = filepath.Dir(dir) {
			level, _ := s.get(dir).(string)
			if level == "TRUST_FOLDER" || level == "TRUST_PARENT" && dir != workTree {
				return Check{Name: "qwen folder trust", Status: OK, Detail: workTree + " is trusted in " + file}
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return Check{Name: "qwen folder trust", Status: Fail,
		Detail: workTree + " is not trusted in " + file + " and folder trust is on: Qwen Code ignores the project's .qwen/settings.json, and its hooks",
		Fix:    fmt.Sprintf(`add "%s": "TRUST_FOLDER" to %s (or trust the folder when Qwen Code asks)`, workTree, file)}
}
