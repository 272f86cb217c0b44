package agent

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/snapshot"
)

// Pi reads the sessions of pi, the coding agent (see docs/formats.md).
// pi runs no commands on its events: its extensions are TypeScript
// modules, so install writes an extension that, on each event, calls
// `git-snap hook pi` with a payload naming the session file. A session
// is JSONL, appended, in ~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl:
// a session header, then entries of a tree (id, parentId): message
// (user, assistant, toolResult, …), model_change, compaction, ….
type Pi struct {
	// Dir is pi's agent folder: $PI_CODING_AGENT_DIR, else ~/.pi/agent.
	Dir string
}

func init() {
	register(Registration{New: newPi, Info: Info{
		Name:     "pi",
		Title:    "pi",
		Settings: ".pi/extensions/git-snap.ts (--project, the default) or ~/.pi/agent/extensions/git-snap.ts (--user)",
	}})
}

func newPi(env Env) Adapter {
	return Pi{Dir: env.dir("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent"))}
}

// Name implements Adapter.
func (Pi) Name() string { return "pi" }

// Events implements Installer: the extension's events. turn_end comes
// after each model response (and its tool calls), agent_end at the end
// of a prompt, session_shutdown as pi exits, session_before_compact
// before a compaction.
func (Pi) Events() []string {
	return []string{"session_start", "tool_execution_end", "turn_end", "agent_end", "session_before_compact", "session_shutdown"}
}

// piExtension is the extension file install writes.
const piExtension = "git-snap.ts"

// SettingsFile implements Installer: the extension in the project's
// .pi/extensions (the default) or the user's.
func (p Pi) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("pi has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(p.Dir, "extensions", piExtension), nil
	}
	return filepath.Join(workTree, ".pi", "extensions", piExtension), nil
}

// piMark is in every extension git-snap writes, and only in those.
const piMark = "// git-snap: records this project's pi sessions."

// piSource is the extension running command on pi's events: it passes
// the session file pi writes, once pi has written it. Failures are
// swallowed, never holding pi up.
func piSource(command string, events []string) []byte {
	cmd, _ := json.Marshal(command)
	evs, _ := json.Marshal(events)
	return []byte(piMark + `
// It calls git-snap's hook on pi's events with the session file pi
// writes. git snap install pi writes it; git snap uninstall pi removes it.
import { existsSync } from "node:fs"
import { spawnSync } from "node:child_process"

` + pluginCommand + string(cmd) + `
` + pluginEvents + string(evs) + `

export default function (pi: any) {
  for (const event of EVENTS) {
    pi.on(event, async (ev: any, ctx: any) => {
      try {
        const file = ctx.sessionManager.getSessionFile()
        if (!file || !existsSync(file)) return
        const payload = JSON.stringify({ hook_event_name: event, session_id: ctx.sessionManager.getSessionId(),
          transcript_path: file, cwd: ctx.cwd, tool_name: ev?.toolName })
        spawnSync("sh", ["-c", COMMAND], { cwd: ctx.cwd, input: payload, stdio: ["pipe", "ignore", "ignore"], timeout: 30000 })
      } catch {}
    })
  }
}
`)
}

// InstallHook implements hookWriter: it writes the extension, or
// rewrites one of git-snap's that runs another command; a file of that
// name that git-snap did not write is refused.
func (p Pi) InstallHook(file, command string) (bool, error) {
	return writeMarkedFile(file, piMark, piSource(command, p.Events()), 0o644)
}

// UninstallHook implements hookWriter: it removes the extension, only
// if git-snap wrote it.
func (Pi) UninstallHook(file string) (bool, error) { return removeMarkedFile(file, piMark) }

// HookCommands implements hookLister: the command and events of
// git-snap's extension, from its COMMAND and EVENTS lines.
func (Pi) HookCommands(file string) (map[string][]string, error) {
	return markedCommands(file, piMark, nil)
}

