package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-snap/git-snap/snapshot"
)

// Copilot reads GitHub Copilot CLI's hook payloads and session event logs
// (see docs/formats.md): ~/.copilot/session-state/<session>/events.jsonl,
// one {type, data, id, timestamp, parentId} event a line, appended.
type Copilot struct {
	// Home holds the session logs: $COPILOT_HOME, else ~/.copilot.
	Home string
}

func init() {
	register(Registration{New: newCopilot, Info: Info{
		Name:     "copilot",
		Title:    "GitHub Copilot CLI",
		Settings: ".github/hooks/git-snap.json (--project, the only one Copilot CLI reads)",
	}})
}

func newCopilot(env Env) Adapter { return Copilot{Home: env.dir("COPILOT_HOME", ".copilot")} }

// Name implements Adapter.
func (Copilot) Name() string { return "copilot" }

// Events implements Installer: the camelCase events, whose payloads
// carry no event name: the command names it.
func (Copilot) Events() []string {
	return []string{"sessionStart", "userPromptSubmitted", "postToolUse", "agentStop", "sessionEnd"}
}

// SettingsFile implements Installer: Copilot CLI reads hooks from
// .github/hooks/*.json in the repository, so git-snap's are a file of
// their own there.
func (Copilot) SettingsFile(scope Scope, workTree string) (string, error) {
	if scope == UserScope || scope == LocalScope {
		return "", fmt.Errorf("copilot reads hooks only from the repository's .github/hooks: use --project")
	}
	return filepath.Join(workTree, ".github", "hooks", "git-snap.json"), nil
}

func (c Copilot) hooks() flatHooks {
	return flatHooks{agent: c.Name(), fields: []string{"bash", "powershell"}, entry: func(event, command string) *ordered {
		e := &ordered{vals: map[string]any{}}
		e.set("type", "command")
		e.set("bash", command+" "+event)
		e.set("powershell", PowerShellCommand(command)+" "+event)
		e.set("timeoutSec", json.Number("30"))
		return e
	}}
}

// InstallHook implements hookWriter: one command entry per event, for
// bash and PowerShell alike.
func (c Copilot) InstallHook(file, command string) (bool, error) {
	return c.hooks().install(file, command, c.Events())
}

// UninstallHook implements hookWriter.
func (c Copilot) UninstallHook(file string) (bool, error) { return c.hooks().uninstall(file) }

