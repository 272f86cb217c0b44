// Package agent is what each agent writes, read: its hook payloads,
// where its transcripts and settings live, how its records read as
// messages (the views stats, trace, replay and the readers use), how a
// transcript's growth is read (ReadUpdate), and how its hooks are put in
// its settings. One file per agent, registered in init; docs/agents.md
// says how to add one. It holds no git: package capture records what it
// reads into the store.
package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/git-snap/git-snap/snapshot"
)

// Payload is what an agent's hook call says, decoded.
type Payload struct {
	Agent          string // adapter name
	Event          string // SessionStart, PostToolUse, Stop, …
	SessionID      string
	TranscriptPath string // the main transcript; "" when the agent gives none
	CWD            string
	Tool           string         // the tool of a tool event
	ToolInput      map[string]any // its input, when given
	// Subagent names a subagent transcript the event gives (SubagentStop).
	Subagent string
	Raw      map[string]any
}

// Label says what happened, for the snapshot's header: "PostToolUse Edit".
func (p Payload) Label() string {
	if p.Tool != "" {
		return p.Event + " " + p.Tool
	}
	return p.Event
}

// Adapter is one agent's side of git-snap: everything about the agent is
// in its own file, behind this interface, and the file registers it (see
// register). Adding an agent is that file; docs/agents.md says how.
type Adapter interface {
	// Name is the agent's name on the command line: claude-code, codex.
	Name() string
	HookReader
	RecordReader
	Installer
	Importer
}

// HookReader reads an agent's hook calls.
type HookReader interface {
	// Decode reads a hook call: the payload on stdin and the arguments
	// after `git snap hook <agent>` (Codex's notify passes its payload as
	// the last argument).
	Decode(stdin []byte, args []string) (Payload, error)
	// Transcripts lists the files of a session's transcript beside the
	// main one (subagents), as name → path; names are relative to the
	// main transcript's directory. A place it could not look in (a
	// regular file where the subagents' folder goes) is a *Unread error
	// beside the files it did find: the caller records those and says
	// what was skipped.
	Transcripts(p Payload) (map[string]string, error)
	// CompactEvent is the hook event that comes before a compaction.
	CompactEvent() string
	// ChangesFiles reports whether the work tree may have changed since
	// the last hook call: false only after a tool that cannot write
	// (reading, searching, fetching), so that such calls pay for no scan
	// of the work tree.
	ChangesFiles(p Payload) bool
}

// readOnly reports whether p is a tool event of one of tools.
func readOnly(p Payload, tools map[string]bool) bool {
	return p.Tool != "" && tools[p.Tool]
}

// RecordReader reads the records of an agent's transcript.
type RecordReader interface {
	// IsPrompt reports whether a transcript record is a prompt the user
	// typed: turns are counted by them.
	IsPrompt(record any) bool
	// TouchedFiles lists the paths a record's tool calls wrote.
	TouchedFiles(record any) []string
	// View reads a record of this agent's transcript as a message for
	// show, diff, stats, trace and replay; ok is false for a record not
	// of its shape.
	View(record any) (m snapshot.Message, ok bool)
	// IsCompaction reports whether a record marks where the agent
	// compacted the conversation.
	IsCompaction(record any) bool
}

// Importer reads transcript files given to import (see FindTranscripts
// and CheckTranscript).
type Importer interface {
	// Check tells whether a transcript's first records are of this
	// agent, so that a file given with the wrong --from is refused.
	Check(records []any) error
	// SessionName names the session a transcript file holds, from its
	// path; the session id the agent gave it when the name has one.
	SessionName(path string) string
}

// Installer puts git-snap's hooks in an agent's settings (see
// InstallHooks).
type Installer interface {
	// Events lists the hook events git-snap installs itself for.
	Events() []string
	// SettingsFile is the file that holds the agent's hooks for scope;
	// workTree is the project's root. A scope the agent has no settings
	// for is an error.
	SettingsFile(scope Scope, workTree string) (string, error)
}

// Scope is whose settings hooks are installed in.
type Scope int

// Scopes of an agent's settings.
const (
	// DefaultScope is where the agent usually keeps a project's hooks.
	DefaultScope Scope = iota
	// UserScope is the user's settings, for every project.
	UserScope
	// ProjectScope is the project's settings, shared in its repository.
	ProjectScope
	// LocalScope is the project's personal settings, kept out of its
	// repository.
	LocalScope
)

// Env locates agents' files: the user's home and the environment
// variables agents read (CLAUDE_CONFIG_DIR, CODEX_HOME, …). The caller
// fills it (the CLI from its own process), so that this package reads no
// environment and a program or a test can point agents anywhere.
type Env struct {
	Home   string                  // the user's home directory
	Getenv func(key string) string // nil: no variable is set
}

// dir is the directory variable names, else sub in the home directory.
func (e Env) dir(variable, sub string) string {
	if e.Getenv != nil {
		if d := e.Getenv(variable); d != "" {
			return d
		}
	}
	return filepath.Join(e.Home, sub)
}

