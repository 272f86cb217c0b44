package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/snapshot"
)

// Cline reads the sessions of Cline's CLI (see docs/formats.md). Its
// hooks are executable files named after their event in a hooks folder
// (.clinerules/hooks in the project, ~/.cline/hooks for the user), given
// a payload that names the session (sessionContext.rootSessionId) and no
// transcript. A session's messages are one JSON document Cline
// rewrites, ~/.cline/data/sessions/<id>/<id>.messages.json:
// {version, sessionId, messages: [{id, role, content blocks, ts,
// metrics}]}, read whole at each call (see documentAgent).
type Cline struct {
	// Dir holds the user's hooks: $CLINE_DIR, else ~/.cline.
	Dir string
	// DataDir holds the sessions: $CLINE_DATA_DIR, else Dir/data.
	DataDir string
}

func init() {
	register(Registration{New: newCline, Info: Info{
		Name:     "cline",
		Title:    "Cline",
		Settings: ".clinerules/hooks/ (--project, the default) or ~/.cline/hooks/ (--user), a file per event",
	}})
}

func newCline(env Env) Adapter {
	c := Cline{Dir: env.dir("CLINE_DIR", ".cline")}
	c.DataDir = filepath.Join(c.Dir, "data")
	if env.Getenv != nil && env.Getenv("CLINE_DATA_DIR") != "" {
		c.DataDir = env.Getenv("CLINE_DATA_DIR")
	}
	return c
}

// Name implements Adapter.
func (Cline) Name() string { return "cline" }

// RecordsKey implements documentAgent: the document's messages.
func (Cline) RecordsKey() string { return "messages" }

// IsTranscriptFile implements documentAgent: <id>.messages.json.
func (Cline) IsTranscriptFile(name string) bool { return strings.HasSuffix(name, ".messages.json") }

// Events implements Installer: the hook files git-snap writes. TaskStart
// and TaskResume begin a run, TaskComplete ends it, PostToolUse follows
// each tool call.
func (Cline) Events() []string {
	return []string{"TaskStart", "TaskResume", "UserPromptSubmit", "PostToolUse", "PreCompact", "TaskComplete", "TaskCancel"}
}

// SettingsFile implements Installer: the hooks folder, .clinerules/hooks
// in the project (the default) or ~/.cline/hooks.
func (c Cline) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("cline has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(c.Dir, "hooks"), nil
	}
	return filepath.Join(workTree, ".clinerules", "hooks"), nil
}

// clineMark is in every hook file git-snap writes, and only in those.
const clineMark = "# git-snap: records this project's Cline sessions."

// clineHook is git-snap's hook file for an event: it runs command with
// the event, the payload on its stdin.
func clineHook(command, event string) []byte {
	return []byte("#!/bin/sh\n" + clineMark + "\n# Written by \"git snap install cline\"; \"git snap uninstall cline\" removes it.\nexec " + command + " " + event + "\n")
}

// InstallHook implements hookWriter: an executable file per event in the
// hooks folder; a file of that name that git-snap did not write is
// refused, and nothing is written.
func (c Cline) InstallHook(dir, command string) (bool, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return false, &SettingsError{Path: dir, Msg: "not a folder, and Cline's hooks are files in a folder"}
	}
	for _, ev := range c.Events() {
		old, err := readSettingsFile(filepath.Join(dir, ev))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		if err == nil && !bytes.Contains(old, []byte(clineMark)) {
			return false, fmt.Errorf("%s is not git-snap's hook; move it and try again", filepath.Join(dir, ev))
		}
	}
	changed := false
	for _, ev := range c.Events() {
		file := filepath.Join(dir, ev)
		ch, err := writeMarkedFile(file, clineMark, clineHook(command, ev), 0o755)
		if err != nil {
			return changed, err
		}
		changed = changed || ch
	}
	return changed, nil
}

