package agent

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/internal/lazy"
	"github.com/git-snap/git-snap/snapshot"
)

// Droid reads Factory's Droid hook payloads and sessions (see
// docs/formats.md). Its hooks are Claude Code's matcher groups, but with
// the events at the top level of .factory/hooks.json; its payloads are
// Claude Code's, naming the transcript. A session is
// ~/.factory/sessions/<project key>/<id>.jsonl, appended: session_start,
// message records holding Anthropic-style messages, agent_turn_outcome;
// its tokens are only in <id>.settings.json beside it, one JSON document
// of the session's totals that Droid rewrites, recorded whole each time
// it changed (see wholeFiler).
type Droid struct {
	// Dir holds the user's settings and sessions: ~/.factory.
	Dir string
}

func init() {
	register(Registration{New: newDroid, Info: Info{
		Name:     "droid",
		Title:    "Factory Droid",
		Settings: ".factory/hooks.json (--project, the default) or ~/.factory/hooks.json (--user)",
	}})
}

func newDroid(env Env) Adapter { return Droid{Dir: filepath.Join(env.Home, ".factory")} }

// Name implements Adapter.
func (Droid) Name() string { return "droid" }

// Events implements Installer: Claude Code's events, as Droid fires them.
func (Droid) Events() []string {
	return []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop", "PreCompact", "SessionEnd"}
}

// SettingsFile implements Installer: hooks.json in the project's
// .factory (the default) or in ~/.factory.
func (d Droid) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", fmt.Errorf("droid has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(d.Dir, "hooks.json"), nil
	}
	return filepath.Join(workTree, ".factory", "hooks.json"), nil
}

// InstallHook implements hookWriter: Claude Code's matcher groups, by
// event at the file's top level (Droid ignores a "hooks" wrapper).
func (d Droid) InstallHook(file, command string) (bool, error) {
	return installTopLevelHooks(file, d.Name(), command, d.Events())
}

// UninstallHook implements hookWriter.
func (d Droid) UninstallHook(file string) (bool, error) {
	return editSettings(file, true, func(s *ordered) (bool, error) {
		changed := false
		for _, ev := range append([]string(nil), s.keys...) {
			groups, ok := s.get(ev).([]any)
			if !ok {
				continue
			}
			kept, removed := withoutOurs(groups, d.Name())
			changed = changed || removed
			if len(kept) == 0 && removed {
				s.del(ev)
			} else if removed {
				s.set(ev, kept)
			}
		}
		return changed, nil
	})
}

// HookCommands implements hookLister: the events are the file's
// top-level members.
func (d Droid) HookCommands(file string) (map[string][]string, error) {
	s, err := readSettings(file)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, ev := range s.keys {
		groups, _ := s.get(ev).([]any)
		for _, h := range ours(groups, d.Name()) {
			cmd, _ := h.get("command").(string)
			out[ev] = append(out[ev], cmd)
		}
	}
	return out, nil
}

// installTopLevelHooks is installHooks for a file whose top level is the
// events object.
func installTopLevelHooks(path, agent, command string, events []string) (bool, error) {
	return editSettings(path, false, func(s *ordered) (bool, error) {
		changed := false
		for _, ev := range events {
			groups, ok := s.get(ev).([]any)
			if !ok && s.get(ev) != nil {
				return false, fmt.Errorf("%s is %s, not a list of matcher groups", ev, jsonKind(s.get(ev)))
			}
			if hasOurs(groups, agent) {
				changed = setCommand(groups, agent, command) || changed
				continue
			}
			s.set(ev, append(groups, matcherGroup(command, 30)))
			changed = true
		}
		return changed, nil
	})
}

// matcherGroup is a matcher group of one command handler.
func matcherGroup(command string, timeout int) *ordered {
	handler := &ordered{vals: map[string]any{}}
	handler.set("type", "command")
	handler.set("command", command)
	handler.set("timeout", timeout)
	group := &ordered{vals: map[string]any{}}
	group.set("hooks", []any{handler})
	return group
}

// Needs implements Needer: no hooks file of the user's or the
// project's says "hooksDisabled": true.
func (d Droid) Needs(_, workTree string) []Check {
	files := []string{filepath.Join(d.Dir, "hooks.json")}
	if workTree != "" {
		files = append(files, filepath.Join(workTree, ".factory", "hooks.json"))
	}
	for _, f := range files {
		if s, err := readSettings(f); err == nil && s.get("hooksDisabled") == true {
			return []Check{{Name: "droid hooks on", Status: Fail, Detail: fmt.Sprintf(`"hooksDisabled": true in %s: Droid runs no hook`, f),
				Fix: fmt.Sprintf(`remove "hooksDisabled" from %s (or turn hooks on in Droid's /settings)`, f)}}
		}
	}
	return []Check{{Name: "droid hooks on", Status: OK, Detail: "no hooks file turns hooks off"}}
}