// Info is what an agent says of itself, so that help, completion, man
// pages, doctor and the docs come from its adapter and not from lists
// kept by hand beside it.
type Info struct {
	// Name is the agent's name on the command line: claude-code, codex.
	Name string
	// Title is the agent's own name: Claude Code, Codex CLI.
	Title string
	// Settings says, for install's help, which settings file each scope
	// is and which one is the default.
	Settings string
}

// Registration is one agent: its Info, and how to make its adapter with
// its files located by an Env.
type Registration struct {
	Info Info
	New  func(env Env) Adapter
}

// registry holds every agent's Registration, by name. Each agent's file
// adds its own in an init function, so that a new agent is one file;
// it is written only while packages initialise and read-only after.
var registry = map[string]Registration{}

// register adds an agent; a name registered twice is a programming
// error, caught by the package's tests.
func register(r Registration) {
	if _, dup := registry[r.Info.Name]; dup {
		panic("agent: " + r.Info.Name + " registered twice")
	}
	registry[r.Info.Name] = r
}

// Agents lists every agent's Info, sorted by name.
func Agents() []Info {
	out := make([]Info, 0, len(registry))
	for _, name := range Names() {
		out = append(out, registry[name].Info)
	}
	return out
}

// Adapters lists the agents git-snap knows, sorted by name, their files
// located by env. No adapter's view reads another's records (a test
// checks it on every real transcript), so the order decides nothing.
func Adapters(env Env) []Adapter {
	names := Names()
	out := make([]Adapter, len(names))
	for i, name := range names {
		out[i] = registry[name].New(env)
	}
	return out
}

// viewers are the adapters as record readers, which need no Env: made
// once, since stats and diffs ask them of every record.
var viewers = sync.OnceValue(func() []Adapter { return Adapters(Env{}) })

// Names lists the names of the agents git-snap knows, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Lookup finds an adapter by name, its files located by env: a built-in
// one, else the agent a program on env's PATH adds (External).
func Lookup(name string, env Env) (Adapter, error) {
	if r, ok := registry[name]; ok {
		return r.New(env), nil
	}
	x, err := lookupExternal(name, env)
	if err == nil {
		return x, nil
	}
	if err.Error() != "no program" {
		return nil, fmt.Errorf("agent %q: %w", name, err)
	}
	return nil, fmt.Errorf("%w %q: git-snap knows %s, and finds no %s%s on PATH", ErrUnknownAgent, name, strings.Join(Names(), ", "), ExternalPrefix, name)
}

// ErrUnknownAgent is the error Lookup wraps when no agent has the name;
// any other error is a program on PATH that failed to identify itself.
var ErrUnknownAgent = errors.New("unknown agent")

// ViewMessage reads a stored record with the view of the agent whose
// shape it has, else with snapshot.ViewMessage. It is the
// snapshot.Viewer for stats, diffs and merges of agents' sessions.
func ViewMessage(v any) snapshot.Message { return Reader{}.Read(v).Message }

// isCompaction reports whether any agent reads a record as a compaction:
// a session recorded from a harness has no adapter to ask.
func isCompaction(record any) bool {
	if v, ok := externalView(record); ok {
		return v["compaction"] == true
	}
	for _, a := range viewers() {
		if a.IsCompaction(record) {
			return true
		}
	}
	return false
}

// decodeObject parses a hook payload, which must be a JSON object.
func decodeObject(data []byte, what string) (map[string]any, error) {
	v, err := snapshot.Parse(data, snapshot.Limits{MaxBytes: 64 << 20})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is %s, not a JSON object", what, snapshot.KindOf(v))
	}
	return m, nil
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// PreCompactCheckpoint is the checkpoint set before a compaction throws
// the conversation's detail away.
const PreCompactCheckpoint = "pre-compact"

// LateWriter is a HookReader whose agent writes the last lines of a run
// to the transcript after the hook call that ends the run has returned
// (Copilot CLI: hook.end and session.shutdown after sessionEnd). git snap
// hook records that call again in a follow-up call once the lines are
// there. Such an agent may also write its transcript later than its calls
// come (Copilot CLI 1.0 creates events.jsonl after the calls of a quick
// first run): a main transcript missing during a run is not reported, and
// the follow-up call reports it when it is still missing at the end.
type LateWriter interface {
	// WritesAfter reports whether the agent writes more after the hook
	// call p returns.
	WritesAfter(p Payload) bool
	// Ended reports whether last, the transcript's last record, is the
	// last the agent writes in a run.
	Ended(last any) bool
}

// Exporter is a HookReader whose agent keeps its sessions in no file
// (OpenCode: rows of its SQLite database) and writes the last of a run
// as it exits, after the hook call that ends the run has returned: git
// snap hook records that call again in a follow-up call once the agent's process is
// gone, from what the agent's own export command prints then.
type Exporter interface {
	// ExportAfter gives, for hook call p, the process to wait for and
	// the command whose output is then the session's transcript; ok is
	// false when p asks for none.
	ExportAfter(p Payload) (pid int, command []string, ok bool)
}
