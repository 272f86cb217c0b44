package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// taskCallOf is the id of the main transcript's tool call whose result
// record names agentID in toolUseResult.
func taskCallOf(t *testing.T, path, agentID string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct {
			ToolUseResult struct {
				AgentID string `json:"agentId"`
			} `json:"toolUseResult"`
			Message struct {
				Content []struct {
					ToolUseID string `json:"tool_use_id"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ToolUseResult.AgentID == agentID && len(r.Message.Content) > 0 {
			return r.Message.Content[0].ToolUseID
		}
	}
	t.Fatalf("%s has no tool result naming agent %s", path, agentID)
	return ""
}

// A subagent's thread is shown under the Task call that ran it, whole,
// and nowhere else; one no call ran (Claude Code's compaction agent)
// stays where it began.
func TestSubagentsNestUnderTheirCall(t *testing.T) {
	s := newStore(t)
	const long = "claude-code/4d5611e5-241a-462a-8d15-5122611a9569"
	importSession(t, s, "claude-code", long+".jsonl", "long")
	sess := loadSession(t, s, "long", Options{NoFiles: true})
	wantUses := readReference(t, "claude-code", []string{long + "/subagents/agent-a2898e3.jsonl"}).toolCalls
	call := taskCallOf(t, filepath.Join("..", "testdata", long+".jsonl"), "a2898e3")

	var found *ToolCall
	placeholders := map[string]int{}
	mainUses := 0
	for _, turn := range sess.Turns {
		for _, it := range turn.Items {
			switch it.Kind {
			case KindSubagent:
				placeholders[it.Subagent.Name]++
			case KindTool:
				mainUses++
				if it.Tool.CallID == call {
					found = it.Tool
				}
			}
		}
	}
	if found == nil || found.Subagent == nil {
		t.Fatalf("the Task call %s has no subagent under it", call)
	}
	if found.Subagent.Name != "a2898e3" || found.Subagent.ToolCalls() != wantUses {
		t.Errorf("under the Task call: subagent %s with %d tool calls, want a2898e3 with %d (its transcript's tool_use blocks)", found.Subagent.Name, found.Subagent.ToolCalls(), wantUses)
	}
	if placeholders["a2898e3"] != 0 || placeholders["acompact-e1f845"] != 1 {
		t.Errorf("subagents shown on their own: %v, want only acompact-e1f845, once", placeholders)
	}
	// The main transcript's own: its copies of a2898e3's records are the
	// subagent's, whose file is there.
	mainWant := readReference(t, "claude-code", []string{long + ".jsonl", long + "/subagents/agent-a2898e3.jsonl"}).toolCalls - wantUses
	if mainUses != mainWant {
		t.Errorf("the main thread shows %d tool calls, want %d (the main transcript's)", mainUses, mainWant)
	}
}
