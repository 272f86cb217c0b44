//go:build unix

package liveagents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/modelapi"
)

// mcpPrompt is the prompt the stub answers with a call of git-snap's
// search tool.
const mcpPrompt = "Find the earlier session where the server would not start."

// firstPrompt is the first prompt typed in a Claude Code transcript,
// read from the file: a user record whose content is a string.
func firstPrompt(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	must(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		var r struct {
			Type    string `json:"type"`
			Message struct {
				Content any `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.Type == "user" {
			if s, ok := r.Message.Content.(string); ok && strings.TrimSpace(s) != "" && !strings.HasPrefix(s, "<") {
				return strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
			}
		}
	}
	t.Fatalf("%s has no typed prompt", file)
	return ""
}

// TestClaudeCodeSearchesOverMCP: Claude Code, with git-snap's MCP server
// registered by git snap install claude-code --mcp, calls its search
// tool when the stub model asks it to, and the result it sends back to
// the model holds a past session's text, imported from a real transcript.
func TestClaudeCodeSearchesOverMCP(t *testing.T) {
	if os.Getenv(switchVar) == "" {
		t.Skip("the live-agent suite runs only with " + switchVar + "=1 (or =latest)")
	}
	t.Parallel()
	d := claude{}
	p := pinFor(t, d.name())
	w := &world{t: t, d: d, agent: install(t, p), root: t.TempDir()}
	t.Logf("%s@%s", p.Package, p.Version)
	w.repo = w.newRepo("repo")
	past, err := filepath.Abs(filepath.Join("..", "..", "testdata", "claude-code", "short.jsonl"))
	must(t, err)
	needle := firstPrompt(t, past)

	const call = "call_gitsnap_mcp_1"
	tool := "mcp__git-snap__search"
	w.script = &modelapi.Script{Steps: []modelapi.Step{
		{Prompt: mcpPrompt, Reply: modelapi.Reply{ToolCalls: []modelapi.ToolCall{{ID: call, Name: tool,
			Input: map[string]any{"pattern": needle, "syntax": "fixed"}}}, Usage: modelapi.Usage{Input: 10, Output: 5}}},
		{Results: []string{call}, Reply: modelapi.Reply{Text: "That was the session where mix phx.server did not start.", Usage: modelapi.Usage{Input: 20, Output: 6}}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	w.stub, err = modelapi.Start(ctx, d.api(), modelapi.Options{Addr: "127.0.0.1:0", Keep: true}, w.script)
	must(t, err)
	t.Cleanup(func() { w.stub.Close() })
	w.useHome("home", w.stub.URL())
	// MCP tools offered with the others, not deferred behind Claude
	// Code's tool search, so that the stub's call names one it knows.
	w.env = append(w.env, "ENABLE_TOOL_SEARCH=false")
	t.Cleanup(w.explain)

	w.gitSnap(0, "import", "--from", "claude-code", past)
	out := w.gitSnap(0, "install", "claude-code", "--mcp", "--project")
	if !strings.Contains(out, ".mcp.json") {
		t.Fatalf("install --mcp --project: %s", out)
	}
	// The project's .mcp.json, as install wrote it, given to Claude Code
	// explicitly: a project's servers otherwise wait for the user's
	// approval, which -p cannot ask for.
	w.runAgent(w.repo, "-p", mcpPrompt, "--mcp-config", filepath.Join(w.repo, ".mcp.json"), "--strict-mcp-config",
		"--allowedTools", tool, "--output-format", "json")

	var offered, answered bool
	for _, e := range w.stub.Exchanges() {
		if e.Request.Side {
			continue
		}
		if _, ok := e.Request.Tool(tool); ok {
			offered = true
		}
		for _, it := range e.Request.Tail() {
			if it.Kind == modelapi.ItemToolResult && it.CallID == call {
				answered = true
				t.Logf("the result sent to the model: %.300s", it.Text)
				if !strings.Contains(it.Text, needle) || !strings.Contains(it.Text, `"hits"`) {
					t.Errorf("the search result sent to the model does not hold %q:\n%s", needle, it.Text)
				}
			}
		}
	}
	if !offered {
		var names []string
		for _, e := range w.stub.Exchanges() {
			for _, tl := range e.Request.Tools {
				names = append(names, tl.Name)
			}
		}
		slices.Sort(names)
		t.Fatalf("no request offered %s; tools offered: %v", tool, slices.Compact(names))
	}
	if !answered {
		t.Fatalf("no request carried the result of %s", call)
	}
}