// Decode implements HookReader: a camelCase payload (sessionId, toolName,
// toolArgs as an object, or as its JSON in older releases), the event named by the argument after
// `hook copilot`; or the snake_case one of the VS Code compatible
// events, which names itself.
func (c Copilot) Decode(stdin []byte, args []string) (Payload, error) {
	raw, err := decodeObject(stdin, "Copilot CLI hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{Agent: c.Name(), Raw: raw,
		Event:     firstString(raw, "hook_event_name", "hookEventName"),
		SessionID: firstString(raw, "session_id", "sessionId"),
		CWD:       str(raw, "cwd"), Tool: firstString(raw, "tool_name", "toolName"),
		TranscriptPath: str(raw, "transcript_path"),
	}
	if p.Event == "" && len(args) > 0 {
		p.Event = args[0]
	}
	p.ToolInput, _ = raw["tool_input"].(map[string]any)
	if p.ToolInput == nil {
		p.ToolInput = copilotArgs(raw["toolArgs"]) // an object since 1.0.x, a JSON string before
	}
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the Copilot CLI hook payload has no sessionId, or no event (give it after `hook copilot`)")
	}
	if p.TranscriptPath == "" && snapshot.CheckName("session", p.SessionID) == nil && !strings.ContainsAny(p.SessionID, `/\`) {
		p.TranscriptPath = filepath.Join(c.Home, "session-state", p.SessionID, "events.jsonl")
	}
	return p, nil
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

// Transcripts implements HookReader: a session's log is one file.
func (Copilot) Transcripts(Payload) (map[string]string, error) { return nil, nil }

// CompactEvent implements HookReader: Copilot CLI's hooks have no event
// before a compaction.
func (Copilot) CompactEvent() string { return "" }

// copilotReadOnlyTools are Copilot CLI's tools that write no file.
var copilotReadOnlyTools = map[string]bool{"view": true, "glob": true, "grep": true, "rg": true, "web_fetch": true,
	"report_intent": true, "think": true, "read_bash": true}

// ChangesFiles is false after Copilot CLI's reading and searching tools.
func (Copilot) ChangesFiles(p Payload) bool { return !readOnly(p, copilotReadOnlyTools) }

// copilotEvent is an event of the log: {type: "a.b", data: {…}}.
func copilotEvent(record any) (string, map[string]any, bool) {
	r, _ := record.(map[string]any)
	data, ok := r["data"].(map[string]any)
	kind := str(r, "type")
	return kind, data, ok && strings.Contains(kind, ".")
}

// IsPrompt implements RecordReader: a user.message event.
func (Copilot) IsPrompt(record any) bool {
	kind, _, ok := copilotEvent(record)
	return ok && kind == "user.message"
}

// copilotArgs reads a tool request's arguments, an object or its JSON.
func copilotArgs(v any) map[string]any {
	if s, ok := v.(string); ok {
		parsed, _ := snapshot.Parse([]byte(s), snapshot.Limits{})
		v = parsed
	}
	m, _ := v.(map[string]any)
	return m
}

// TouchedFiles implements RecordReader: the path of the create, edit and
// str_replace_editor requests of an assistant.message.
func (Copilot) TouchedFiles(record any) []string {
	kind, data, ok := copilotEvent(record)
	if !ok || kind != "assistant.message" {
		return nil
	}
	reqs, _ := data["toolRequests"].([]any)
	var out []string
	for _, r := range reqs {
		req, _ := r.(map[string]any)
		switch str(req, "name") {
		case "create", "edit", "str_replace_editor", "write":
			if p := str(copilotArgs(req["arguments"]), "path"); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// View implements RecordReader: user.message is a prompt; each
// assistant.message (by its apiCallId, else its messageId) one model
// response with its text, reasoning, tool requests and, in older
// releases, output tokens; session.usage_record the tokens of the call of
// its apiCallId (an assistant record without parts); tool.execution_complete a
// tool's result, failed when success is false; session.shutdown the run's
// totals by model (snapshot.Message.RunTotals), which are all a release
// without usage records (1.0.34) writes of the input; session.start and
// session.model_change name the model of the calls after them; other
// events are events.
func (Copilot) View(record any) (snapshot.Message, bool) {
	kind, data, ok := copilotEvent(record)
	if !ok {
		return snapshot.Message{}, false
	}
	r := record.(map[string]any)
	m := snapshot.Message{ID: str(r, "id"), Time: str(r, "timestamp"), Role: "event", Model: str(data, "model")}
	switch kind {
	case "session.start":
		m.Model = str(data, "selectedModel")
	case "session.model_change":
		m.Model = str(data, "newModel")
	case "session.shutdown":
		m.RunTotals = copilotRunTotals(data)
	case "user.message":
		m.Role, m.Parts = "user", []snapshot.Part{{Kind: snapshot.PartText, Text: str(data, "content")}}
	case "session.usage_record":
		// One model call's tokens, written before the assistant.message
		// of the same apiCallId: the call's usage. inputTokens counts the
		// cached input and the cache writes, given again separately.
		u, _ := data["usage"].(map[string]any)
		in, read, write := snapshot.Int(u["inputTokens"]), snapshot.Int(u["cacheReadTokens"]), snapshot.Int(u["cacheWriteTokens"])
		m.Role, m.UsageKey, m.Model = "assistant", str(u, "apiCallId"), str(u, "model")
		m.Usage = &snapshot.Usage{Input: max(in-read-write, 0), CacheRead: read, CacheWrite: write, Output: snapshot.Int(u["outputTokens"])}
		if m.UsageKey == "" {
			m.UsageKey = m.ID
		}
	case "assistant.message":
		m.Role, m.UsageKey = "assistant", cmp.Or(str(data, "apiCallId"), str(data, "messageId"))
		if t := str(data, "reasoningText"); t != "" {
			m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartThinking, Text: t})
		}
		if t := str(data, "content"); t != "" {
			m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartText, Text: t})
		}
		reqs, _ := data["toolRequests"].([]any)
		for _, x := range reqs {
			req, _ := x.(map[string]any)
			m.Parts = append(m.Parts, snapshot.Part{Kind: snapshot.PartToolCall, Tool: str(req, "name"), CallID: str(req, "toolCallId"), Input: req["arguments"]})
		}
		// Its outputTokens (when there) are all the usage of a release
		// without usage records; with an apiCallId, the usage record of
		// the call, before it, has them with the input.
		if _, ok := data["outputTokens"]; ok && str(data, "apiCallId") == "" {
			m.Usage = &snapshot.Usage{Output: snapshot.Int(data["outputTokens"])}
		}
	case "tool.execution_complete":
		res, _ := data["result"].(map[string]any)
		text := str(res, "content")
		if e, ok := data["error"].(map[string]any); ok {
			text = str(e, "message")
		}
		m.Role, m.Parts = "tool", []snapshot.Part{{Kind: snapshot.PartToolResult, CallID: str(data, "toolCallId"), Text: text, IsError: data["success"] == false}}
	}
	if m.Role == "event" {
		m.Parts = []snapshot.Part{{Kind: snapshot.PartOther, Text: kind}}
	}
	return m, true
}

// copilotRunTotals reads session.shutdown's modelMetrics: by model, the
// requests and tokens of the run that ends (Copilot CLI 1.0.34 counts
// them from the calls of that process alone; a release with usage
// records counts the whole session's, and its records count instead).
// inputTokens includes the cached input and the cache writes, which are
// also given separately.
func copilotRunTotals(data map[string]any) []snapshot.RunModel {
	metrics, _ := data["modelMetrics"].(map[string]any)
	var out []snapshot.RunModel
	for _, model := range slices.Sorted(maps.Keys(metrics)) {
		mm, _ := metrics[model].(map[string]any)
		reqs, _ := mm["requests"].(map[string]any)
		u, _ := mm["usage"].(map[string]any)
		in, read, write := snapshot.Int(u["inputTokens"]), snapshot.Int(u["cacheReadTokens"]), snapshot.Int(u["cacheWriteTokens"])
		out = append(out, snapshot.RunModel{Model: model, Calls: int(snapshot.Int(reqs["count"])),
			Usage: snapshot.Usage{Input: max(in-read-write, 0), CacheRead: read, CacheWrite: write, Output: snapshot.Int(u["outputTokens"])}})
	}
	return out
}

// IsCompaction implements RecordReader: the event that ends a compaction.
func (Copilot) IsCompaction(record any) bool {
	kind, _, ok := copilotEvent(record)
	return ok && kind == "session.compaction_complete"
}

// SessionID implements SessionIDReader: the sessionId of session.start,
// which names a log copied out of its folder.
func (Copilot) SessionID(first []any) string {
	for _, rec := range first {
		if kind, data, ok := copilotEvent(rec); ok && kind == "session.start" {
			return str(data, "sessionId")
		}
	}
	return ""
}

// SessionName implements Importer: a log is <session id>/events.jsonl.
func (Copilot) SessionName(path string) string {
	if filepath.Base(path) == "events.jsonl" {
		return filepath.Base(filepath.Dir(path))
	}
	return idInName(path)
}

// Check implements Importer: log lines are {type: "a.b", data, id}.
func (Copilot) Check(records []any) error {
	for _, rec := range records {
		if _, _, ok := copilotEvent(rec); ok {
			return nil
		}
	}
	return fmt.Errorf("no Copilot CLI event ({type, data, id, timestamp}) in the first lines")
}

// TranscriptName implements TranscriptNamer: a session's log is
// events.jsonl in a folder named by the session.
func (Copilot) TranscriptName(string, map[string]any) string { return "events.jsonl" }

// ResumeTarget implements Resumer: session-state/<session>/events.jsonl
// in Copilot CLI's home is all it needs to resume a session (the
// workspace.yaml and checkpoints beside it are made again).
func (c Copilot) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	if err := snapshot.CheckName("session", session); err != nil || strings.ContainsAny(session, `/\`) {
		return "", "", fmt.Errorf("%q is not a Copilot CLI session id", session)
	}
	command := "copilot --resume " + shellQuote(session)
	if cwd, _ := doc["cwd"].(string); filepath.IsAbs(cwd) {
		command = andThen("cd "+shellQuote(cwd), command)
	}
	return filepath.Join(c.Home, "session-state", session, "events.jsonl"), command, nil
}

// WritesAfter implements LateWriter: Copilot CLI writes the hook.end of
// sessionEnd and session.shutdown (its totals) after the sessionEnd hook
// returns.
func (Copilot) WritesAfter(p Payload) bool { return p.Event == "sessionEnd" }

// Ended implements LateWriter: session.shutdown is the last line a run
// writes.
func (Copilot) Ended(last any) bool {
	kind, _, ok := copilotEvent(last)
	return ok && kind == "session.shutdown"
}

// ModelAPI implements ModelAPIer: Copilot CLI speaks Chat Completions to
// a provider of the user's own (BYOK).
func (Copilot) ModelAPI() string { return "openai-chat" }

// ModelEndpoint implements ModelAPIer.
func (Copilot) ModelEndpoint(url string) string {
	return "COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=" + url + "/v1 COPILOT_PROVIDER_API_KEY=replay COPILOT_MODEL=<the recorded model> copilot"
}
