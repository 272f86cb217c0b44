package agent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// mcpEntryOf decodes the server entry named git-snap at path in a JSON
// file, nil when absent.
func mcpEntryOf(t *testing.T, file string, path []string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	servers, _ := v.(map[string]any)
	e, _ := servers[MCPName].(map[string]any)
	return e
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestClaudeCodeMCPFiles: each scope's entry goes where Claude Code
// reads it, .claude.json following CLAUDE_CONFIG_DIR.
func TestClaudeCodeMCPFiles(t *testing.T) {
	for _, c := range []struct {
		env   map[string]string
		scope Scope
		file  string
		path  []string
	}{
		{nil, ProjectScope, "/src/demo/.mcp.json", []string{"mcpServers"}},
		{nil, UserScope, "/home/ada/.claude.json", []string{"mcpServers"}},
		{nil, DefaultScope, "/home/ada/.claude.json", []string{"projects", "/src/demo", "mcpServers"}},
		{map[string]string{"CLAUDE_CONFIG_DIR": "/etc/claude"}, UserScope, "/etc/claude/.claude.json", []string{"mcpServers"}},
	} {
		a, err := Lookup("claude-code", Env{Home: "/home/ada", Getenv: func(k string) string { return c.env[k] }})
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := a.(MCPHost).MCPConfig(c.scope, "/src/demo")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.File != c.file || strings.Join(cfg.Path, "/") != strings.Join(c.path, "/") || cfg.TOML {
			t.Errorf("%v %v: %+v, want %s at %v", c.env, c.scope, cfg, c.file, c.path)
		}
	}
}

// TestInstallMCPJSON: the entry is added beside everything else, a
// second install changes nothing, a moved binary is updated, someone
// else's git-snap entry is refused, and uninstall takes only ours.
func TestInstallMCPJSON(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, ".claude.json")
	orig := `{
  "numStartups": 7,
  "projects": {
    "/src/demo": {
      "allowedTools": [],
      "mcpServers": {
        "other": {
          "command": "other-server"
        }
      }
    }
  }
}
`
	write(t, file, orig)
	a, _ := Lookup("claude-code", Env{Home: dir})
	cfg, err := a.(MCPHost).MCPConfig(DefaultScope, "/src/demo")
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := InstallMCP(cfg, "/opt/bin/git-snap"); err != nil || !changed {
		t.Fatalf("install: %v, %v", changed, err)
	}
	e := mcpEntryOf(t, file, cfg.Path)
	if e["type"] != "stdio" || e["command"] != "/opt/bin/git-snap" || len(e["args"].([]any)) != 1 || e["args"].([]any)[0] != "mcp" {
		t.Errorf("entry %v", e)
	}
	if s := read(t, file); !strings.Contains(s, `"numStartups": 7`) || !strings.Contains(s, `"other-server"`) || !strings.Contains(s, `"allowedTools": []`) {
		t.Errorf("other settings lost:\n%s", s)
	}
	if changed, err := InstallMCP(cfg, "/opt/bin/git-snap"); err != nil || changed {
		t.Errorf("second install: changed %v, %v", changed, err)
	}
	if cmd, err := MCPCommand(cfg); err != nil || cmd != "/opt/bin/git-snap" {
		t.Errorf("MCPCommand: %q, %v", cmd, err)
	}
	if changed, err := InstallMCP(cfg, "/usr/local/bin/git-snap"); err != nil || !changed || mcpEntryOf(t, file, cfg.Path)["command"] != "/usr/local/bin/git-snap" {
		t.Errorf("install from a moved binary: changed %v, %v", changed, err)
	}
	if changed, err := UninstallMCP(cfg); err != nil || !changed {
		t.Fatalf("uninstall: %v, %v", changed, err)
	}
	if e := mcpEntryOf(t, file, cfg.Path); e != nil {
		t.Errorf("entry left after uninstall: %v", e)
	}
	if s := read(t, file); !strings.Contains(s, `"other-server"`) {
		t.Errorf("uninstall removed another server:\n%s", s)
	}

	// A server named git-snap that is not ours stays, and install says so.
	write(t, file, `{"mcpServers": {"git-snap": {"command": "node", "args": ["mine.js"]}}}`)
	user, _ := a.(MCPHost).MCPConfig(UserScope, "")
	before := read(t, file)
	_, err = InstallMCP(user, "git-snap")
	var se *SettingsError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "did not add") {
		t.Errorf("install over another git-snap entry: %v", err)
	}
	if changed, err := UninstallMCP(user); err != nil || changed {
		t.Errorf("uninstall of another's entry: changed %v, %v", changed, err)
	}
	if read(t, file) != before {
		t.Error("a refused install or uninstall changed the file")
	}
}

