package agent

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// Gemini reads Gemini CLI's hook payloads and chat files (see
// docs/formats.md). A chat file is one JSON document,
// {sessionId, projectHash, startTime, lastUpdated, messages}, that Gemini
// CLI rewrites as the session grows, so it is read whole each call (see
// documentAgent).
type Gemini struct {
	// Dir holds the user's settings and chats: ~/.gemini.
	Dir string
}

func init() {
	register(Registration{New: newGemini, Info: Info{
		Name:     "gemini",
		Title:    "Gemini CLI",
		Settings: ".gemini/settings.json (--project, the default) or ~/.gemini/settings.json (--user)",
	}})
}

func newGemini(env Env) Adapter { return Gemini{Dir: filepath.Join(env.Home, ".gemini")} }

// Name implements Adapter.
func (Gemini) Name() string { return "gemini" }

// RecordsKey implements documentAgent: the chat's messages.
func (Gemini) RecordsKey() string { return "messages" }

// IsTranscriptFile implements documentAgent: chats/session-<time>-<id>.json.
func (Gemini) IsTranscriptFile(name string) bool {
	return strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ".json")
}

// Events implements Installer: BeforeAgent is the prompt, AfterAgent the
// end of a turn, PreCompress comes before a compression. AfterModel
// fires once per streamed chunk and is not installed.
func (Gemini) Events() []string {
	return []string{"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "PreCompress", "SessionEnd"}
}

// SettingsFile implements Installer: settings.json in ~/.gemini for the
// user, .gemini/settings.json in the project (the default). Gemini CLI
// has no personal project settings.
func (g Gemini) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("gemini has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(g.Dir, "settings.json"), nil
	}
	return filepath.Join(workTree, ".gemini", "settings.json"), nil
}

// InstallHook implements hookWriter: Gemini CLI's hooks are Claude
// Code's matcher groups, with the timeout in milliseconds.
func (g Gemini) InstallHook(file, command string) (bool, error) {
	return installHooks(file, g.Name(), command, g.Events(), g)
}

// HookTimeout implements HookTimeouts: Gemini CLI reads a hook's timeout
// in milliseconds, so install's 30 seconds are 30000.
func (Gemini) HookTimeout(string) int {
	return 30000
}

// UninstallHook implements hookWriter.
func (g Gemini) UninstallHook(file string) (bool, error) { return UninstallHooks(file, g.Name()) }

// Decode implements HookReader: the payload is a JSON object on stdin,
// with Claude Code's common fields.
func (g Gemini) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, "Gemini CLI hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Agent: g.Name(), Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"), Raw: raw,
	}
	p.ToolInput, _ = raw["tool_input"].(map[string]any)
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the Gemini CLI hook payload has no session_id or hook_event_name")
	}
	if p.TranscriptPath == "" {
		p.TranscriptPath = g.findChat(p.SessionID)
	}
	return p, nil
}

