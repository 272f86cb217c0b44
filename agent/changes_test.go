package agent

import "testing"

// A hook call after a tool that cannot write skips the work-tree scan;
// every other event pays for one.
func TestChangesFiles(t *testing.T) {
	for _, c := range []struct {
		a    Adapter
		p    Payload
		want bool
	}{
		{ClaudeCode{}, Payload{Event: "PostToolUse", Tool: "Read"}, false},
		{ClaudeCode{}, Payload{Event: "PostToolUse", Tool: "Grep"}, false},
		{ClaudeCode{}, Payload{Event: "PostToolUse", Tool: "WebFetch"}, false},
		{ClaudeCode{}, Payload{Event: "PostToolUse", Tool: "Bash"}, true},
		{ClaudeCode{}, Payload{Event: "PostToolUse", Tool: "Edit"}, true},
		{ClaudeCode{}, Payload{Event: "PostToolUse", Tool: "Task"}, true}, // a subagent may write
		{ClaudeCode{}, Payload{Event: "PostToolUse", Tool: "mcp__fs__write"}, true},
		{ClaudeCode{}, Payload{Event: "Stop"}, true},
		{ClaudeCode{}, Payload{Event: "UserPromptSubmit"}, true}, // the user may have edited between turns
		{Codex{}, Payload{Event: "PostToolUse", Tool: "update_plan"}, false},
		{Codex{}, Payload{Event: "PostToolUse", Tool: "exec_command"}, true},
		{Codex{}, Payload{Event: "PostToolUse", Tool: "apply_patch"}, true},
	} {
		if got := c.a.ChangesFiles(c.p); got != c.want {
			t.Errorf("%s %s %s: ChangesFiles = %v, want %v", c.a.Name(), c.p.Event, c.p.Tool, got, c.want)
		}
	}
}
