package agent

import (
	"bytes"
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

// OpenCode reads the sessions of OpenCode (see docs/formats.md). OpenCode
// runs no commands on its events: its extensions are plugins, so install
// writes a plugin that, on each event, writes the session as
// `opencode export` prints it ({info, messages: [{info, parts}]}) and
// calls `git-snap hook opencode` with a payload naming that file. The
// export is one JSON document rewritten each time (see documentAgent).
type OpenCode struct {
	// ConfigDir holds the user's plugins: $XDG_CONFIG_HOME/opencode, else
	// ~/.config/opencode.
	ConfigDir string
}

func init() {
	register(Registration{New: newOpenCode, Info: Info{
		Name:     "opencode",
		Title:    "OpenCode",
		Settings: ".opencode/plugins/git-snap.js (--project, the default) or the user's plugins folder (--user)",
	}})
}

func newOpenCode(env Env) Adapter {
	return OpenCode{ConfigDir: filepath.Join(env.dir("XDG_CONFIG_HOME", ".config"), "opencode")}
}

// Name implements Adapter.
func (OpenCode) Name() string { return "opencode" }

// RecordsKey implements documentAgent: the export's messages.
func (OpenCode) RecordsKey() string { return "messages" }

// IsTranscriptFile implements documentAgent: the plugin's ses_<id>.json.
func (OpenCode) IsTranscriptFile(name string) bool {
	return strings.HasPrefix(name, "ses_") && strings.HasSuffix(name, ".json")
}

// Events implements Installer: the plugin's events. session.compacting
// comes before a compaction, session.idle at the end of a turn.
func (OpenCode) Events() []string {
	return []string{"session.idle", "tool.execute.after", "session.compacting"}
}

// pluginName is the plugin file install writes.
const pluginName = "git-snap.js"

// SettingsFile implements Installer: the plugin in the project's
// .opencode/plugins (the default) or the user's plugins folder.
func (o OpenCode) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("opencode has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(o.ConfigDir, "plugins", pluginName), nil
	}
	return filepath.Join(workTree, ".opencode", "plugins", pluginName), nil
}

// pluginMark is in every plugin git-snap writes, and only in those.
const pluginMark = "// git-snap: records this project's OpenCode sessions."

// plugin is the plugin's source, running command for each event. The
// export goes to a folder of the user's own in the temporary directory;
// failures are swallowed, never holding OpenCode up.
func plugin(command string) []byte {
	return []byte(pluginMark + `
// Written by "git snap install opencode"; "git snap uninstall opencode" removes it.
import { mkdir, writeFile, rename } from "node:fs/promises"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"

const COMMAND = ` + jsonString(command) + `

export const GitSnap = async ({ client, directory }) => {
  const dir = join(tmpdir(), "git-snap-opencode-" + userInfo().uid)
  const record = async (event, sessionID, extra) => {
    if (!sessionID) return
    try {
      const info = await client.session.get({ path: { id: sessionID } })
      const messages = await client.session.messages({ path: { id: sessionID } })
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const path = join(dir, sessionID + ".json")
      await writeFile(path + ".tmp", JSON.stringify({ info: info.data, messages: messages.data }), { mode: 0o600 })
      await rename(path + ".tmp", path)
      const payload = JSON.stringify({ hook_event_name: event, session_id: sessionID, transcript_path: path, cwd: directory, ...extra })
      const proc = Bun.spawn(["sh", "-c", COMMAND], { cwd: directory, stdin: new Blob([payload]), stdout: "ignore", stderr: "ignore" })
      await proc.exited
    } catch {}
  }
  return {
    event: async ({ event }) => {
      if (event.type === "session.idle") await record("session.idle", event.properties.sessionID)
    },
    "tool.execute.after": async (input) => {
      await record("tool.execute.after", input.sessionID, { tool_name: input.tool })
    },
    "experimental.session.compacting": async (input) => {
      await record("session.compacting", input.sessionID)
    },
  }
}
`)
}

