package cmdline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/mcpserver"
)

// inspectorPin is the MCP Inspector's command-line client the test runs,
// at the version testdata/mcp-inspector.json pins.
type inspectorPin struct {
	Package, Version, Bin string
}

func readInspectorPin(t *testing.T) inspectorPin {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "mcp-inspector.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p inspectorPin
	if err := json.Unmarshal(data, &p); err != nil || p.Package == "" || p.Version == "" || p.Bin == "" {
		t.Fatalf("testdata/mcp-inspector.json: %v %+v", err, p)
	}
	return p
}

// findInspector gives the Inspector CLI's script, the file its program
// links to, which $GIT_SNAP_MCP_INSPECTOR names: the test installs
// nothing, so that go test stays offline. .ci/run installs the pinned
// version and sets the variable. Without it the test is skipped, or
// fails when GIT_SNAP_REQUIRE_TOOLS is set; a program of another
// package or version fails it.
func findInspector(t *testing.T, p inspectorPin) string {
	t.Helper()
	bin := os.Getenv("GIT_SNAP_MCP_INSPECTOR")
	if bin == "" {
		msg := fmt.Sprintf("GIT_SNAP_MCP_INSPECTOR is not set: to run this test, npm install --prefix DIR %s@%s and set it to DIR/node_modules/.bin/%s (.ci/run does both)",
			p.Package, p.Version, p.Bin)
		if os.Getenv("GIT_SNAP_REQUIRE_TOOLS") != "" {
			t.Fatal(msg + ", and GIT_SNAP_REQUIRE_TOOLS is set")
		}
		t.Skip(msg)
	}
	script, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatalf("GIT_SNAP_MCP_INSPECTOR: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(script), "..", "package.json"))
	if err != nil {
		t.Fatalf("GIT_SNAP_MCP_INSPECTOR=%s is not the program of an npm package: %v", bin, err)
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(data, &pkg); err != nil || pkg.Name != p.Package || pkg.Version != p.Version {
		t.Fatalf("GIT_SNAP_MCP_INSPECTOR=%s is %s@%s (%v), want %s@%s as testdata/mcp-inspector.json pins",
			bin, pkg.Name, pkg.Version, err, p.Package, p.Version)
	}
	return script
}

// inspector runs the Inspector CLI's script against git-snap's server on
// repo and decodes what it prints. It runs in the script's folder: the
// CLI checks for a package.json one folder up from its working
// directory before it reads its own, and fails where there is none
// (modelcontextprotocol/inspector#1334). The server is told its
// repository with -C.
func inspector(t *testing.T, script, bin, repo string, serverArgs []string, args ...string) (map[string]any, string) {
	t.Helper()
	node := requireTool(t, "node")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{script, "--cli", bin, "-C", repo, "mcp"}, serverArgs...)
	cmd := exec.CommandContext(ctx, node, append(argv, args...)...)
	cmd.Dir = filepath.Dir(script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("inspector %v printed no JSON: %v\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	return out, stderr.String()
}

// toolText is a tools/call result's text, and whether it is an error.
func toolText(t *testing.T, res map[string]any) (string, bool) {
	t.Helper()
	content, _ := res["content"].([]any)
	var b strings.Builder
	for _, c := range content {
		m, _ := c.(map[string]any)
		if m["type"] != "text" {
			t.Fatalf("content %v, want text", m)
		}
		b.WriteString(m["text"].(string))
	}
	isErr, _ := res["isError"].(bool)
	return b.String(), isErr
}

// firstClaudePrompt is the first prompt typed in a Claude Code
// transcript, read from the file: a user record whose content is a
// string.
func firstClaudePrompt(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
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

// TestMCPInspector runs the MCP Inspector's CLI, a client the SDK did
// not write, against the built binary: it lists the tools, calls each
// one, and a search brings back the first prompt of a real transcript
// imported from testdata; a call with an argument a tool does not take
// is an error that names it.
func TestMCPInspector(t *testing.T) {
	dir := findInspector(t, readInspectorPin(t))
	bin := buildBinary(t)
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	transcript, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "claude-code", "short.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "claude-code", "tool_heavy.jsonl"))
	if out, err := exec.Command(bin, "-C", repo, "import", "--from", "claude-code", transcript, other).CombinedOutput(); err != nil {
		t.Fatalf("import: %v: %s", err, out)
	}
	prompt := firstClaudePrompt(t, transcript)

	listed, _ := inspector(t, dir, bin, repo, nil, "--method", "tools/list")
	var names []string
	tools, _ := listed["tools"].([]any)
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if want := slices.Sorted(slices.Values(mcpserver.ReadTools)); !slices.Equal(names, want) {
		t.Errorf("tools/list: %v, want %v", names, want)
	}
	listed, _ = inspector(t, dir, bin, repo, []string{"--allow-write"}, "--method", "tools/list")
	if tools, _ := listed["tools"].([]any); len(tools) != len(mcpserver.ReadTools)+len(mcpserver.WriteTools) {
		t.Errorf("tools/list with --allow-write: %d tools, want %d", len(tools), len(mcpserver.ReadTools)+len(mcpserver.WriteTools))
	}

	res, _ := inspector(t, dir, bin, repo, nil, "--method", "tools/call", "--tool-name", mcpserver.ToolSearch,
		"--tool-arg", "pattern="+prompt, "--tool-arg", "syntax=fixed")
	text, isErr := toolText(t, res)
	var hits struct {
		Hits []struct{ Session, Line string } `json:"hits"`
	}
	if isErr || json.Unmarshal([]byte(text), &hits) != nil {
		t.Fatalf("search %q: %s", prompt, text)
	}
	session := ""
	for _, h := range hits.Hits {
		if strings.Contains(h.Line, prompt) {
			session = h.Session
		}
	}
	if session == "" {
		t.Fatalf("search %q found no line holding it: %s", prompt, text)
	}

	for _, c := range []struct {
		tool string
		args []string
		want string
	}{
		{mcpserver.ToolListSessions, nil, session},
		{mcpserver.ToolListSnapshots, []string{"rev=" + session}, session},
		{mcpserver.ToolShow, []string{"rev=" + session, "turn=1"}, prompt},
		{mcpserver.ToolDiff, []string{"from=" + session}, "diff "},
		{mcpserver.ToolListCheckpoints, nil, "checkpoints"},
	} {
		args := []string{"--method", "tools/call", "--tool-name", c.tool}
		for _, a := range c.args {
			args = append(args, "--tool-arg", a)
		}
		res, _ := inspector(t, dir, bin, repo, nil, args...)
		if text, isErr := toolText(t, res); isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s %v: error %v, %.300s; want it to hold %q", c.tool, c.args, isErr, text, c.want)
		}
	}

	res, _ = inspector(t, dir, bin, repo, nil, "--method", "tools/call", "--tool-name", mcpserver.ToolSearch,
		"--tool-arg", "pattern=x", "--tool-arg", "bogus=1")
	if text, isErr := toolText(t, res); !isErr || !strings.Contains(text, `"bogus"`) {
		t.Errorf("search with an unknown argument: error %v, %s", isErr, text)
	}
}