// writeMarkedFile writes want to file unless it holds it already; a file
// there that does not start with mark is not git-snap's, and refused.
func writeMarkedFile(file, mark string, want []byte, perm os.FileMode) (bool, error) {
	old, err := readSettingsFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case bytes.Equal(old, want):
		return false, nil
	case !bytes.Contains(old, []byte(mark)):
		return false, fmt.Errorf("%s is not git-snap's; move it and try again", file)
	}
	return true, writeFileAtomic(file, want, perm)
}

// removeMarkedFile removes file, only if it holds mark.
func removeMarkedFile(file, mark string) (bool, error) {
	old, err := readSettingsFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !bytes.Contains(old, []byte(mark)) {
		return false, fmt.Errorf("%s is not git-snap's; it was left as it is", file)
	}
	return true, os.Remove(file)
}

// markedCommands reads git-snap's command and events back from a file
// it wrote, by its COMMAND and EVENTS lines (events when it has none);
// a file that does not hold mark holds none of git-snap's hooks.
func markedCommands(file, mark string, events []string) (map[string][]string, error) {
	data, err := readSettingsFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(data, []byte(mark)) {
		return map[string][]string{}, nil
	}
	command := ""
	for n, line := range strings.Split(string(data), "\n") {
		var err error
		switch {
		case strings.HasPrefix(line, pluginCommand):
			err = json.Unmarshal([]byte(strings.TrimPrefix(line, pluginCommand)), &command)
		case strings.HasPrefix(line, pluginEvents):
			err = json.Unmarshal([]byte(strings.TrimPrefix(line, pluginEvents)), &events)
		}
		if err != nil {
			return nil, &SettingsError{Path: file, Line: n + 1, Msg: "git-snap's line is not a JSON value (" + err.Error() + ")"}
		}
	}
	if command == "" {
		return nil, &SettingsError{Path: file, Msg: "git-snap's file has no " + strings.TrimSpace(pluginCommand) + " line saying what it runs (git snap install writes it again)"}
	}
	out := map[string][]string{}
	for _, ev := range events {
		out[ev] = []string{command}
	}
	return out, nil
}

// Needs implements Needer: no settings file of pi's excludes git-snap's
// extension (an "extensions" entry "-path" or "!pattern" naming it).
func (p Pi) Needs(hooksFile, workTree string) []Check {
	files := []string{filepath.Join(p.Dir, "settings.json")}
	if workTree != "" {
		files = append(files, filepath.Join(workTree, ".pi", "settings.json"))
	}
	for _, f := range files {
		s, err := readSettings(f)
		if err != nil {
			continue
		}
		list, _ := s.get("extensions").([]any)
		for _, e := range list {
			entry, _ := e.(string)
			if (strings.HasPrefix(entry, "-") || strings.HasPrefix(entry, "!")) && excludes(entry[1:], hooksFile) {
				return []Check{{Name: "pi extensions", Status: Fail,
					Detail: fmt.Sprintf("%q in the extensions of %s: pi does not load git-snap's %s", entry, f, hooksFile),
					Fix:    fmt.Sprintf("remove %q from %s", entry, f)}}
			}
		}
	}
	return []Check{{Name: "pi extensions", Status: OK, Detail: "no settings file excludes " + hooksFile}}
}

// excludes reports whether an extensions pattern names file: its name,
// or a glob of its name.
func excludes(pattern, file string) bool {
	ok, _ := filepath.Match(filepath.Base(pattern), filepath.Base(file))
	return ok && strings.Contains(filepath.ToSlash(file), "extensions/")
}

// Decode implements HookReader: the extension's payload on stdin.
func (p Pi) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, "pi extension payload")
	if err != nil {
		return Payload{}, err
	}
	pl := Payload{
		Agent: p.Name(), Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"), Raw: raw,
	}
	if pl.SessionID == "" || pl.Event == "" {
		return Payload{}, fmt.Errorf("the pi extension payload has no session_id or hook_event_name")
	}
	return pl, nil
}

// Transcripts implements HookReader: a session is one file.
func (Pi) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader.
func (Pi) CompactEvent() string { return "session_before_compact" }

// piReadOnlyTools are pi's tools that write no file.
var piReadOnlyTools = map[string]bool{"read": true, "ls": true, "grep": true, "find": true}