// Decode implements HookReader: Claude Code's payload, naming the
// session's JSONL.
func (d Droid) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, "Droid hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Agent: d.Name(), Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"), Raw: raw,
	}
	p.ToolInput, _ = raw["tool_input"].(map[string]any)
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the Droid hook payload has no session_id or hook_event_name")
	}
	if p.Event == "SessionStart" && str(raw, "source") == "startup" {
		// A new session's first line is rewritten once its first prompt
		// comes (the title): read from the next call on, it is read once.
		p.TranscriptPath = ""
	}
	return p, nil
}

// WritesAfter implements LateWriter: Droid writes the record of a hook
// once the hook returns, so SessionEnd's last.
func (Droid) WritesAfter(p Payload) bool { return p.Event == "SessionEnd" }

// Ended implements LateWriter: the record of the SessionEnd hook is the
// last of a run.
func (Droid) Ended(last any) bool {
	_, msg, ok := droidMessage(last)
	return ok && str(msg, "hookEventName") == "SessionEnd"
}

// droidSettings names a session's totals beside its transcript.
func droidSettings(transcript string) string {
	return strings.TrimSuffix(filepath.Base(transcript), ".jsonl") + ".settings.json"
}

// Transcripts implements HookReader: the session's <id>.settings.json,
// which holds its tokens.
func (Droid) Transcripts(p Payload) (map[string]string, error) {
	if p.TranscriptPath == "" {
		return nil, nil
	}
	name := droidSettings(p.TranscriptPath)
	path := filepath.Join(filepath.Dir(p.TranscriptPath), name)
	if _, err := os.Lstat(path); err != nil {
		return nil, nil // not yet written: the next call reads it
	}
	return map[string]string{name: path}, nil
}

// IsWholeFile implements wholeFiler: the session's settings document.
func (Droid) IsWholeFile(name string) bool { return strings.HasSuffix(name, ".settings.json") }

// CompactEvent implements HookReader.
func (Droid) CompactEvent() string { return "PreCompact" }

// droidReadOnlyTools are Droid's tools that write no file.
var droidReadOnlyTools = map[string]bool{"Read": true, "LS": true, "Grep": true, "Glob": true, "WebSearch": true,
	"FetchUrl": true, "TodoWrite": true, "AskUser": true, "ToolSearch": true}

// ChangesFiles is false after Droid's reading and searching tools.
func (Droid) ChangesFiles(p Payload) bool { return !readOnly(p, droidReadOnlyTools) }

// droidMessage is a message record's message; ok is false for a record
// of another shape.
func droidMessage(record any) (r, msg map[string]any, ok bool) {
	r, _ = record.(map[string]any)
	msg, ok = r["message"].(map[string]any)
	_, hasContent := msg["content"]
	// pi's entries are of the same outer shape; their message has a time.
	return r, msg, ok && str(r, "type") == "message" && str(r, "id") != "" && hasContent && r["sessionId"] == nil && r["uuid"] == nil && msg["timestamp"] == nil
}

// droidTotals is a session's settings document: its tokenUsage.
func droidTotals(record any) (map[string]any, bool) {
	r, _ := record.(map[string]any)
	t, ok := r["tokenUsage"].(map[string]any)
	_, in := t["inputTokens"]
	return t, ok && in && r["type"] == nil && r["message"] == nil
}

// IsPrompt implements RecordReader: a user message of text that Droid
// did not add itself (a hook's record, the context it puts before a
// prompt, a system reminder).
func (Droid) IsPrompt(record any) bool {
	r, msg, ok := droidMessage(record)
	if !ok || str(msg, "role") != "user" || msg["hookEventName"] != nil || strings.HasPrefix(str(r, "id"), "context-") {
		return false
	}
	text, _ := userTextAny(map[string]any{"message": msg})
	return strings.TrimSpace(text) != "" && !strings.HasPrefix(strings.TrimSpace(text), "<system-reminder>")
}

// TouchedFiles implements RecordReader: file_path of Create and Edit
// calls.
func (Droid) TouchedFiles(record any) []string {
	_, msg, _ := droidMessage(record)
	blocks, _ := msg["content"].([]any)
	var out []string
	for _, b := range blocks {
		bl, _ := b.(map[string]any)
		switch str(bl, "name") {
		case "Create", "Edit", "MultiEdit":
			in, _ := bl["input"].(map[string]any)
			if f := str(in, "file_path"); f != "" && str(bl, "type") == "tool_use" {
				out = append(out, f)
			}
		}
	}
	return out
}

