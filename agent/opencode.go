package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
	// DataDir is OpenCode's data folder, $XDG_DATA_HOME/opencode, else
	// ~/.local/share/opencode: resume writes a session there for
	// opencode import.
	DataDir string
	// Pure and NoProjectConfig are OPENCODE_PURE (no external plugin,
	// git-snap's among them, is loaded) and
	// OPENCODE_DISABLE_PROJECT_CONFIG (a project's .opencode folder is
	// not read) as the environment sets them: doctor checks them.
	Pure, NoProjectConfig bool

	// fork is the OpenCode fork the adapter reads (Kilo); nil for
	// OpenCode itself.
	fork *openCodeFork
}

// openCodeFork is OpenCode or a fork of it that keeps its sessions,
// plugins and export alike under names of its own (Kilo).
type openCodeFork struct {
	name  string // git-snap's name for it: opencode, kilo
	title string // its own: OpenCode, Kilo
	dot   string // the project's folder: .opencode, .kilo
	dir   string // its folder under the user's config and data folders
	env   string // the prefix of its variables: OPENCODE, KILO
	bin   string // its executable
}

// openCodeItself is OpenCode.
var openCodeItself = openCodeFork{name: "opencode", title: "OpenCode", dot: ".opencode", dir: "opencode", env: "OPENCODE", bin: "opencode"}

// f is the fork the adapter reads.
func (o OpenCode) f() *openCodeFork {
	if o.fork == nil {
		return &openCodeItself
	}
	return o.fork
}

func init() {
	register(Registration{New: newOpenCode, Info: Info{
		Name:     "opencode",
		Title:    "OpenCode",
		Settings: ".opencode/plugins/git-snap.js (--project, the default) or the user's plugins folder (--user)",
	}})
}

func newOpenCode(env Env) Adapter { return newOpenCodeFork(env, nil) }

// newOpenCodeFork makes the adapter of OpenCode or of a fork of it.
func newOpenCodeFork(env Env, fork *openCodeFork) OpenCode {
	o := OpenCode{fork: fork}
	f := o.f()
	o.ConfigDir = filepath.Join(env.dir("XDG_CONFIG_HOME", ".config"), f.dir)
	o.DataDir = filepath.Join(env.dir("XDG_DATA_HOME", filepath.Join(".local", "share")), f.dir)
	if env.Getenv != nil {
		// OpenCode reads the first as a boolean setting (true, yes, on,
		// 1, y) and the second as true or 1.
		o.Pure = slices.Contains([]string{"true", "yes", "on", "1", "y"}, strings.ToLower(env.Getenv(f.env+"_PURE")))
		o.NoProjectConfig = slices.Contains([]string{"true", "1"}, strings.ToLower(env.Getenv(f.env+"_DISABLE_PROJECT_CONFIG")))
	}
	return o
}

// Name implements Adapter.
func (o OpenCode) Name() string { return o.f().name }

// RecordsKey implements documentAgent: the export's messages.
func (OpenCode) RecordsKey() string { return "messages" }

// IsTranscriptFile implements documentAgent: the plugin's ses_<id>.json.
func (OpenCode) IsTranscriptFile(name string) bool {
	return strings.HasPrefix(name, "ses_") && strings.HasSuffix(name, ".json")
}

// Events implements Installer: the plugin's events. session.compacting
// comes before a compaction, session.idle at the end of a turn, dispose
// as OpenCode shuts its instance down (it waits for the plugin's dispose
// before it exits): that call has git-snap record, in a follow-up call, what OpenCode
// writes as it exits (see ExportAfter).
func (OpenCode) Events() []string {
	return []string{"session.idle", "tool.execute.after", "session.compacting", "dispose"}
}

// pluginName is the plugin file install writes.
const pluginName = "git-snap.js"

// SettingsFile implements Installer: the plugin in the project's
// .opencode/plugins (the default) or the user's plugins folder.
func (o OpenCode) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("%s has no local settings: use --project or --user", o.Name())
	case UserScope:
		return filepath.Join(o.ConfigDir, "plugins", pluginName), nil
	}
	return filepath.Join(workTree, o.f().dot, "plugins", pluginName), nil
}