// findChat finds a session's chat file: Gemini CLI names it by the
// session id's first eight characters.
func (g Gemini) findChat(session string) string {
	if len(session) < 8 || strings.ContainsAny(session, `/\*?[`) {
		return ""
	}
	m, _ := filepath.Glob(filepath.Join(g.Dir, "tmp", "*", "chats", "session-*-"+session[:8]+".json"))
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

// Transcripts implements HookReader: a chat is one file.
func (Gemini) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader.
func (Gemini) CompactEvent() string { return "PreCompress" }

// geminiReadOnlyTools are Gemini CLI's tools that write no file.
var geminiReadOnlyTools = map[string]bool{"read_file": true, "read_many_files": true, "list_directory": true, "glob": true,
	"search_file_content": true, "grep_search": true, "google_web_search": true, "web_fetch": true, "write_todos": true}

// ChangesFiles is false after Gemini CLI's reading and searching tools.
func (Gemini) ChangesFiles(p Payload) bool { return !readOnly(p, geminiReadOnlyTools) }

// IsPrompt implements RecordReader: a user message.
func (Gemini) IsPrompt(record any) bool {
	r, _ := record.(map[string]any)
	return r["type"] == "user" && isGemini(r)
}

// TouchedFiles implements RecordReader: file_path of write_file and
// replace calls.
func (Gemini) TouchedFiles(record any) []string {
	r, _ := record.(map[string]any)
	calls, _ := r["toolCalls"].([]any)
	var out []string
	for _, c := range calls {
		call, _ := c.(map[string]any)
		switch str(call, "name") {
		case "write_file", "replace", "edit", "smart_edit":
			args, _ := call["args"].(map[string]any)
			if p := str(args, "file_path"); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// isGemini tells a chat message from other agents' records: an id, a
// timestamp and a type, with no API message wrapped in it.
func isGemini(r map[string]any) bool {
	_, wrapped := r["message"]
	_, content := r["content"]
	return !wrapped && content && str(r, "id") != "" && str(r, "timestamp") != "" && str(r, "type") != ""
}

// View implements RecordReader: a user message is a prompt; a gemini
// message is one model response, with its thoughts, its text, its tool
// calls and their results, and its tokens; info, warning and error
// messages are the CLI's notes.
func (Gemini) View(record any) (snapshot.Message, bool) {
	r, _ := record.(map[string]any)
	if !isGemini(r) {
		return snapshot.Message{}, false
	}
	m := snapshot.Message{ID: str(r, "id"), Time: str(r, "timestamp"), Role: str(r, "type"), Model: str(r, "model")}
	if m.Role != "gemini" {
		m.Parts = []snapshot.Part{{Kind: snapshot.PartText, Text: snapshot.ContentText(r["content"])}}
		return m, true
	}
	m.Role, m.UsageKey = "assistant", m.ID
	thoughts, _ := r["thoughts"].([]any)
	for _, t := range thoughts {
		th, _ := t.(map[string]any)
		m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartThinking, Text: strings.TrimSpace(str(th, "subject") + "\n" + str(th, "description"))})
	}
	if text := snapshot.ContentText(r["content"]); text != "" {
		m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartText, Text: text})
	}
	calls, _ := r["toolCalls"].([]any)
	for _, c := range calls {
		call, _ := c.(map[string]any)
		id := str(call, "id")
		m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartToolCall, Tool: str(call, "name"), CallID: id, Input: call["args"]})
		if status := str(call, "status"); status != "" {
			m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartToolResult, CallID: id, Text: geminiResult(call), IsError: geminiFailed(status)})
		}
	}
	if t, ok := r["tokens"].(map[string]any); ok {
		m.Usage = geminiUsage(t)
	}
	return m, true
}

// geminiResult is what a tool call gave the model: the output (or the
// error) of the functionResponse parts of its result, as Gemini CLI sent
// them back. resultDisplay is what the CLI showed the user (a summary,
// "Found 47 matches", or nothing), and is read only when a call has no
// result recorded.
func geminiResult(call map[string]any) string {
	parts, ok := call["result"].([]any)
	if !ok {
		return snapshot.ContentText(call["resultDisplay"])
	}
	var out []string
	for _, p := range parts {
		fr, _ := p.(map[string]any)
		resp, ok := fr["functionResponse"].(map[string]any)
		if !ok {
			if t := snapshot.ContentText([]any{p}); t != "" {
				out = append(out, t)
			}
			continue
		}
		r, _ := resp["response"].(map[string]any)
		switch {
		case r["output"] != nil:
			out = append(out, snapshot.ContentText(r["output"]))
		case r["error"] != nil:
			out = append(out, snapshot.ContentText(r["error"]))
		case r != nil:
			out = append(out, snapshot.ContentText(r))
		}
	}
	return strings.Join(out, "\n")
}

// geminiFailed reads a tool call's status: an error, or a call the user
// cancelled, did not do what the model asked.
func geminiFailed(status string) bool { return status == "error" || status == "cancelled" }

