package agent

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// Gemini reads Gemini CLI's hook payloads and chat files (see
// docs/formats.md). Gemini CLI 0.61 appends a chat as JSONL,
// chats/session-<UTC>-<id8>.jsonl in ~/.gemini/tmp/<project name>/: a
// first line with the session's metadata, then message records (one
// again with the same id replaces it), {"$set": {...}} metadata updates
// ($set.messages replaces every message) and {"$rewindTo": id}. Its
// lines are recorded as they come, like other agents' transcripts, and
// Live reads them as Gemini CLI loads them. The chats it wrote before
// are one JSON document, {sessionId, projectHash, startTime,
// lastUpdated, messages}, rewritten as the session grows, read whole
// each call (see documentAgent).
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

// IsTranscriptFile implements documentAgent: chats/session-<time>-<id>.jsonl,
// or .json as Gemini CLI wrote them before 0.61.
func (Gemini) IsTranscriptFile(name string) bool {
	return strings.HasPrefix(name, "session-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json"))
}

// IsDocumentFile implements mixedAgent: a .json chat is one document, a
// .jsonl chat lines.
func (Gemini) IsDocumentFile(path string) bool { return strings.HasSuffix(path, ".json") }

// Events implements Installer: BeforeAgent is the prompt, AfterAgent the
// end of a turn, PreCompress comes at each compression check (whether
// or not it compresses). AfterModel fires once per streamed chunk and is
// not installed.
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
	} else {
		p.TranscriptPath = firstChat(p.TranscriptPath, p.SessionID)
	}
	return p, nil
}

// firstChat is the session's first JSONL chat in the folder of the one a
// hook call names. A resume started in another minute than the chat
// begins a file of its own, session-<now>-<id8>.jsonl, that its
// SessionStart names; the session then goes on in its first file, which
// the later calls name, and the new one keeps only its start. Naming the
// first file at each call records the session from one file.
func firstChat(path, session string) string {
	base := filepath.Base(path)
	if !strings.HasSuffix(base, ".jsonl") || len(session) < 8 || !strings.HasSuffix(base, "-"+session[:8]+".jsonl") || strings.ContainsAny(session[:8], `/\*?[`) {
		return path
	}
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "session-*-"+session[:8]+".jsonl"))
	sort.Strings(m) // by the time in their names
	for _, c := range m {
		if c == path {
			return path
		}
		if geminiChatID(c) == session {
			return c
		}
	}
	return path
}

// findChat finds a session's chat file: Gemini CLI names it by the
// session id's first eight characters; of several (a resume may start a
// file it then leaves), the one whose first line names the session and
// that holds the most, a JSONL chat before an older .json one.
func (g Gemini) findChat(session string) string {
	if len(session) < 8 || strings.ContainsAny(session, `/\*?[`) {
		return ""
	}
	for _, ext := range []string{".jsonl", ".json"} {
		m, _ := filepath.Glob(filepath.Join(g.Dir, "tmp", "*", "chats", "session-*-"+session[:8]+ext))
		best, size := "", int64(-1)
		for _, path := range m {
			fi, err := os.Stat(path)
			if err != nil || fi.Size() <= size {
				continue
			}
			if id := geminiChatID(path); id != "" && id != session {
				continue
			}
			best, size = path, fi.Size()
		}
		if best != "" {
			return best
		}
	}
	return ""
}

// geminiChatID is the sessionId a chat file's first line (or document)
// names, "" when it names none.
func geminiChatID(path string) string {
	if strings.HasSuffix(path, ".json") {
		head, _, _, err := readDocument(path, "messages", snapshot.Limits{})
		if err != nil {
			return ""
		}
		return str(head, "sessionId")
	}
	f, err := OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 64<<10)).ReadBytes('\n')
	if err != nil {
		return ""
	}
	first, _ := Element(line[:len(line)-1], snapshot.Limits{}).(map[string]any)
	return str(first, "sessionId")
}

// Transcripts implements HookReader: a chat is one file.
func (Gemini) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader: none. PreCompress fires at each
// compression check, before Gemini CLI knows whether it compresses, so
// it sets no checkpoint; a compression shows in the records that follow
// it (see Compactions).
func (Gemini) CompactEvent() string { return "" }