// ChangesFiles is false after pi's reading tools.
func (Pi) ChangesFiles(p Payload) bool { return !readOnly(p, piReadOnlyTools) }

// piEntry is a session entry: ok for an entry of pi's shape (a type, an
// id, a timestamp, and parentId, null for the first), or the session's
// header (type session, a version).
func piEntry(record any) (r map[string]any, ok bool) {
	r, _ = record.(map[string]any)
	if str(r, "type") == "session" {
		return r, str(r, "id") != "" && r["version"] != nil && str(r, "timestamp") != ""
	}
	_, hasParent := r["parentId"]
	if msg, _ := r["message"].(map[string]any); str(r, "type") == "message" && msg["timestamp"] == nil {
		return r, false // Droid's message records are of the same outer shape, with no time in the message
	}
	return r, hasParent && piTypes[str(r, "type")] && str(r, "id") != "" && str(r, "timestamp") != "" && r["uuid"] == nil && r["sessionId"] == nil
}

// piTypes are the entry types of pi's session format (v3), so that other
// agents' records of a tree's ids (Copilot CLI's events) are not read as
// pi's.
var piTypes = map[string]bool{"message": true, "model_change": true, "thinking_level_change": true, "compaction": true,
	"branch_summary": true, "custom": true, "custom_message": true, "label": true, "session_info": true}

// piMessage is a message entry's message.
func piMessage(record any) map[string]any {
	r, ok := piEntry(record)
	msg, _ := r["message"].(map[string]any)
	if !ok || str(r, "type") != "message" {
		return nil
	}
	return msg
}

// IsPrompt implements RecordReader: a user message.
func (Pi) IsPrompt(record any) bool {
	msg := piMessage(record)
	return str(msg, "role") == "user" && strings.TrimSpace(snapshot.ContentText(msg["content"])) != ""
}

// TouchedFiles implements RecordReader: path of write and edit calls.
func (Pi) TouchedFiles(record any) []string {
	msg := piMessage(record)
	blocks, _ := msg["content"].([]any)
	var out []string
	for _, b := range blocks {
		bl, _ := b.(map[string]any)
		switch str(bl, "name") {
		case "write", "edit":
			args, _ := bl["arguments"].(map[string]any)
			if f := str(args, "path"); f != "" && str(bl, "type") == "toolCall" {
				out = append(out, f)
			}
		}
	}
	return out
}

// View implements RecordReader: a message entry is a user message, an
// assistant response (text, thinking, tool calls; its usage, input
// uncached), or a tool's result; other entries (the header, model and
// thinking changes, labels, …) are events.
func (Pi) View(record any) (snapshot.Message, bool) {
	r, ok := piEntry(record)
	if !ok {
		return snapshot.Message{}, false
	}
	m := snapshot.Message{ID: str(r, "id"), Time: str(r, "timestamp"), Role: "event"}
	msg := piMessage(record)
	if msg == nil {
		if str(r, "type") == "model_change" {
			m.Model = str(r, "modelId")
		}
		return m, true
	}
	switch str(msg, "role") {
	case "user":
		m.Role = "user"
		if t := snapshot.ContentText(msg["content"]); t != "" {
			m.Parts = []snapshot.Part{{Kind: snapshot.PartText, Text: t}}
		}
	case "assistant":
		m.Role, m.Model = "assistant", str(msg, "model")
		m.Parts = piParts(msg["content"])
		if u, ok := msg["usage"].(map[string]any); ok {
			m.UsageKey = cmp.Or(str(msg, "responseId"), m.ID)
			m.Usage = &snapshot.Usage{Input: snapshot.Int(u["input"]), CacheRead: snapshot.Int(u["cacheRead"]),
				CacheWrite: snapshot.Int(u["cacheWrite"]), Output: snapshot.Int(u["output"])}
		}
	case "toolResult":
		m.Role = "user"
		m.Parts = []snapshot.Part{{Kind: snapshot.PartToolResult, CallID: str(msg, "toolCallId"),
			Text: snapshot.ContentText(msg["content"]), IsError: msg["isError"] == true}}
	}
	return m, true
}