// TestInstallMCPProjectFileGoes: a .mcp.json install made is removed
// whole by uninstall.
func TestInstallMCPProjectFileGoes(t *testing.T) {
	work := t.TempDir()
	a, _ := Lookup("claude-code", Env{Home: t.TempDir()})
	cfg, _ := a.(MCPHost).MCPConfig(ProjectScope, work)
	if !cfg.Shared || MCPProgram(cfg, "/opt/bin/git-snap") != "git-snap" {
		t.Errorf("a project's .mcp.json must name git-snap on PATH: %+v", cfg)
	}
	if _, err := InstallMCP(cfg, MCPProgram(cfg, "/opt/bin/git-snap")); err != nil {
		t.Fatal(err)
	}
	if _, err := UninstallMCP(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.File); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".mcp.json left after uninstall: %v", err)
	}
}

// TestInstallMCPCodexTOML: the table is added to config.toml keeping
// every other setting as written, decodes as Codex reads it, and
// uninstall gives back the file as it was.
func TestInstallMCPCodexTOML(t *testing.T) {
	work := t.TempDir()
	a, _ := Lookup("codex", Env{Home: t.TempDir()})
	cfg, err := a.(MCPHost).MCPConfig(DefaultScope, work)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != filepath.Join(work, ".codex", "config.toml") || !cfg.TOML {
		t.Fatalf("codex project MCP config: %+v", cfg)
	}
	orig := `# my settings
model = "o3"
notify = ["say", "done"]

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "o4-mini" # quick
`
	write(t, cfg.File, orig)
	if changed, err := InstallMCP(cfg, "git-snap"); err != nil || !changed {
		t.Fatalf("install: %v, %v", changed, err)
	}
	var got struct {
		Model      string
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `toml:"mcp_servers"`
		Profiles map[string]map[string]any
	}
	if _, err := toml.DecodeFile(cfg.File, &got); err != nil {
		t.Fatalf("config.toml after install: %v\n%s", err, read(t, cfg.File))
	}
	if s := got.MCPServers[MCPName]; s.Command != "git-snap" || strings.Join(s.Args, " ") != "mcp" {
		t.Errorf("git-snap's server: %+v", s)
	}
	if got.Model != "o3" || got.MCPServers["docs"].Command != "npx" || got.Profiles["fast"]["model"] != "o4-mini" {
		t.Errorf("other settings changed: %+v", got)
	}
	if !strings.HasPrefix(read(t, cfg.File), orig) {
		t.Errorf("the lines there before were changed:\n%s", read(t, cfg.File))
	}
	if changed, err := InstallMCP(cfg, "git-snap"); err != nil || changed {
		t.Errorf("second install: changed %v, %v", changed, err)
	}
	if changed, err := InstallMCP(cfg, "/opt/bin/git-snap"); err != nil || !changed {
		t.Errorf("install with another program: changed %v, %v", changed, err)
	}
	if cmd, _ := MCPCommand(cfg); cmd != "/opt/bin/git-snap" {
		t.Errorf("after the update the command is %q", cmd)
	}
	if strings.Count(read(t, cfg.File), "[mcp_servers.git-snap]") != 1 {
		t.Errorf("the table is there more than once:\n%s", read(t, cfg.File))
	}
	if changed, err := UninstallMCP(cfg); err != nil || !changed {
		t.Fatalf("uninstall: %v, %v", changed, err)
	}
	if s := read(t, cfg.File); s != orig {
		t.Errorf("uninstall did not give the file back:\n%s\nwant\n%s", s, orig)
	}

	// Someone else's [mcp_servers.git-snap] is left alone.
	mine := orig + "\n[mcp_servers.git-snap]\ncommand = \"python\"\nargs = [\"mine.py\"]\n"
	write(t, cfg.File, mine)
	if _, err := InstallMCP(cfg, "git-snap"); err == nil || !strings.Contains(err.Error(), "did not add") {
		t.Errorf("install over another git-snap table: %v", err)
	}
	if changed, err := UninstallMCP(cfg); err != nil || changed || read(t, cfg.File) != mine {
		t.Errorf("uninstall of another's table: changed %v, %v", changed, err)
	}

	// A file that is not TOML is refused, named with its line.
	write(t, cfg.File, "model = \n")
	if _, err := InstallMCP(cfg, "git-snap"); err == nil || !strings.Contains(err.Error(), "not valid TOML") {
		t.Errorf("install into a broken config.toml: %v", err)
	}

	// A new file holds only the table; uninstall removes it.
	if err := os.Remove(cfg.File); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallMCP(cfg, "git-snap"); err != nil {
		t.Fatal(err)
	}
	if s := read(t, cfg.File); s != "[mcp_servers.git-snap]\ncommand = \"git-snap\"\nargs = [\"mcp\"]\n" {
		t.Errorf("new config.toml:\n%s", s)
	}
	if _, err := UninstallMCP(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.File); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("config.toml left after uninstall: %v", err)
	}
}

