package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/internal/lazy"
)

// MCPName is the name git-snap's MCP server is registered under in an
// agent's settings: its tools reach the model as mcp__git-snap__search
// (Claude Code, Gemini CLI) or the agent's equivalent.
const MCPName = "git-snap"

// MCPConfig is where an agent lists the MCP servers it starts, for one
// scope: a JSON settings file with an object of servers at Path, or a
// config.toml with a [mcp_servers.NAME] table per server.
type MCPConfig struct {
	File string
	// TOML: the file is Codex's config.toml. Otherwise it is JSON, and
	// Path names the keys down to the object of servers (["mcpServers"];
	// Claude Code's personal entry for a project is under ["projects",
	// WORKTREE, "mcpServers"]).
	TOML bool
	Path []string
	// Type, when set, is the entry's "type" (Claude Code's "stdio").
	Type string
	// CommandList: the entry's command is a list, the program then its
	// arguments (OpenCode's), not a program with "args".
	CommandList bool
	// Extra are members the agent needs in the entry beside the command
	// (Copilot CLI's "tools", OpenCode's "enabled"), in order.
	Extra []MCPField
	// Shared is a file a team commits: the entry names git-snap as PATH
	// finds it, never one machine's path to it.
	Shared bool
	// Note is what the user should know after an install: an approval or
	// a trust the agent asks for before it starts the server.
	Note string
}

// MCPField is a member of an MCP server entry.
type MCPField struct {
	Key   string
	Value any
}

// MCPHost is an adapter whose agent starts MCP servers from its own
// settings.
type MCPHost interface {
	MCPConfig(scope Scope, workTree string) (MCPConfig, error)
}

// MCPProgram is the program an MCP entry starts: exe, this binary, in
// personal settings; git-snap as PATH finds it in shared ones, and
// where exe is not known or will not last (a go run binary).
func MCPProgram(c MCPConfig, exe string) string {
	if c.Shared || exe == "" || strings.Contains(exe, string(filepath.Separator)+"go-build") || !strings.Contains(filepath.Base(exe), "git-snap") {
		return "git-snap"
	}
	return exe
}

// mcpArgs are the arguments of git-snap's MCP server entry.
var mcpArgs = []string{"mcp"}

// isOurMCP recognises an entry git-snap wrote, wherever the binary was.
func isOurMCP(command any, args []any) bool {
	cmd, _ := command.(string)
	return strings.Contains(filepath.Base(cmd), "git-snap") && len(args) >= 1 && args[0] == "mcp"
}

// isOurEntry recognises git-snap's entry in a JSON file: a command and
// its args, or a command list.
func isOurEntry(e *ordered) bool {
	if list, ok := e.get("command").([]any); ok {
		return len(list) >= 2 && isOurMCP(list[0], list[1:])
	}
	args, _ := e.get("args").([]any)
	return isOurMCP(e.get("command"), args)
}

// entryMembers are the members of git-snap's entry for c, in order.
func entryMembers(c MCPConfig, program string) []MCPField {
	var out []MCPField
	if c.Type != "" {
		out = append(out, MCPField{"type", c.Type})
	}
	if c.CommandList {
		out = append(out, MCPField{"command", toAny(append([]string{program}, mcpArgs...))})
	} else {
		out = append(out, MCPField{"command", program}, MCPField{"args", toAny(mcpArgs)})
	}
	return append(out, c.Extra...)
}

// sameJSON says whether two decoded settings values are alike.
func sameJSON(a, b any) bool {
	var x, y bytes.Buffer
	writeOrdered(&x, a, "")
	writeOrdered(&y, b, "")
	return x.String() == y.String()
}