// InstallHook implements hookWriter: it writes the plugin, or rewrites
// one of git-snap's that runs another command; a file of that name that
// git-snap did not write is refused.
func (OpenCode) InstallHook(file, command string) (bool, error) {
	want := plugin(command)
	old, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case bytes.Equal(old, want):
		return false, nil
	case !bytes.HasPrefix(old, []byte(pluginMark)):
		return false, fmt.Errorf("%s is not git-snap's plugin; move it and try again", file)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return false, err
	}
	tmp := file + ".git-snap.tmp"
	if err := os.WriteFile(tmp, want, 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, file)
}

// UninstallHook implements hookWriter: it removes the plugin, only if
// git-snap wrote it.
func (OpenCode) UninstallHook(file string) (bool, error) {
	old, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !bytes.HasPrefix(old, []byte(pluginMark)) {
		return false, fmt.Errorf("%s is not git-snap's plugin; it was left as it is", file)
	}
	return true, os.Remove(file)
}

// HookCommands implements hookLister: the command git-snap's plugin
// runs, for each of its events; none when file is missing or is not
// git-snap's plugin.
func (o OpenCode) HookCommands(file string) (map[string][]string, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.HasPrefix(data, []byte(pluginMark)) {
		return map[string][]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if lit, ok := strings.CutPrefix(line, "const COMMAND = "); ok {
			var command string
			if err := json.Unmarshal([]byte(lit), &command); err != nil {
				return nil, &SettingsError{Path: file, Msg: "git-snap's plugin has a COMMAND that is not a JSON string: install again"}
			}
			out := map[string][]string{}
			for _, ev := range o.Events() {
				out[ev] = []string{command}
			}
			return out, nil
		}
	}
	return nil, &SettingsError{Path: file, Msg: "git-snap's plugin names no COMMAND: install again"}
}

// Decode implements HookReader: the plugin's payload on stdin.
func (o OpenCode) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, "OpenCode plugin payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Agent: o.Name(), Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"), Raw: raw,
	}
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the OpenCode plugin payload has no session_id or hook_event_name")
	}
	return p, nil
}

// Transcripts implements HookReader: an export is one file.
func (OpenCode) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader.
func (OpenCode) CompactEvent() string { return "session.compacting" }

// openCodeReadOnlyTools are OpenCode's tools that write no file.
var openCodeReadOnlyTools = map[string]bool{"read": true, "grep": true, "glob": true, "list": true, "webfetch": true,
	"websearch": true, "todowrite": true, "todoread": true}

// ChangesFiles is false after OpenCode's reading and searching tools.
func (OpenCode) ChangesFiles(p Payload) bool { return !readOnly(p, openCodeReadOnlyTools) }

// openCodeMessage is a message of an export: {info, parts}.
func openCodeMessage(record any) (info map[string]any, parts []any, ok bool) {
	r, _ := record.(map[string]any)
	info, ok = r["info"].(map[string]any)
	parts, _ = r["parts"].([]any)
	return info, parts, ok && str(info, "role") != "" && len(r) <= 2
}

// IsPrompt implements RecordReader: a user message with text the user
// wrote (OpenCode marks the text it adds itself synthetic).
func (OpenCode) IsPrompt(record any) bool {
	info, parts, ok := openCodeMessage(record)
	if !ok || str(info, "role") != "user" {
		return false
	}
	for _, p := range parts {
		part, _ := p.(map[string]any)
		if str(part, "type") == "text" && part["synthetic"] != true {
			return true
		}
	}
	return false
}