// pluginMark is in every plugin git-snap writes, and only in those.
const pluginMark = "// git-snap: records this project's OpenCode sessions."

// mark is the first line of git-snap's plugin for the fork.
func (o OpenCode) mark() string {
	return strings.Replace(pluginMark, "OpenCode", o.f().title, 1)
}

// The plugin's lines that say what it runs, read back by HookCommands:
// each is the name and a JSON value.
const (
	pluginCommand = "const COMMAND = "
	pluginEvents  = "const EVENTS = "
)

// lateEnv is set in the environment of the git snap hook that records a
// run after OpenCode exited, and so of the opencode export it runs,
// which loads the project's plugins too: git-snap's then does nothing.
const lateEnv = "GIT_SNAP_HOOK_LATE"

// plugin is the plugin's source, running command for each event. The
// export goes to a folder of the user's own in the temporary directory;
// failures are swallowed, never holding OpenCode up.
func (o OpenCode) plugin(command string) []byte {
	events, _ := json.Marshal(o.Events())
	return []byte(o.mark() + `
// Written by "git snap install ` + o.Name() + `"; "git snap uninstall ` + o.Name() + `" removes it.
import { mkdir, writeFile, rename } from "node:fs/promises"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"

` + pluginCommand + jsonString(command) + `
` + pluginEvents + string(events) + `

export const GitSnap = async ({ client, directory }) => {
  // git snap hook runs opencode export after a run has exited; that
  // export loads this plugin too, which then has nothing to record.
  if (process.env.` + lateEnv + `) return {}
  const dir = join(tmpdir(), "git-snap-` + o.Name() + `-" + userInfo().uid)
  const seen = new Set()
  const call = async (event, sessionID, extra) => {
    const path = join(dir, sessionID + ".json")
    const payload = JSON.stringify({ hook_event_name: event, session_id: sessionID, transcript_path: path, cwd: directory, ...extra })
    const proc = Bun.spawn(["sh", "-c", COMMAND], { cwd: directory, stdin: new Blob([payload]), stdout: "ignore", stderr: "ignore" })
    await proc.exited
  }
  const record = async (event, sessionID, extra) => {
    if (!sessionID) return
    seen.add(sessionID)
    try {
      const info = await client.session.get({ path: { id: sessionID } })
      const messages = await client.session.messages({ path: { id: sessionID } })
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const path = join(dir, sessionID + ".json")
      await writeFile(path + ".tmp", JSON.stringify({ info: info.data, messages: messages.data }), { mode: 0o600 })
      await rename(path + ".tmp", path)
      await call(event, sessionID, extra)
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
    // OpenCode waits for this before it exits, and writes the last of a
    // run (a message's summary, the session's times) after session.idle:
    // git snap hook records each session again once this process is gone,
    // from opencode export.
    dispose: async () => {
      for (const sessionID of seen) {
        try {
          await call("dispose", sessionID, { opencode_pid: process.pid, opencode: process.execPath })
        } catch {}
      }
    },
  }
}
`)
}

// InstallHook implements hookWriter: it writes the plugin, or rewrites
// one of git-snap's that runs another command; a file of that name that
// git-snap did not write is refused.
func (o OpenCode) InstallHook(file, command string) (bool, error) {
	want := o.plugin(command)
	old, err := readSettingsFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case bytes.Equal(old, want):
		return false, nil
	case !bytes.HasPrefix(old, []byte(o.mark())):
		return false, fmt.Errorf("%s is not git-snap's plugin; move it and try again", file)
	}
	return true, writeFileAtomic(file, want, 0o644)
}

// UninstallHook implements hookWriter: it removes the plugin, only if
// git-snap wrote it.
func (o OpenCode) UninstallHook(file string) (bool, error) {
	old, err := readSettingsFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !bytes.HasPrefix(old, []byte(o.mark())) {
		return false, fmt.Errorf("%s is not git-snap's plugin; it was left as it is", file)
	}
	return true, os.Remove(file)
}