// InstallMCP registers git-snap's MCP server, running program, in c's
// file, keeping everything else; it reports whether the file changed.
// An entry named git-snap that git-snap did not write is an error, never
// overwritten.
func InstallMCP(c MCPConfig, program string) (bool, error) {
	if c.TOML {
		return installMCPTOML(c.File, program)
	}
	return editSettings(c.File, false, func(s *ordered) (bool, error) {
		servers, err := serversAt(s, c.Path, true)
		if err != nil {
			return false, err
		}
		entry := &ordered{vals: map[string]any{}}
		switch e := servers.get(MCPName).(type) {
		case nil:
			servers.set(MCPName, entry)
		case *ordered:
			if !isOurEntry(e) {
				return false, fmt.Errorf("%s.%s is an MCP server git-snap did not add: rename or remove it first", strings.Join(c.Path, "."), MCPName)
			}
			entry = e // members the user added to it stay
		default:
			return false, fmt.Errorf("%s.%s is %s, not an MCP server", strings.Join(c.Path, "."), MCPName, jsonKind(e))
		}
		changed := false
		for _, f := range entryMembers(c, program) {
			if v := entry.get(f.Key); v == nil || !sameJSON(v, f.Value) {
				entry.set(f.Key, f.Value)
				changed = true
			}
		}
		return changed, nil
	})
}

// UninstallMCP removes git-snap's MCP server from c's file, and only it;
// it reports whether the file changed. An object of servers left empty
// at the top of the file goes, and a file left with nothing in it.
func UninstallMCP(c MCPConfig) (bool, error) {
	if c.TOML {
		return uninstallMCPTOML(c.File)
	}
	return editSettings(c.File, true, func(s *ordered) (bool, error) {
		servers, err := serversAt(s, c.Path, false)
		if err != nil || servers == nil {
			return false, err
		}
		e, _ := servers.get(MCPName).(*ordered)
		if e == nil || !isOurEntry(e) {
			return false, nil // none, or not git-snap's to remove
		}
		servers.del(MCPName)
		if len(servers.keys) == 0 && len(c.Path) == 1 {
			s.del(c.Path[0])
		}
		return true, nil
	})
}

// MCPCommand is the program git-snap's entry in c's file starts, "" when
// there is none.
func MCPCommand(c MCPConfig) (string, error) {
	if c.TOML {
		entry, _, _, err := readMCPTOML(c.File)
		if err != nil || entry == nil {
			return "", err
		}
		cmd, _ := entry["command"].(string)
		return cmd, nil
	}
	s, err := readSettings(c.File)
	if err != nil {
		return "", err
	}
	servers, err := serversAt(s, c.Path, false)
	if err != nil || servers == nil {
		return "", withPath(err, c.File)
	}
	e, _ := servers.get(MCPName).(*ordered)
	if e == nil {
		return "", nil
	}
	if list, ok := e.get("command").([]any); ok && len(list) > 0 {
		cmd, _ := list[0].(string)
		return cmd, nil
	}
	cmd, _ := e.get("command").(string)
	return cmd, nil
}

// serversAt is the object of servers at path in s, made (with the
// objects above it) when create is set; nil when absent otherwise. A
// value of another kind on the way is an error.
func serversAt(s *ordered, path []string, create bool) (*ordered, error) {
	o := s
	for i, k := range path {
		switch v := o.get(k).(type) {
		case *ordered:
			o = v
		case nil:
			if !create {
				return nil, nil
			}
			n := &ordered{vals: map[string]any{}}
			o.set(k, n)
			o = n
		default:
			return nil, &SettingsError{Msg: fmt.Sprintf("%s is %s, not an object", strings.Join(path[:i+1], "."), jsonKind(v))}
		}
	}
	return o, nil
}

// mcpHeader matches the header of git-snap's table in a config.toml,
// and of tables under it ([mcp_servers.git-snap.env]).
var mcpHeader = lazy.Regexp(`^\s*\[\s*mcp_servers\s*\.\s*(?:git-snap|"git-snap"|'git-snap')\s*(?:\]|\.)`)

// readMCPTOML reads a config.toml: git-snap's server entry (nil when
// there is none), everything decoded, and the file's bytes.
func readMCPTOML(path string) (entry map[string]any, all map[string]any, data []byte, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, map[string]any{}, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	all = map[string]any{}
	if err := decodeTOML(data, &all); err != nil {
		return nil, nil, nil, tomlError(path, err)
	}
	servers, _ := all["mcp_servers"].(map[string]any)
	entry, _ = servers[MCPName].(map[string]any)
	return entry, all, data, nil
}

// mcpTable is git-snap's table for config.toml.
func mcpTable(program string) string {
	q := make([]string, len(mcpArgs))
	for i, a := range mcpArgs {
		q[i] = strconv.Quote(a)
	}
	return fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [%s]\n", MCPName, strconv.Quote(program), strings.Join(q, ", "))
}

