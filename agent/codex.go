package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Codex reads OpenAI Codex CLI hook payloads, its legacy notify argument,
// and rollout files (see ../shared/formats/codex-rollout.md).
type Codex struct {
	// Home is $CODEX_HOME; ~/.codex when empty.
	Home string
}

// Name implements Adapter.
func (Codex) Name() string { return "codex" }

// CodexEvents are the hook events git-snap installs itself for (Codex has
// no SessionEnd).
var CodexEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop", "PreCompact"}

// Decode implements Adapter. A hook call sends its payload on stdin; the
// legacy notify program gets it as its last argument, with kebab-case
// keys and no transcript path, which is then found by its thread id.
func (c Codex) Decode(stdin []byte, args []string) (Payload, error) {
	if n := len(args); n > 0 && strings.HasPrefix(strings.TrimSpace(args[n-1]), "{") {
		return c.decodeNotify([]byte(args[n-1]))
	}
	raw, err := decodeObject(stdin, "Codex hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{
		Agent: "codex", Event: str(raw, "hook_event_name"), SessionID: str(raw, "session_id"),
		TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"), Tool: str(raw, "tool_name"),
		Subagent: str(raw, "agent_transcript_path"), Raw: raw,
	}
	p.ToolInput, _ = raw["tool_input"].(map[string]any)
	if p.SessionID == "" || p.Event == "" {
		return Payload{}, fmt.Errorf("the Codex hook payload has no session_id or hook_event_name")
	}
	if p.TranscriptPath == "" {
		p.TranscriptPath = c.findRollout(p.SessionID)
	}
	return p, nil
}

func (c Codex) decodeNotify(arg []byte) (Payload, error) {
	raw, err := decodeObject(arg, "Codex notify argument")
	if err != nil {
		return Payload{}, err
	}
	if str(raw, "type") != "agent-turn-complete" {
		return Payload{}, fmt.Errorf("Codex notify %q is not agent-turn-complete", str(raw, "type"))
	}
	p := Payload{Agent: "codex", Event: "Stop", SessionID: str(raw, "thread-id"), CWD: str(raw, "cwd"), Raw: raw}
	if p.SessionID == "" {
		return Payload{}, fmt.Errorf("the Codex notify argument has no thread-id")
	}
	p.TranscriptPath = c.findRollout(p.SessionID)
	return p, nil
}

func (c Codex) home() string {
	if c.Home != "" {
		return c.Home
	}
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".codex")
}

// findRollout finds a thread's rollout: sessions/YYYY/MM/DD/ or, in older
// releases, sessions/ itself.
func (c Codex) findRollout(thread string) string {
	for _, pattern := range []string{"sessions/*/*/*/rollout-*-" + thread + ".jsonl", "sessions/rollout-*-" + thread + ".jsonl"} {
		if m, _ := filepath.Glob(filepath.Join(c.home(), pattern)); len(m) > 0 {
			return m[len(m)-1]
		}
	}
	return ""
}

// Transcripts implements Adapter: a subagent's rollout is named by the
// SubagentStop event that ends it.
func (Codex) Transcripts(p Payload) (map[string]string, error) {
	if p.Subagent == "" || p.TranscriptPath == "" {
		return nil, nil
	}
	rel, err := filepath.Rel(filepath.Dir(p.TranscriptPath), p.Subagent)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "subagents/" + filepath.Base(p.Subagent)
	}
	return map[string]string{filepath.ToSlash(rel): p.Subagent}, nil
}

// IsPrompt implements Adapter: a user_message event.
func (Codex) IsPrompt(record any) bool {
	r, _ := record.(map[string]any)
	payload, _ := r["payload"].(map[string]any)
	return r["type"] == "event_msg" && payload["type"] == "user_message"
}

// CompactEvent implements Adapter.
func (Codex) CompactEvent() string { return "PreCompact" }

// TouchedFiles implements Adapter: the paths of an apply_patch call.
func (Codex) TouchedFiles(record any) []string {
	r, _ := record.(map[string]any)
	payload, _ := r["payload"].(map[string]any)
	if r["type"] != "response_item" || str(payload, "name") != "apply_patch" {
		return nil
	}
	patch := str(payload, "input")
	if patch == "" {
		patch = str(payload, "arguments")
	}
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, prefix); ok {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	return out
}

// Check implements Adapter: rollout lines are {timestamp, type, payload}.
func (Codex) Check(records []any) error {
	for _, rec := range records {
		r, ok := rec.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := r["payload"]; ok && r["type"] != nil {
			return nil
		}
		if _, claude := r["sessionId"]; claude {
			return fmt.Errorf("this is a Claude Code transcript; use --from claude-code")
		}
	}
	return fmt.Errorf("no Codex rollout line ({timestamp, type, payload}) in the first lines")
}