// HookCommands implements hookLister: the command and the events of
// git-snap's plugin, read from its COMMAND and EVENTS lines (a plugin
// written before EVENTS was has the three events it then called for).
// A plugin file git-snap did not write holds none of its hooks.
func (o OpenCode) HookCommands(file string) (map[string][]string, error) {
	data, err := readSettingsFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, []byte(o.mark())) {
		return map[string][]string{}, nil
	}
	command, events := "", []string{"session.idle", "tool.execute.after", "session.compacting"}
	found := false
	for n, line := range strings.Split(string(data), "\n") {
		var err error
		switch {
		case strings.HasPrefix(line, pluginCommand):
			err = json.Unmarshal([]byte(strings.TrimPrefix(line, pluginCommand)), &command)
			found = err == nil && command != ""
		case strings.HasPrefix(line, pluginEvents):
			err = json.Unmarshal([]byte(strings.TrimPrefix(line, pluginEvents)), &events)
		}
		if err != nil {
			return nil, &SettingsError{Path: file, Line: n + 1, Msg: "git-snap's plugin line is not a JSON value (" + err.Error() + ")"}
		}
	}
	if !found {
		return nil, &SettingsError{Path: file, Msg: "git-snap's plugin has no " + strings.TrimSpace(pluginCommand) + " line saying what it runs (git snap install " + o.Name() + " writes it again)"}
	}
	out := map[string][]string{}
	for _, ev := range events {
		out[ev] = []string{command}
	}
	return out, nil
}

// Needs implements Needer: OpenCode loads no plugin of a user's when
// OPENCODE_PURE is set (or --pure given), and no project's .opencode
// folder when OPENCODE_DISABLE_PROJECT_CONFIG is.
func (o OpenCode) Needs(hooksFile, workTree string) []Check {
	f := o.f()
	var out []Check
	if o.Pure {
		out = append(out, Check{Name: "plugins", Status: Fail,
			Detail: f.env + "_PURE is set: " + f.title + " loads no external plugin, git-snap's " + hooksFile + " among them",
			Fix:    "unset " + f.env + "_PURE (and run " + f.bin + " without --pure)"})
	}
	if o.NoProjectConfig && workTree != "" && strings.HasPrefix(hooksFile, filepath.Join(workTree, f.dot)+string(filepath.Separator)) {
		out = append(out, Check{Name: "project config", Status: Fail,
			Detail: f.env + "_DISABLE_PROJECT_CONFIG is set: " + f.title + " does not read " + filepath.Join(workTree, f.dot) + ", nor git-snap's plugin in it",
			Fix:    "unset " + f.env + "_DISABLE_PROJECT_CONFIG, or git snap install " + f.name + " --user"})
	}
	if len(out) == 0 {
		out = append(out, Check{Name: "plugins", Status: OK, Detail: f.title + " loads " + hooksFile + " (" + f.env + "_PURE and " + f.env + "_DISABLE_PROJECT_CONFIG are not set)"})
	}
	return out
}

// Decode implements HookReader: the plugin's payload on stdin.
func (o OpenCode) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, o.f().title+" plugin payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Agent: o.Name(), Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"), Raw: raw,
	}
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the %s plugin payload has no session_id or hook_event_name", o.f().title)
	}
	return p, nil
}