// ourTOMLEntry says whether a decoded entry is one git-snap wrote.
func ourTOMLEntry(entry map[string]any) bool {
	args, _ := entry["args"].([]any)
	return isOurMCP(entry["command"], args)
}

// withoutMCPTable is the file's lines with git-snap's tables left out;
// found says whether there were any.
func withoutMCPTable(body string) (out []string, at int, found bool) {
	lines := strings.Split(body, "\n")
	at = -1
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = mcpHeader().MatchString(l)
			if in && at < 0 {
				at, found = len(out), true
			}
		}
		if !in {
			out = append(out, l)
		}
	}
	return out, at, found
}

func installMCPTOML(path, program string) (bool, error) {
	entry, all, data, err := readMCPTOML(path)
	if err != nil {
		return false, err
	}
	if entry != nil && !ourTOMLEntry(entry) {
		return false, &SettingsError{Path: path, Msg: "[mcp_servers." + MCPName + "] is an MCP server git-snap did not add: rename or remove it first"}
	}
	if entry != nil && entry["command"] == program && reflect.DeepEqual(entry["args"], toAny(mcpArgs)) && len(entry) == 2 {
		return false, nil
	}
	body, bom := bytes.CutPrefix(data, utf8BOM)
	lines, at, found := withoutMCPTable(string(body))
	if entry != nil && !found {
		return false, &SettingsError{Path: path, Msg: "git-snap's MCP server is written in a form install does not edit; replace it by hand with\n" + mcpTable(program)}
	}
	table := strings.Split(strings.TrimSuffix(mcpTable(program), "\n"), "\n")
	if !found {
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		at = len(lines)
		table = append(table, "")
	} else {
		table = append(table, "")
		for at < len(lines) && strings.TrimSpace(lines[at]) == "" {
			lines = slices.Delete(lines, at, at+1)
		}
	}
	out := strings.Join(slices.Insert(lines, at, table...), "\n")
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if err := checkMCPEdit(path, all, []byte(out), program); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, writeFileAtomic(path, withBOM(bom, []byte(out)), 0o644)
}

