package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realSessions are the real transcripts in testdata: the agent, the main
// file, and the files imported with it (subagents).
var realSessions = []struct {
	agent, file string
	also        []string
}{
	{"claude-code", "claude-code/short.jsonl", nil},
	{"claude-code", "claude-code/tool_heavy.jsonl", nil},
	{"claude-code", "claude-code/subagent.jsonl", nil},
	{"claude-code", "claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", []string{
		"claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl",
		"claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl",
	}},
	{"codex", "codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl", nil},
	{"codex", "codex-real/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl", nil},
	{"codex", "codex-real/plangate-sample.jsonl", nil},
}

// reference is what the test reads from the raw files with encoding/json
// alone: the tool calls and the prompts.
type reference struct {
	toolCalls int
	prompts   []string
}

// readReference counts tool calls as the agents' formats define them
// (Claude Code: tool_use blocks of assistant records; Codex: the call
// items of response_item lines) and lists the prompts.
func readReference(t *testing.T, agentName string, files []string) reference {
	t.Helper()
	var ref reference
	var lines [][]byte
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("..", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	type record struct {
		Type        string `json:"type"`
		IsMeta      bool   `json:"isMeta"`
		IsSidechain bool   `json:"isSidechain"`
		AgentID     string `json:"agentId"`
		Compact     bool   `json:"isCompactSummary"`
		Message     struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Payload struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"payload"`
		Data struct {
			Type    string          `json:"type"`
			AgentID string          `json:"agentId"`
			Message json.RawMessage `json:"message"`
		} `json:"data"`
	}
	filed := map[string]bool{} // subagents whose own file is read
	for _, l := range lines {
		var r record
		if json.Unmarshal(l, &r) == nil && r.IsSidechain {
			filed[r.AgentID] = true
		}
	}
	for _, l := range lines {
		var r record
		if json.Unmarshal(l, &r) != nil {
			continue
		}
		if agentName == "codex" {
			switch {
			case r.Type == "response_item" && strings.Contains(" function_call custom_tool_call local_shell_call web_search_call ", " "+r.Payload.Type+" "):
				ref.toolCalls++
			case r.Type == "event_msg" && r.Payload.Type == "user_message":
				ref.prompts = append(ref.prompts, r.Payload.Message)
			}
			continue
		}
		if r.Type == "progress" && r.Data.Type == "agent_progress" && !filed[r.Data.AgentID] {
			// a subagent's record copied into its parent, whose own file
			// is missing: the copy is the record
			agent := r.Data.AgentID
			if json.Unmarshal(r.Data.Message, &r) != nil {
				continue
			}
			r.IsSidechain, r.AgentID = true, agent
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		var text string
		if r.Type == "assistant" && json.Unmarshal(r.Message.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_use" {
					ref.toolCalls++
				}
			}
		}
		if r.Type == "user" && !r.IsMeta && !r.IsSidechain && !r.Compact && json.Unmarshal(r.Message.Content, &text) == nil && !strings.HasPrefix(text, "<") {
			ref.prompts = append(ref.prompts, text)
		}
	}
	return ref
}