// geminiReadOnlyTools are Gemini CLI's tools that write no file.
var geminiReadOnlyTools = map[string]bool{"read_file": true, "read_many_files": true, "list_directory": true, "glob": true,
	"search_file_content": true, "grep_search": true, "google_web_search": true, "web_fetch": true, "write_todos": true}

// ChangesFiles is false after Gemini CLI's reading and searching tools.
func (Gemini) ChangesFiles(p Payload) bool { return !readOnly(p, geminiReadOnlyTools) }

// IsPrompt implements RecordReader: a user message with text, not one
// Gemini CLI wrote itself: the session's context (<session_context>), a
// hook's (<hook_context>), or the results of tool calls (functionResponse
// parts, no text), which it leaves out of a resumed conversation alike,
// or the summary of a compressed history (a <state_snapshot>).
func (Gemini) IsPrompt(record any) bool {
	r, _ := record.(map[string]any)
	if r["type"] != "user" || !isGemini(r) {
		return false
	}
	text := strings.TrimSpace(geminiText(r["content"]))
	return text != "" && !strings.HasPrefix(text, "<session_context>") && !strings.HasPrefix(text, "<hook_context>") &&
		!strings.Contains(text, "<state_snapshot>") // a compressed history's summary, as Gemini CLI finds one
}