// droidCustomModel is the name Droid gives a model of the user's own:
// custom:<its display name>-<its index>.
var droidCustomModel = lazy.Regexp(`^custom:(.+)-[0-9]+$`)

// droidModel is the model a record names: a model of the user's own by
// its display name, which prices it when it names a known model.
func droidModel(id string) string {
	if m := droidCustomModel().FindStringSubmatch(id); m != nil {
		return m[1]
	}
	return id
}

// View implements RecordReader: a message record is an Anthropic-style
// message (its model response id the usage key, though the tokens are in
// the settings document); the settings document is the session's running
// total of tokens; other records are events.
func (Droid) View(record any) (snapshot.Message, bool) {
	if t, ok := droidTotals(record); ok {
		r, _ := record.(map[string]any)
		return snapshot.Message{Role: "event", Model: droidModel(str(r, "model")), TotalSpans: true, TotalUsage: &snapshot.Usage{
			Input: snapshot.Int(t["inputTokens"]), CacheRead: snapshot.Int(t["cacheReadTokens"]),
			CacheWrite: snapshot.Int(t["cacheCreationTokens"]), Output: snapshot.Int(t["outputTokens"]) + snapshot.Int(t["thinkingTokens"])}}, true
	}
	r, msg, ok := droidMessage(record)
	if !ok {
		r, _ = record.(map[string]any)
		switch str(r, "type") {
		case "session_start", "agent_turn_outcome", "compaction_state", "todo_state":
			return snapshot.Message{ID: str(r, "id"), Role: "event", Time: str(r, "timestamp")}, true
		}
		return snapshot.Message{}, false
	}
	m := snapshot.ViewMessage(msg)
	m.ID, m.Time, m.Model = str(r, "id"), str(r, "timestamp"), droidModel(str(msg, "modelId"))
	if m.Role == "assistant" {
		m.UsageKey = cmp.Or(str(msg, "openaiMessageId"), str(msg, "anthropicMessageId"), m.ID)
	}
	if msg["hookEventName"] != nil {
		m.Role = "event"
	}
	return m, true
}

// TotalsSpanResponses implements spanner: Droid writes its session's
// totals as a turn ends, after each of the turn's responses.
func (Droid) TotalsSpanResponses() bool { return true }

// IsCompaction implements RecordReader: the record Droid writes where it
// compacted the session.
func (Droid) IsCompaction(record any) bool {
	r, _ := record.(map[string]any)
	return str(r, "type") == "compaction_state"
}

// SessionName implements Importer: a session is <id>.jsonl.
func (Droid) SessionName(path string) string { return idInName(path) }

// Check implements Importer: a session's first line is its
// session_start (type, id, version, cwd), its others Droid's message
// records.
func (Droid) Check(records []any) error {
	for _, rec := range records {
		r, _ := rec.(map[string]any)
		if str(r, "type") == "session_start" && str(r, "id") != "" && r["version"] != nil {
			return nil
		}
	}
	return fmt.Errorf("no Droid session_start record (type, id, version) in the first lines")
}

// ResumeTarget implements Resumer: sessions/<project key>/<id>.jsonl in
// ~/.factory, with its settings document beside it, resumed by droid
// --resume in the project. (Droid fetches a session it resumes headless,
// droid exec -s, from Factory's servers.)
func (d Droid) ResumeTarget(session string, doc map[string]any) (string, string, error) {
	cwd, _ := doc["cwd"].(string)
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", "", fmt.Errorf("the snapshot names no project folder (cwd) to resume the session in")
	}
	if err := snapshot.CheckName("session", session); err != nil {
		return "", "", err
	}
	key := strings.ReplaceAll(cwd, string(filepath.Separator), "-")
	return filepath.Join(d.Dir, "sessions", key, session+".jsonl"),
		fmt.Sprintf("cd %s && droid --resume %s", shellQuote(cwd), session), nil
}

// ModelAPI implements ModelAPIer: a custom model of the
// generic-chat-completion-api provider speaks Chat Completions.
func (Droid) ModelAPI() string { return "openai-chat" }

// ModelEndpoint implements ModelAPIer: a custom model in
// ~/.factory/settings.json.
func (Droid) ModelEndpoint(url string) string {
	return `"customModels": [{"model": "<the recorded model>", "displayName": "<the recorded model>", "baseUrl": "` + url + `/v1", "apiKey": "replay",
  "provider": "generic-chat-completion-api"}]     # in ~/.factory/settings.json, then:
droid exec -m custom:<the recorded model>-0 …`
}