// UninstallHook implements hookWriter: it removes git-snap's hook files,
// and only those.
func (c Cline) UninstallHook(dir string) (bool, error) {
	changed := false
	for _, ev := range c.Events() {
		file := filepath.Join(dir, ev)
		old, err := readSettingsFile(file)
		if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.Contains(old, []byte(clineMark)) {
			continue // not git-snap's: left as it is
		}
		if err != nil {
			return changed, err
		}
		if err := os.Remove(file); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// HookCommands implements hookLister: the command of each of git-snap's
// hook files, by event.
func (c Cline) HookCommands(dir string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, ev := range c.Events() {
		data, err := readSettingsFile(filepath.Join(dir, ev))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !bytes.Contains(data, []byte(clineMark)) {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if cmd, ok := strings.CutPrefix(line, "exec "); ok {
				out[ev] = append(out[ev], strings.TrimSuffix(cmd, " "+ev))
			}
		}
	}
	return out, nil
}

// clineEvents names Cline's events by the hookName its payloads carry,
// for a payload that comes with no event argument.
var clineEvents = map[string]string{"agent_start": "TaskStart", "agent_resume": "TaskResume", "prompt_submit": "UserPromptSubmit",
	"tool_call": "PreToolUse", "tool_result": "PostToolUse", "agent_end": "TaskComplete", "agent_abort": "TaskCancel"}

// Decode implements HookReader: the payload names the session
// (sessionContext.rootSessionId) and the workspace, and no transcript:
// it is found by the session's id. The event is the argument the hook
// file passes.
func (c Cline) Decode(stdin []byte, args []string) (Payload, error) {
	raw, err := decodeObject(stdin, "Cline hook payload")
	if err != nil {
		return Payload{}, err
	}
	sc, _ := raw["sessionContext"].(map[string]any)
	p := Payload{Agent: c.Name(), SessionID: str(sc, "rootSessionId"), Raw: raw, Event: clineEvents[str(raw, "hookName")]}
	if len(args) > 0 {
		p.Event = args[0]
	}
	if wi, ok := raw["workspaceInfo"].(map[string]any); ok {
		p.CWD = str(wi, "rootPath")
	}
	if roots, _ := raw["workspaceRoots"].([]any); p.CWD == "" && len(roots) > 0 {
		p.CWD, _ = roots[0].(string)
	}
	for _, k := range []string{"tool_result", "tool_call"} {
		if t, ok := raw[k].(map[string]any); ok {
			p.Tool = str(t, "name")
			p.ToolInput, _ = t["input"].(map[string]any)
			break
		}
	}
	if p.SessionID == "" || p.Event == "" || str(raw, "taskId") == "" {
		return Payload{}, fmt.Errorf("the Cline hook payload has no sessionContext.rootSessionId, taskId or event")
	}
	if snapshot.CheckName("session", p.SessionID) == nil && !strings.ContainsAny(p.SessionID, `/\`) {
		p.TranscriptPath = c.messagesFile(p.SessionID)
	}
	return p, nil
}

// messagesFile is where Cline keeps a session's messages.
func (c Cline) messagesFile(session string) string {
	return filepath.Join(c.DataDir, "sessions", session, session+".messages.json")
}

// WritesAfter implements LateWriter: Cline writes the session's document
// once more after TaskComplete's hook returns (adding its origin).
func (Cline) WritesAfter(p Payload) bool { return p.Event == "TaskComplete" }

// Ended implements LateWriter: the document as Cline leaves it at the end
// of a run names its origin.
func (Cline) Ended(doc any) bool {
	d, _ := doc.(map[string]any)
	_, ok := d["origin"].(map[string]any)
	return ok
}

// Transcripts implements HookReader: a session is one document.
func (Cline) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader.
func (Cline) CompactEvent() string { return "PreCompact" }

// clineReadOnlyTools are Cline's tools that write no file.
var clineReadOnlyTools = map[string]bool{"read_files": true, "search_files": true, "list_files": true, "fetch_web_content": true,
	"ask_question": true, "list_code_definition_names": true}

// ChangesFiles is false after Cline's reading and searching tools.
func (Cline) ChangesFiles(p Payload) bool { return !readOnly(p, clineReadOnlyTools) }

// clineMessage is a message of the document: {id, role, content, ts}.
func clineMessage(record any) (map[string]any, bool) {
	r, _ := record.(map[string]any)
	_, ts := r["ts"].(snapshot.Number)
	_, content := r["content"]
	role := str(r, "role")
	return r, ts && content && str(r, "id") != "" && (role == "user" || role == "assistant") && len(r) <= 8
}

// IsPrompt implements RecordReader: a user message with text.
func (Cline) IsPrompt(record any) bool {
	r, ok := clineMessage(record)
	if !ok || str(r, "role") != "user" {
		return false
	}
	text, isText := userTextAny(map[string]any{"message": r})
	return isText && strings.TrimSpace(text) != ""
}

// TouchedFiles implements RecordReader: path of its editing tools.
func (Cline) TouchedFiles(record any) []string {
	r, _ := clineMessage(record)
	blocks, _ := r["content"].([]any)
	var out []string
	for _, b := range blocks {
		bl, _ := b.(map[string]any)
		switch str(bl, "name") {
		case "editor", "write_to_file", "replace_in_file", "apply_patch":
			in, _ := bl["input"].(map[string]any)
			if f := str(in, "path"); f != "" && str(bl, "type") == "tool_use" {
				out = append(out, f)
			}
		}
	}
	return out
}

// View implements RecordReader: Anthropic-style content blocks; an
// assistant message's metrics are its model call's tokens, inputTokens
// counting the cache reads and writes.
func (Cline) View(record any) (snapshot.Message, bool) {
	r, ok := clineMessage(record)
	if !ok {
		return snapshot.Message{}, false
	}
	m := snapshot.Message{ID: str(r, "id"), Role: str(r, "role")}
	if ms, ok := num(r["ts"]); ok {
		m.Time = time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
	}
	mi, _ := r["modelInfo"].(map[string]any)
	m.Model = str(mi, "id")
	blocks, _ := r["content"].([]any)
	for _, b := range blocks {
		m.Parts = append(m.Parts, clinePart(b)...)
	}
	for i, p := range m.Parts {
		if p.Kind == snapshot.PartText && m.Role == "user" {
			m.Parts[i].Text = clineInput(p.Text)
		}
	}
	if t, ok := r["metrics"].(map[string]any); ok && m.Role == "assistant" {
		read, write := snapshot.Int(t["cacheReadTokens"]), snapshot.Int(t["cacheWriteTokens"])
		m.UsageKey = m.ID
		m.Usage = &snapshot.Usage{Input: max(snapshot.Int(t["inputTokens"])-read-write, 0), CacheRead: read, CacheWrite: write,
			Output: snapshot.Int(t["outputTokens"])}
	}
	return m, true
}

// clineUserInput is the wrapper Cline writes a prompt in, which the
// model is sent without.
var clineUserInput = lazy.Regexp(`(?s)^\s*<user_input mode="[^"]*">(.*)</user_input>\s*$`)

// clineInput is a prompt as Cline sent it to the model: unwrapped.
func clineInput(text string) string {
	if m := clineUserInput().FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return text
}

// clinePart reads a content block: text, a tool call, or a tool's result
// (run_commands gives a list of {query, result, success}).
func clinePart(b any) []snapshot.Part {
	bl, _ := b.(map[string]any)
	switch str(bl, "type") {
	case "text":
		return []snapshot.Part{{Kind: snapshot.PartText, Text: str(bl, "text")}}
	case "thinking":
		return []snapshot.Part{{Kind: snapshot.PartThinking, Text: str(bl, "thinking")}}
	case "tool_use":
		return []snapshot.Part{{Kind: snapshot.PartToolCall, Tool: str(bl, "name"), CallID: str(bl, "id"), Input: bl["input"]}}
	case "tool_result":
		failed := bl["is_error"] == true
		var text []string
		switch c := bl["content"].(type) {
		case []any:
			for _, e := range c {
				item, _ := e.(map[string]any)
				if s, ok := item["success"].(bool); ok && !s {
					failed = true
				}
				text = append(text, cmpOr(str(item, "result"), str(item, "text"), str(item, "error")))
			}
		default:
			text = append(text, snapshot.ContentText(c))
		}
		return []snapshot.Part{{Kind: snapshot.PartToolResult, CallID: str(bl, "tool_use_id"), Text: strings.Join(text, "\n"), IsError: failed}}
	}
	return nil
}

// cmpOr is the first of its arguments that is not empty.
func cmpOr(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// IsCompaction implements RecordReader: Cline marks no compaction in its
// messages.
func (Cline) IsCompaction(any) bool { return false }

// SessionName implements Importer: the document's sessionId, as the
// hooks give it; else the file's name.
func (c Cline) SessionName(path string) string {
	name := documentName(path, c.RecordsKey(), func(head map[string]any) string { return str(head, "sessionId") })
	return strings.TrimSuffix(name, ".messages")
}

// Check implements Importer: a messages document is {version, sessionId,
// messages}, with the agent or system prompt Cline keeps beside them.
func (Cline) Check(records []any) error {
	if len(records) == 0 {
		return fmt.Errorf("no Cline session: the file is empty")
	}
	doc, _ := records[0].(map[string]any)
	_, msgs := doc["messages"].([]any)
	_, agent := doc["agent"]
	_, prompt := doc["system_prompt"]
	if !msgs || str(doc, "sessionId") == "" || doc["version"] == nil || !agent && !prompt || doc["projectHash"] != nil {
		return fmt.Errorf("no Cline session ({version, sessionId, messages}, as <id>.messages.json holds it)")
	}
	return nil
}

// TranscriptName implements TranscriptNamer: <id>.messages.json.
func (Cline) TranscriptName(session string, doc map[string]any) string {
	st, _ := docStateFrom(doc)
	if id := str(st.Head, "sessionId"); id != "" && snapshot.CheckName("session", id) == nil && !strings.ContainsAny(id, `/\`) {
		return id + ".messages.json"
	}
	return session + ".messages.json"
}

// ResumeTarget implements Resumer: sessions/<id>/<id>.messages.json in
// Cline's data folder, resumed by cline --id in the project (its
// interactive UI: Cline continues a session only there).
func (c Cline) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	name := c.TranscriptName(session, doc)
	id := strings.TrimSuffix(name, ".messages.json")
	if err := snapshot.CheckName("session", id); err != nil {
		return "", "", err
	}
	if _, ok := docStateFrom(doc); !ok {
		return "", "", fmt.Errorf("the snapshot was not recorded from a Cline session")
	}
	command := "cline --id " + shellQuote(id)
	if cwd, _ := doc["cwd"].(string); filepath.IsAbs(cwd) {
		command = "cd " + shellQuote(cwd) + " && " + command
	}
	return filepath.Join(c.DataDir, "sessions", id, name), command, nil
}

// ModelAPI implements ModelAPIer: Cline's openai provider speaks Chat
// Completions.
func (Cline) ModelAPI() string { return "openai-chat" }

// ModelEndpoint implements ModelAPIer: the provider cline auth sets.
func (Cline) ModelEndpoint(url string) string {
	return "cline auth -p openai -k replay -b " + url + "/v1 -m <the recorded model>   # then: cline …"
}