// ExportAfter implements Exporter: the plugin's dispose call names
// OpenCode's process and executable; once the process is gone,
// `opencode export --pure <session>` prints the session as the run left
// it (--pure: no plugin is loaded for it). A payload naming no process,
// or an executable that is not OpenCode's, asks for none.
func (o OpenCode) ExportAfter(p Payload) (pid int, command []string, ok bool) {
	n, _ := num(p.Raw["opencode_pid"])
	bin := str(p.Raw, "opencode")
	if p.Event != "dispose" || n <= 1 || n > math.MaxInt32 || !filepath.IsAbs(bin) || !strings.HasPrefix(strings.TrimPrefix(filepath.Base(bin), "."), o.f().bin) ||
		snapshot.CheckName("session", p.SessionID) != nil || strings.ContainsAny(p.SessionID, `/\`) {
		return 0, nil, false
	}
	return int(n), []string{bin, "export", "--pure", p.SessionID}, true
}

// Updated implements dater: the export's info.time.updated, in
// milliseconds.
func (OpenCode) Updated(head map[string]any) int64 {
	info, _ := head["info"].(map[string]any)
	tm, _ := info["time"].(map[string]any)
	n, _ := num(tm["updated"])
	return n
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

// Check implements Importer: an export is {info: {id, …}, messages},
// written by this fork (see exportOf).
func (o OpenCode) Check(records []any) error {
	f := o.f()
	if len(records) == 0 {
		return fmt.Errorf("no %s export: the file is empty", f.title)
	}
	doc, _ := records[0].(map[string]any)
	info, _ := doc["info"].(map[string]any)
	if _, ok := doc["messages"].([]any); !ok || str(info, "id") == "" {
		return fmt.Errorf("no %s export ({info, messages}, as %s export prints it)", f.title, f.bin)
	}
	if by := exportOf(info); by != f {
		return fmt.Errorf("this is a %s export (version %s), not %s's; use --from %s", by.title, str(info, "version"), f.title, by.name)
	}
	return nil
}

// exportOf is the fork an export's info says wrote it: Kilo numbers its
// releases from 7 on, OpenCode's are below.
func exportOf(info map[string]any) *openCodeFork {
	major, _, _ := strings.Cut(str(info, "version"), ".")
	if n, err := strconv.Atoi(major); err == nil && n >= 7 {
		return &kiloFork
	}
	return &openCodeItself
}

// Title implements Titler: the session's title in the export's info.
func (OpenCode) Title(doc map[string]any) string {
	info, _ := doc["info"].(map[string]any)
	return str(info, "title")
}

// openCodeID is the session id an export's info gives, when it is a name
// git-snap accepts (it goes into a file name), else the session's own
// name.
func openCodeID(doc map[string]any, session string) string {
	st, _ := docStateFrom(doc)
	info, _ := st.Head["info"].(map[string]any)
	if id := str(info, "id"); id != "" && snapshot.CheckName("session", id) == nil && !strings.ContainsAny(id, `/\`) {
		return id
	}
	return session
}

// TranscriptName implements TranscriptNamer: <session id>.json, as the
// plugin names an export.
func (OpenCode) TranscriptName(session string, doc map[string]any) string {
	return openCodeID(doc, session) + ".json"
}

// ResumeTarget implements Resumer: OpenCode keeps its sessions in its
// database, not in files, and loads an export with opencode import; the
// export goes in OpenCode's data folder, and the command imports it and
// opens the session in its project.
func (o OpenCode) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	f := o.f()
	if err := snapshot.CheckName("session", session); err != nil || strings.ContainsAny(session, `/\`) {
		return "", "", fmt.Errorf("%q is not a session id of %s", session, f.title)
	}
	if _, ok := docStateFrom(doc); !ok {
		return "", "", fmt.Errorf("the snapshot was not recorded from a session %s exported", f.title)
	}
	path := filepath.Join(o.DataDir, "git-snap", o.TranscriptName(session, doc))
	command := f.bin + " import " + shellQuote(path)
	if cwd, _ := doc["cwd"].(string); filepath.IsAbs(cwd) {
		command = andThen(command, "cd "+shellQuote(cwd))
	}
	return path, andThen(command, f.bin+" --session "+shellQuote(openCodeID(doc, session))), nil
}

// ModelAPI implements ModelAPIer: OpenCode speaks Chat Completions to a
// provider of the @ai-sdk/openai-compatible kind.
func (OpenCode) ModelAPI() string { return "openai-chat" }

// ModelEndpoint implements ModelAPIer: a provider in opencode.json, and
// the recorded model named with it.
func (o OpenCode) ModelEndpoint(url string) string {
	if o.fork != nil {
		return o.forkEndpoint(url)
	}
	return `"provider": {"replay": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "` + url + `/v1", "apiKey": "replay"},
  "models": {"<the recorded model>": {"tool_call": true}}}}     # in ~/.config/opencode/opencode.json, then:
OPENCODE_DISABLE_MODELS_FETCH=1 opencode run -m replay/<the recorded model> …`
}