// TouchedFiles implements RecordReader: filePath of write and edit calls.
func (OpenCode) TouchedFiles(record any) []string {
	_, parts, _ := openCodeMessage(record)
	var out []string
	for _, p := range parts {
		part, _ := p.(map[string]any)
		switch str(part, "tool") {
		case "write", "edit", "multiedit":
			state, _ := part["state"].(map[string]any)
			in, _ := state["input"].(map[string]any)
			if f := str(in, "filePath"); f != "" && str(part, "type") == "tool" {
				out = append(out, f)
			}
		}
	}
	return out
}

// View implements RecordReader: a message's info has its role, time
// (milliseconds), model and tokens; its parts are text, reasoning and
// tool calls with their state (input, output or error).
func (OpenCode) View(record any) (snapshot.Message, bool) {
	info, parts, ok := openCodeMessage(record)
	if !ok {
		return snapshot.Message{}, false
	}
	m := snapshot.Message{ID: str(info, "id"), Role: str(info, "role"), Model: str(info, "modelID")}
	tm, _ := info["time"].(map[string]any)
	if ms, ok := num(tm["created"]); ok {
		m.Time = time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
	}
	for _, p := range parts {
		m.Parts = append(m.Parts, openCodeParts(p)...)
	}
	if t, ok := info["tokens"].(map[string]any); ok && m.Role == "assistant" {
		cache, _ := t["cache"].(map[string]any)
		m.UsageKey = m.ID
		m.Usage = &snapshot.Usage{Input: snapshot.Int(t["input"]), CacheRead: snapshot.Int(cache["read"]),
			CacheWrite: snapshot.Int(cache["write"]), Output: snapshot.Int(t["output"]) + snapshot.Int(t["reasoning"])}
	}
	return m, true
}

func openCodeParts(p any) []snapshot.Part {
	part, _ := p.(map[string]any)
	switch str(part, "type") {
	case "text":
		return []snapshot.Part{{Kind: snapshot.PartText, Text: str(part, "text")}}
	case "reasoning":
		return []snapshot.Part{{Kind: snapshot.PartThinking, Text: str(part, "text")}}
	case "tool":
		state, _ := part["state"].(map[string]any)
		id := str(part, "callID")
		out := []snapshot.Part{{Kind: snapshot.PartToolCall, Tool: str(part, "tool"), CallID: id, Input: state["input"]}}
		switch status := str(state, "status"); status {
		case "completed", "error":
			out = append(out, snapshot.Part{Kind: snapshot.PartToolResult, CallID: id, Text: str(state, "output") + str(state, "error"), IsError: status == "error"})
		}
		return out
	}
	return nil
}

// IsCompaction implements RecordReader: the user message whose part asks
// for a compaction.
func (OpenCode) IsCompaction(record any) bool {
	_, parts, ok := openCodeMessage(record)
	for _, p := range parts {
		part, _ := p.(map[string]any)
		if ok && str(part, "type") == "compaction" {
			return true
		}
	}
	return false
}

// SessionName implements Importer: the session's id, from the export's
// info, as the plugin's session_id gives it; else the file's name.
func (o OpenCode) SessionName(path string) string {
	return documentName(path, o.RecordsKey(), func(head map[string]any) string {
		info, _ := head["info"].(map[string]any)
		return str(info, "id")
	})
}

// Check implements Importer: an export is {info: {id, …}, messages}.
func (OpenCode) Check(records []any) error {
	if len(records) == 0 {
		return fmt.Errorf("no OpenCode export: the file is empty")
	}
	doc, _ := records[0].(map[string]any)
	info, _ := doc["info"].(map[string]any)
	if _, ok := doc["messages"].([]any); !ok || str(info, "id") == "" {
		if str(doc, "sessionId") != "" {
			return fmt.Errorf("this is a Gemini CLI chat; use --from gemini")
		}
		return fmt.Errorf("no OpenCode export ({info, messages}, as opencode export prints it)")
	}
	return nil
}

// Title implements Titler: the session's title in the export's info.
func (OpenCode) Title(doc map[string]any) string {
	info, _ := doc["info"].(map[string]any)
	return str(info, "title")
}
