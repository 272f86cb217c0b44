package agent

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Cursor reads the hook payloads and agent transcripts of Cursor's agent,
// in the IDE and in the cursor-agent CLI (see docs/formats.md). A
// transcript is JSONL, {role, message: {content: [blocks]}} a line, with
// no ids, times or token counts; the CLI's payloads name no transcript
// (transcript_path is null), so it is looked for under
// ~/.cursor/projects/*/agent-transcripts/ by the conversation's id.
type Cursor struct {
	// Dir holds the user's hooks and transcripts: ~/.cursor.
	Dir string
}

func init() {
	register(Registration{New: newCursor, Info: Info{
		Name:     "cursor",
		Title:    "Cursor",
		Settings: ".cursor/hooks.json (--project, the default) or ~/.cursor/hooks.json (--user)",
	}})
}

func newCursor(env Env) Adapter { return Cursor{Dir: filepath.Join(env.Home, ".cursor")} }

// Name implements Adapter.
func (Cursor) Name() string { return "cursor" }

// Events implements Installer: beforeSubmitPrompt and stop do not fire in
// the CLI's headless mode; the tool and session events do.
func (Cursor) Events() []string {
	return []string{"sessionStart", "beforeSubmitPrompt", "postToolUse", "afterFileEdit", "afterShellExecution", "preCompact", "stop", "sessionEnd"}
}

// SettingsFile implements Installer: .cursor/hooks.json in the project
// (the default) or in ~/.cursor for the user.
func (c Cursor) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("cursor has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(c.Dir, "hooks.json"), nil
	}
	return filepath.Join(workTree, ".cursor", "hooks.json"), nil
}

func (c Cursor) hooks() flatHooks {
	return flatHooks{agent: c.Name(), fields: []string{"command"}, entry: func(_, command string) *ordered {
		e := &ordered{vals: map[string]any{}}
		e.set("command", command)
		return e
	}}
}

// InstallHook implements hookWriter: a {command} entry per event.
func (c Cursor) InstallHook(file, command string) (bool, error) {
	return c.hooks().install(file, command, c.Events())
}

// UninstallHook implements hookWriter.
func (c Cursor) UninstallHook(file string) (bool, error) { return c.hooks().uninstall(file) }

// Decode implements HookReader: the payload names the conversation and
// the event; the work tree is the first workspace root.
func (c Cursor) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, "Cursor hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{Agent: c.Name(), Raw: raw, Event: str(raw, "hook_event_name"),
		SessionID: firstString(raw, "conversation_id", "session_id"), TranscriptPath: str(raw, "transcript_path"),
		CWD: str(raw, "cwd"), Tool: str(raw, "tool_name")}
	if roots, _ := raw["workspace_roots"].([]any); p.CWD == "" && len(roots) > 0 {
		p.CWD, _ = roots[0].(string)
	}
	p.ToolInput, _ = raw["tool_input"].(map[string]any)
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the Cursor hook payload has no conversation_id or hook_event_name")
	}
	if p.TranscriptPath == "" {
		p.TranscriptPath = c.findTranscript(p.SessionID)
	}
	return p, nil
}

// findTranscript finds a conversation's transcript: the CLI writes
// agent-transcripts/<id>.jsonl, the IDE <id>/<id>.jsonl.
func (c Cursor) findTranscript(id string) string {
	if snapshot.CheckName("session", id) != nil || strings.ContainsAny(id, `/\*?[`) {
		return ""
	}
	for _, pattern := range []string{id + ".jsonl", id + "/" + id + ".jsonl"} {
		if m, _ := filepath.Glob(filepath.Join(c.Dir, "projects", "*", "agent-transcripts", pattern)); len(m) > 0 {
			return m[len(m)-1]
		}
	}
	return ""
}

// Transcripts implements HookReader: a conversation is one file.
func (Cursor) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader.
func (Cursor) CompactEvent() string { return "preCompact" }

// cursorReadOnlyTools are Cursor's tools that write no file.
var cursorReadOnlyTools = map[string]bool{"Read": true, "Grep": true, "Glob": true, "LS": true, "SemanticSearch": true,
	"WebSearch": true, "WebFetch": true, "TodoWrite": true, "ReadLints": true}

// ChangesFiles is false after Cursor's reading and searching tools.
func (Cursor) ChangesFiles(p Payload) bool { return !readOnly(p, cursorReadOnlyTools) }

// cursorRecord is a transcript line: {role, message: {content}}, with no
// type (which Claude Code's records have).
func cursorRecord(record any) (string, []any, bool) {
	r, _ := record.(map[string]any)
	msg, ok := r["message"].(map[string]any)
	if _, typed := r["type"]; typed || !ok || str(r, "role") == "" {
		return "", nil, false
	}
	blocks, _ := msg["content"].([]any)
	return str(r, "role"), blocks, true
}

// IsPrompt implements RecordReader: a user line.
func (Cursor) IsPrompt(record any) bool {
	role, _, ok := cursorRecord(record)
	return ok && role == "user"
}

// TouchedFiles implements RecordReader: the path of Write, StrReplace,
// Edit, MultiEdit and Delete calls.
func (Cursor) TouchedFiles(record any) []string {
	_, blocks, _ := cursorRecord(record)
	var out []string
	for _, b := range blocks {
		bl, _ := b.(map[string]any)
		switch str(bl, "name") {
		case "Write", "StrReplace", "Edit", "MultiEdit", "Delete", "EditNotebook":
			in, _ := bl["input"].(map[string]any)
			if p := firstString(in, "path", "file_path", "target_file"); p != "" && str(bl, "type") == "tool_use" {
				out = append(out, p)
			}
		}
	}
	return out
}

// View implements RecordReader: text and tool_use blocks. Tool calls
// have no ids and results are not written, so no call reads as failed;
// no tokens are written, so they are estimated.
func (Cursor) View(record any) (snapshot.Message, bool) {
	role, blocks, ok := cursorRecord(record)
	if !ok {
		return snapshot.Message{}, false
	}
	m := snapshot.Message{Role: role}
	for _, b := range blocks {
		bl, _ := b.(map[string]any)
		switch str(bl, "type") {
		case "text":
			m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartText, Text: str(bl, "text")})
		case "tool_use":
			m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartToolCall, Tool: str(bl, "name"), Input: bl["input"]})
		case "thinking":
			m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartThinking, Text: str(bl, "thinking")})
		}
	}
	return m, true
}

// IsCompaction implements RecordReader: Cursor writes no compaction.
func (Cursor) IsCompaction(any) bool { return false }

// SessionName implements Importer: a transcript is <conversation id>.jsonl.
func (Cursor) SessionName(path string) string { return idInName(path) }

// Check implements Importer: lines are {role, message}, with no type.
func (Cursor) Check(records []any) error {
	for _, rec := range records {
		if _, _, ok := cursorRecord(rec); ok {
			return nil
		}
		if r, _ := rec.(map[string]any); r["sessionId"] != nil {
			return fmt.Errorf("this is a Claude Code transcript; use --from claude-code")
		}
	}
	return fmt.Errorf("no Cursor transcript line ({role, message}) in the first lines")
}