// geminiText is a content's text as Gemini CLI reads it: a string, or
// the text parts of a list of parts, joined.
func geminiText(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			switch p := p.(type) {
			case string:
				b.WriteString(p)
			case map[string]any:
				if t, ok := p["text"].(string); ok && p["thought"] != true {
					b.WriteString(t)
				}
			}
		}
		return b.String()
	case map[string]any:
		return geminiText([]any{c})
	}
	return ""
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
		if text := geminiText(r["content"]); text != "" || m.Role != "user" {
			m.Parts = []snapshot.Part{{Kind: snapshot.PartText, Text: snapshot.ContentText(r["content"])}}
		} // else the results of tool calls, shown with their calls
		return m, true
	}
	if (Gemini{}).IsCompaction(r) { // Gemini CLI's words, no model call
		m.Role, m.Parts = "system", []snapshot.Part{{Kind: snapshot.PartText, Text: geminiCompressed}}
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
		id := bareCallID(str(call, "id"), str(call, "name"))
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
// tokens) includes the cached ones, counted separately as cache reads, and
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

// geminiCompressed is the answer Gemini CLI puts after the summary of
// the history it compressed (ChatCompressionService, 0.61), in the
// history it then sets in the chat ($set.messages).
const geminiCompressed = "Got it. Thanks for the additional context!"

// IsCompaction implements RecordReader: the model's acknowledgement of
// the summary of a compressed history, a message Gemini CLI writes only
// then. The .json chats of earlier versions kept every message, with no
// such mark.
func (Gemini) IsCompaction(record any) bool {
	r, _ := record.(map[string]any)
	return isGemini(r) && str(r, "type") == "gemini" && strings.TrimSpace(geminiText(r["content"])) == geminiCompressed
}

// SessionName implements Importer: the chat's sessionId, which the hooks
// give as session_id; else the file's name.
func (g Gemini) SessionName(path string) string {
	if !g.IsDocumentFile(path) {
		if id := geminiChatID(path); id != "" {
			return id
		}
		return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return documentName(path, g.RecordsKey(), func(head map[string]any) string { return str(head, "sessionId") })
}

// SessionID implements SessionIDReader: a JSONL chat's first line names
// its session.
func (Gemini) SessionID(first []any) string {
	if len(first) == 0 {
		return ""
	}
	head, _ := first[0].(map[string]any)
	return str(head, "sessionId")
}

// Check implements Importer: a chat is an object with a sessionId and
// messages, or, as JSONL, lines whose first names the sessionId and
// projectHash.
func (Gemini) Check(records []any) error {
	if len(records) == 0 {
		return fmt.Errorf("no Gemini CLI chat: the file is empty")
	}
	doc, _ := records[0].(map[string]any)
	if _, ok := doc["info"]; ok {
		return fmt.Errorf("this is an OpenCode export (it has info); use --from opencode")
	}
	if str(doc, "sessionId") == "" || str(doc, "projectHash") == "" {
		return fmt.Errorf("no Gemini CLI chat (an object with a sessionId, a projectHash and messages, or JSONL whose first line has a sessionId and projectHash)")
	}
	return nil
}

// geminiHead is a recorded chat's metadata: a document's head, or the
// first line of a JSONL chat; doc reports which.
func geminiHead(d map[string]any) (head map[string]any, path string, doc bool) {
	if st, ok := docStateFrom(d); ok {
		return st.Head, st.Path, true
	}
	msgs, _ := d[snapshot.MemberMessages].([]any)
	l, err := LayoutFrom(d)
	main := l.latest("")
	if err != nil || main < 0 {
		return nil, "", false
	}
	pos := 0
	for _, r := range l.Runs { // the first line of the chat's newest generation
		if r[0] == main && pos < len(msgs) {
			head, _ = msgs[pos].(map[string]any)
			break
		}
		pos += r[1]
	}
	return head, l.Files[main].Path, false
}

// TranscriptName implements TranscriptNamer: the chat's own file name
// when it was recorded from one, else the name Gemini CLI gives a chat,
// session-<start, UTC, to the minute>-<the session id's first eight
// characters>.jsonl (.json for a chat recorded as one document;
// docs/formats.md).
func (g Gemini) TranscriptName(session string, doc map[string]any) string {
	head, path, isDoc := geminiHead(doc)
	if base := filepath.Base(path); path != "" && g.IsTranscriptFile(base) && g.IsDocumentFile(base) == isDoc && snapshot.CheckPath(base) == nil {
		return base
	}
	id := chatID(head, session)
	start, err := time.Parse(time.RFC3339Nano, str(head, "startTime"))
	if err != nil {
		start = time.Unix(0, 0)
	}
	ext := ".jsonl"
	if isDoc {
		ext = ".json"
	}
	return "session-" + start.UTC().Format("2006-01-02T15-04") + "-" + id[:min(8, len(id))] + ext
}

// ResumeTarget implements Resumer: the chat where Gemini CLI has it,
// else chats/ of the project's folder under ~/.gemini/tmp: for a JSONL
// chat the folder Gemini CLI names the project by (see
// geminiProjectDir), for an older .json chat the one named by its
// projectHash (the SHA-256 of the project's path), from which Gemini CLI
// moves it on resume. gemini --resume takes the session id, run in the
// project.
func (g Gemini) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	if err := snapshot.CheckName("session", session); err != nil {
		return "", "", err
	}
	head, _, isDoc := geminiHead(doc)
	if head == nil {
		return "", "", fmt.Errorf("the snapshot was not recorded from a Gemini CLI chat")
	}
	id := chatID(head, session)
	command := "gemini --resume " + shellQuote(id) + "   # in the project's folder"
	if p := g.findChat(id); p != "" {
		return p, command, nil
	}
	if !isDoc {
		cwd, _ := doc["cwd"].(string)
		if !filepath.IsAbs(cwd) {
			return "", "", fmt.Errorf("the snapshot names no project folder (cwd) to find the chat's folder under %s", filepath.Join(g.Dir, "tmp"))
		}
		return filepath.Join(g.projectDir(cwd), "chats", g.TranscriptName(session, doc)), command, nil
	}
	hash := str(head, "projectHash")
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

// bareCallID is a tool call's id as the model gave it: Gemini CLI
// prefixes it with the tool's name and "__" (run_shell_command__call_1)
// in the chat and in what it sends back.
func bareCallID(id, name string) string {
	if name != "" {
		if rest, ok := strings.CutPrefix(id, name+"__"); ok && rest != "" {
			return rest
		}
	}
	return id
}

// ModelAPI implements ModelAPIer: Gemini CLI speaks the Gemini API's
// generateContent and streamGenerateContent.
func (Gemini) ModelAPI() string { return "gemini" }

// ModelEndpoint implements ModelAPIer: Gemini CLI takes the API's base
// URL and a key from the environment; with a base URL set it must be told
// to use the key (the auth it infers, "gateway", is refused headless).
func (Gemini) ModelEndpoint(url string) string {
	return "GOOGLE_GEMINI_BASE_URL=" + url + ` GEMINI_API_KEY=replay gemini   # with "security": {"auth": {"selectedType": "gemini-api-key"}} in ~/.gemini/settings.json`
}