// piParts reads an assistant message's content blocks.
func piParts(content any) []snapshot.Part {
	blocks, _ := content.([]any)
	var out []snapshot.Part
	for _, b := range blocks {
		bl, _ := b.(map[string]any)
		switch str(bl, "type") {
		case "text":
			out = append(out, snapshot.Part{Kind: snapshot.PartText, Text: str(bl, "text")})
		case "thinking":
			out = append(out, snapshot.Part{Kind: snapshot.PartThinking, Text: str(bl, "thinking")})
		case "toolCall":
			out = append(out, snapshot.Part{Kind: snapshot.PartToolCall, Tool: str(bl, "name"), CallID: str(bl, "id"), Input: bl["arguments"]})
		}
	}
	return out
}

// IsCompaction implements RecordReader: a compaction entry.
func (Pi) IsCompaction(record any) bool {
	r, ok := piEntry(record)
	return ok && str(r, "type") == "compaction"
}

// SessionName implements Importer: the id in <time>_<id>.jsonl.
func (Pi) SessionName(path string) string { return idInName(path) }

// SessionID implements SessionIDReader: the header's id.
func (Pi) SessionID(first []any) string {
	for _, rec := range first {
		if r, ok := piEntry(rec); ok && str(r, "type") == "session" {
			return str(r, "id")
		}
	}
	return ""
}

// Check implements Importer: a session starts with its header (type
// session, an id, a version) and holds entries of pi's tree.
func (Pi) Check(records []any) error {
	for _, rec := range records {
		if r, ok := piEntry(rec); ok && str(r, "type") == "session" {
			return nil
		}
	}
	return fmt.Errorf("no pi session header (type session, id, version, timestamp) in the first lines")
}

// TranscriptName implements TranscriptNamer: the session file's own
// name when it was recorded from one, else pi's, <start>_<id>.jsonl,
// the start as its header gives it with ':' and '.' made '-'.
func (Pi) TranscriptName(session string, doc map[string]any) string {
	if name := RecordedName(doc); strings.HasSuffix(name, ".jsonl") {
		return name
	}
	msgs, _ := doc[snapshot.MemberMessages].([]any)
	for _, rec := range msgs[:min(len(msgs), 5)] {
		r, ok := piEntry(rec)
		if !ok || str(r, "type") != "session" {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, str(r, "timestamp")); err == nil && snapshot.CheckName("session", str(r, "id")) == nil {
			return strings.NewReplacer(":", "-", ".", "-").Replace(t.UTC().Format("2006-01-02T15:04:05.000Z")) + "_" + str(r, "id") + ".jsonl"
		}
	}
	return session + ".jsonl"
}

// piSessionDir is the folder of a project's sessions: --<cwd without its
// leading separator, '/', '\' and ':' made '-'>--.
func piSessionDir(cwd string) string {
	cwd = strings.TrimPrefix(strings.TrimPrefix(cwd, "/"), `\`)
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd) + "--"
}

// ResumeTarget implements Resumer: sessions/--<cwd>--/<name> in pi's
// agent folder, resumed by pi --session in the project.
func (p Pi) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	cwd, _ := doc["cwd"].(string)
	if cwd == "" {
		cwd = claudeCWD(doc) // the header names it
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", "", fmt.Errorf("the snapshot names no project folder (cwd) to resume the session in")
	}
	if err := snapshot.CheckName("session", session); err != nil {
		return "", "", err
	}
	return filepath.Join(p.Dir, "sessions", piSessionDir(cwd), p.TranscriptName(session, doc)),
		fmt.Sprintf("cd %s && pi --session %s", shellQuote(cwd), session), nil
}

// ModelAPI implements ModelAPIer: a provider of pi's of the
// openai-completions kind speaks Chat Completions.
func (Pi) ModelAPI() string { return "openai-chat" }

// ModelEndpoint implements ModelAPIer: a provider in models.json.
func (Pi) ModelEndpoint(url string) string {
	return `{"providers": {"replay": {"baseUrl": "` + url + `/v1", "api": "openai-completions", "apiKey": "replay",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
  "models": [{"id": "<the recorded model>"}]}}}     # as ~/.pi/agent/models.json, then:
pi --provider replay --model <the recorded model> …`
}