func uninstallMCPTOML(path string) (bool, error) {
	entry, all, data, err := readMCPTOML(path)
	if err != nil || entry == nil || !ourTOMLEntry(entry) {
		return false, err
	}
	body, bom := bytes.CutPrefix(data, utf8BOM)
	lines, _, found := withoutMCPTable(string(body))
	if !found {
		return false, &SettingsError{Path: path, Msg: "git-snap's MCP server is written in a form uninstall does not edit: remove it by hand"}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	out := strings.Join(lines, "\n")
	if strings.TrimSpace(out) == "" {
		return true, removeSettings(path, nil)
	}
	out += "\n"
	if err := checkMCPEdit(path, all, []byte(out), ""); err != nil {
		return false, err
	}
	return true, writeFileAtomic(path, withBOM(bom, []byte(out)), 0o644)
}

// checkMCPEdit holds an edited config.toml to what was meant: the same
// settings as before but for git-snap's server, which is program's entry
// (or gone for ""). A file whose lines fooled the edit (a table header
// inside a multi-line string) is left as it was.
func checkMCPEdit(path string, before map[string]any, edited []byte, program string) error {
	after := map[string]any{}
	if err := decodeTOML(edited, &after); err != nil {
		return &SettingsError{Path: path, Msg: "the edit would not be valid TOML (" + err.Error() + "); add it by hand:\n" + mcpTable(program)}
	}
	entryOf := func(m map[string]any) (map[string]any, map[string]any) {
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		servers, _ := m["mcp_servers"].(map[string]any)
		entry, _ := servers[MCPName].(map[string]any)
		if servers != nil {
			rest := map[string]any{}
			for k, v := range servers {
				if k != MCPName {
					rest[k] = v
				}
			}
			c["mcp_servers"] = rest
			if len(rest) == 0 {
				delete(c, "mcp_servers")
			}
		}
		return entry, c
	}
	_, restBefore := entryOf(before)
	entry, restAfter := entryOf(after)
	want := program != ""
	if !reflect.DeepEqual(restBefore, restAfter) || (entry != nil) != want || (want && (entry["command"] != program || !reflect.DeepEqual(entry["args"], toAny(mcpArgs)))) {
		return &SettingsError{Path: path, Msg: "install cannot edit this file safely; add it by hand:\n" + mcpTable(program)}
	}
	return nil
}

// MCPConfig implements MCPHost: .mcp.json in the project (--project),
// shared; the user's ~/.claude.json, at its top for every project
// (--user) or under the project's entry (--local, the default), as
// claude mcp add writes them.
func (c ClaudeCode) MCPConfig(scope Scope, workTree string) (MCPConfig, error) {
	switch scope {
	case ProjectScope:
		return MCPConfig{File: filepath.Join(workTree, ".mcp.json"), Path: []string{"mcpServers"}, Type: "stdio", Shared: true,
			Note: "Claude Code asks once, at its next start in this project, to approve the servers in .mcp.json"}, nil
	case UserScope:
		return MCPConfig{File: c.globalConfig(), Path: []string{"mcpServers"}, Type: "stdio"}, nil
	}
	if workTree == "" {
		return MCPConfig{}, errors.New("--local registers the server for one project: run it in a work tree, or use --user")
	}
	return MCPConfig{File: c.globalConfig(), Path: []string{"projects", workTree, "mcpServers"}, Type: "stdio"}, nil
}

// globalConfig is Claude Code's own state file, .claude.json: in
// $CLAUDE_CONFIG_DIR when that is set, else in the home directory,
// beside ~/.claude.
func (c ClaudeCode) globalConfig() string {
	if c.GlobalConfig != "" {
		return c.GlobalConfig
	}
	return filepath.Join(filepath.Dir(c.ConfigDir), ".claude.json")
}

// MCPConfig implements MCPHost: the [mcp_servers.git-snap] table of the
// config.toml beside the hooks (~/.codex for --user, .codex in the
// project, the default, which Codex reads only in a trusted project).
func (c Codex) MCPConfig(scope Scope, workTree string) (MCPConfig, error) {
	file, err := c.SettingsFile(scope, workTree)
	if err != nil {
		return MCPConfig{}, err
	}
	out := MCPConfig{File: c.ConfigFile(file), TOML: true}
	if scope != UserScope {
		out.Shared = true
		out.Note = "Codex reads a project's .codex/config.toml only once the project is trusted (git snap install codex records the trust)"
	}
	return out, nil
}

// MCPConfig implements MCPHost: mcpServers in the settings.json that
// holds the hooks (~/.gemini for --user, .gemini in the project, the
// default).
func (g Gemini) MCPConfig(scope Scope, workTree string) (MCPConfig, error) {
	file, err := g.SettingsFile(scope, workTree)
	if err != nil {
		return MCPConfig{}, err
	}
	return MCPConfig{File: file, Path: []string{"mcpServers"}, Shared: scope != UserScope}, nil
}

// MCPConfig implements MCPHost: the user's mcp-config.json in Copilot
// CLI's home, the one file its documentation names; it reads no
// project file of git-snap's, so --project and --local are refused.
func (c Copilot) MCPConfig(scope Scope, _ string) (MCPConfig, error) {
	if scope != UserScope {
		return MCPConfig{}, errors.New("copilot reads MCP servers from ~/.copilot/mcp-config.json: use --user")
	}
	return MCPConfig{File: filepath.Join(c.Home, "mcp-config.json"), Path: []string{"mcpServers"}, Type: "local",
		Extra: []MCPField{{"tools", []any{"*"}}}}, nil
}

// MCPConfig implements MCPHost: "mcp" in opencode.json, the project's at
// its root (the default) or the user's in OpenCode's config folder; the
// command is a list, and the server enabled.
// Kilo's is kilo.json, the project's in its .kilo folder.
func (o OpenCode) MCPConfig(scope Scope, workTree string) (MCPConfig, error) {
	f := o.f()
	c := MCPConfig{Path: []string{"mcp"}, Type: "local", CommandList: true, Extra: []MCPField{{"enabled", true}}}
	project := filepath.Join(workTree, f.dir+".json")
	if o.fork != nil {
		project = filepath.Join(workTree, f.dot, f.dir+".json")
	}
	switch scope {
	case LocalScope:
		return MCPConfig{}, errors.New(f.name + " has no local settings: use --project or --user")
	case UserScope:
		c.File = filepath.Join(o.ConfigDir, f.dir+".json")
	default:
		c.File, c.Shared = project, true
	}
	return c, nil
}