// TestInstallMCPGemini: mcpServers in the settings.json beside the hooks.
func TestInstallMCPGemini(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	a, _ := Lookup("gemini", Env{Home: home})
	for _, scope := range []Scope{DefaultScope, UserScope} {
		cfg, err := a.(MCPHost).MCPConfig(scope, work)
		if err != nil {
			t.Fatal(err)
		}
		hooks, _ := a.SettingsFile(scope, work)
		if cfg.File != hooks || cfg.TOML || cfg.Type != "" {
			t.Errorf("gemini %v: %+v, want mcpServers in %s", scope, cfg, hooks)
		}
		if _, err := InstallMCP(cfg, "git-snap"); err != nil {
			t.Fatal(err)
		}
		if e := mcpEntryOf(t, cfg.File, cfg.Path); e["command"] != "git-snap" || e["type"] != nil {
			t.Errorf("gemini entry %v", e)
		}
	}
	if _, err := a.(MCPHost).MCPConfig(LocalScope, work); err == nil {
		t.Error("gemini has no local settings, yet --local --mcp was taken")
	}
}

// TestInstallMCPCopilotAndOpenCode: Copilot CLI's entry in the user's
// mcp-config.json with all its tools; OpenCode's in opencode.json with
// the command as a list, enabled; members the user added to git-snap's
// entry stay through a second install.
func TestInstallMCPCopilotAndOpenCode(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	cp, _ := Lookup("copilot", Env{Home: home})
	if _, err := cp.(MCPHost).MCPConfig(ProjectScope, work); err == nil {
		t.Error("copilot --project --mcp was taken; it reads only the user's mcp-config.json")
	}
	cfg, err := cp.(MCPHost).MCPConfig(UserScope, work)
	if err != nil || cfg.File != filepath.Join(home, ".copilot", "mcp-config.json") {
		t.Fatalf("copilot: %+v, %v", cfg, err)
	}
	if _, err := InstallMCP(cfg, "/opt/bin/git-snap"); err != nil {
		t.Fatal(err)
	}
	e := mcpEntryOf(t, cfg.File, cfg.Path)
	if e["type"] != "local" || e["command"] != "/opt/bin/git-snap" || e["args"].([]any)[0] != "mcp" || e["tools"].([]any)[0] != "*" {
		t.Errorf("copilot entry %v", e)
	}

	oc, _ := Lookup("opencode", Env{Home: home})
	cfg, err = oc.(MCPHost).MCPConfig(DefaultScope, work)
	if err != nil || cfg.File != filepath.Join(work, "opencode.json") || !cfg.Shared {
		t.Fatalf("opencode: %+v, %v", cfg, err)
	}
	write(t, cfg.File, `{"$schema": "https://opencode.ai/config.json", "model": "x/y"}`)
	if _, err := InstallMCP(cfg, MCPProgram(cfg, "/opt/bin/git-snap")); err != nil {
		t.Fatal(err)
	}
	e = mcpEntryOf(t, cfg.File, cfg.Path)
	if cmd, _ := e["command"].([]any); e["type"] != "local" || len(cmd) != 2 || cmd[0] != "git-snap" || cmd[1] != "mcp" || e["enabled"] != true {
		t.Errorf("opencode entry %v", e)
	}
	// The user adds an environment to git-snap's entry: it stays.
	s := strings.Replace(read(t, cfg.File), `"enabled": true`, `"enabled": true, "environment": {"GIT_SNAP_SESSION": "x"}`, 1)
	write(t, cfg.File, s)
	if changed, err := InstallMCP(cfg, "git-snap"); err != nil || changed {
		t.Errorf("second install: changed %v, %v", changed, err)
	}
	if e := mcpEntryOf(t, cfg.File, cfg.Path); e["environment"] == nil {
		t.Errorf("the user's member of git-snap's entry was dropped: %v", e)
	}
	if changed, err := UninstallMCP(cfg); err != nil || !changed {
		t.Fatalf("uninstall: %v, %v", changed, err)
	}
	if s := read(t, cfg.File); strings.Contains(s, "git-snap") || !strings.Contains(s, `"model": "x/y"`) {
		t.Errorf("after uninstall:\n%s", s)
	}
	if _, err := oc.(MCPHost).MCPConfig(LocalScope, work); err == nil {
		t.Error("opencode has no local settings, yet --local --mcp was taken")
	}
}