// geminiUsage reads a message's tokens. Gemini's input (the prompt's
// tokens) includes the cached ones, counted apart as cache reads, and
// excludes the tool-use prompt (tool); its output excludes the thoughts,
// billed as output. Gemini's implicit cache needs no writes.
func geminiUsage(t map[string]any) *snapshot.Usage {
	cached := snapshot.Int(t["cached"])
	return &snapshot.Usage{
		Input:     snapshot.Int(t["input"]) - cached + snapshot.Int(t["tool"]),
		CacheRead: cached,
		Output:    snapshot.Int(t["output"]) + snapshot.Int(t["thoughts"]),
	}
}

// IsCompaction implements RecordReader: Gemini CLI compresses the
// history it sends, not the chat file, which keeps every message.
func (Gemini) IsCompaction(any) bool { return false }

// SessionName implements Importer: the chat's sessionId, which the hooks
// give as session_id; else the file's name.
func (g Gemini) SessionName(path string) string {
	return documentName(path, g.RecordsKey(), func(head map[string]any) string { return str(head, "sessionId") })
}

// Check implements Importer: a chat is an object with a sessionId and
// messages.
func (Gemini) Check(records []any) error {
	if len(records) == 0 {
		return fmt.Errorf("no Gemini CLI chat: the file is empty")
	}
	doc, _ := records[0].(map[string]any)
	if _, ok := doc["info"]; ok {
		return fmt.Errorf("this is an OpenCode export (it has info); use --from opencode")
	}
	if _, ok := doc["messages"].([]any); !ok || str(doc, "sessionId") == "" {
		return fmt.Errorf("no Gemini CLI chat (an object with a sessionId and messages)")
	}
	return nil
}

// TranscriptName implements TranscriptNamer: the chat's own file name
// when it was recorded from one, else the name Gemini CLI gives a chat,
// session-<start, UTC, to the minute>-<the session id's first eight
// characters>.json (docs/formats.md).
func (g Gemini) TranscriptName(session string, doc map[string]any) string {
	st, _ := docStateFrom(doc)
	if base := filepath.Base(st.Path); st.Path != "" && g.IsTranscriptFile(base) && snapshot.CheckPath(base) == nil {
		return base
	}
	id := chatID(st.Head, session)
	start, err := time.Parse(time.RFC3339Nano, str(st.Head, "startTime"))
	if err != nil {
		start = time.Unix(0, 0)
	}
	return "session-" + start.UTC().Format("2006-01-02T15-04") + "-" + id[:min(8, len(id))] + ".json"
}

// ResumeTarget implements Resumer: the chat where Gemini CLI has it, else
// chats/ of the project's folder under ~/.gemini/tmp, named by the
// chat's projectHash (the SHA-256 of the project's path); gemini --resume
// takes the session id, run in the project.
func (g Gemini) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	if err := snapshot.CheckName("session", session); err != nil {
		return "", "", err
	}
	st, ok := docStateFrom(doc)
	if !ok {
		return "", "", fmt.Errorf("the snapshot was not recorded from a Gemini CLI chat")
	}
	id := chatID(st.Head, session)
	command := "gemini --resume " + shellQuote(id) + "   # in the project's folder"
	if p := g.findChat(id); p != "" {
		return p, command, nil
	}
	hash := str(st.Head, "projectHash")
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return "", "", fmt.Errorf("the chat has no projectHash (the SHA-256 of the project's path) to find its folder under %s", filepath.Join(g.Dir, "tmp"))
	}
	return filepath.Join(g.Dir, "tmp", hash, "chats", g.TranscriptName(session, doc)), command, nil
}

// chatID is the chat's sessionId when it is a name git-snap accepts
// (letters, digits, '.', '_', '-'), else the session's own name, which
// is: the id goes into a file name, and a snapshot, imported or pulled,
// may hold any sessionId, /../../x among them.
func chatID(head map[string]any, session string) string {
	if id := str(head, "sessionId"); id != "" && snapshot.CheckName("session", id) == nil {
		return id
	}
	return session
}
