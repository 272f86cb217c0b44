package agent

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

// fictitious stands for a new agent's file (docs/agents.md): an adapter
// as small as one can be, for an agent whose hooks send {event, session,
// transcript, cwd} on stdin, whose transcript is JSONL of {who, text}
// records and whose settings hold hooks as Claude Code's do. It is all
// that a new agent adds; TestANewAgentIsOneFile shows git-snap finds it.
type fictitious struct {
	dir string // the user's settings: ~/.fictitious
}

// fictitiousInfo is what the agent's init would register.
var fictitiousInfo = Info{
	Name:     "fictitious",
	Title:    "Fictitious CLI",
	Settings: ".fictitious/settings.json (--project, the default) or ~/.fictitious/settings.json (--user)",
}

func newFictitious(env Env) Adapter {
	return fictitious{dir: env.dir("FICTITIOUS_HOME", ".fictitious")}
}

func (fictitious) Name() string { return "fictitious" }

func (f fictitious) Decode(stdin []byte, _ []string) (Payload, error) {
	raw, err := decodeObject(stdin, "fictitious hook payload")
	if err != nil {
		return Payload{}, err
	}
	p := Payload{Agent: f.Name(), Raw: raw, Event: str(raw, "event"), SessionID: str(raw, "session"),
		TranscriptPath: str(raw, "transcript"), CWD: str(raw, "cwd")}
	if p.Event == "" || p.SessionID == "" {
		return Payload{}, errors.New("the fictitious hook payload has no event or session")
	}
	return p, nil
}

func (fictitious) Transcripts(Payload) (map[string]string, error) { return nil, nil }
func (fictitious) CompactEvent() string                           { return "compact" }
func (fictitious) ChangesFiles(Payload) bool                      { return true }

func fictitiousRecord(record any) (who, text string, ok bool) {
	r, _ := record.(map[string]any)
	who, text = str(r, "who"), str(r, "text")
	return who, text, who == "user" || who == "model"
}

func (fictitious) IsPrompt(record any) bool {
	who, _, ok := fictitiousRecord(record)
	return ok && who == "user"
}

func (fictitious) TouchedFiles(any) []string { return nil }

func (fictitious) View(record any) (snapshot.Message, bool) {
	who, text, ok := fictitiousRecord(record)
	if !ok {
		return snapshot.Message{}, false
	}
	role := map[string]string{"user": "user", "model": "assistant"}[who]
	return snapshot.Message{Role: role, Parts: []snapshot.Part{{Kind: snapshot.PartText, Text: text}}}, true
}

func (fictitious) IsCompaction(any) bool { return false }

func (fictitious) Events() []string { return []string{"start", "turn", "end"} }

func (f fictitious) SettingsFile(scope Scope, workTree string) (string, error) {
	switch scope {
	case LocalScope:
		return "", errors.New("fictitious has no local settings: use --project or --user")
	case UserScope:
		return filepath.Join(f.dir, "settings.json"), nil
	}
	return filepath.Join(workTree, ".fictitious", "settings.json"), nil
}

func (fictitious) Check(records []any) error {
	for _, r := range records {
		if _, _, ok := fictitiousRecord(r); ok {
			return nil
		}
	}
	return errors.New("no {who, text} record in the first lines")
}

func (fictitious) SessionName(path string) string { return idInName(path) }

// TestANewAgentIsOneFile registers fictitious as its file's init would,
// and finds it everywhere agents are listed, looked up, installed and
// read from. The command line's install, hook, import and restore help
// and its completion are made from Agents and Names, and doctor goes
// through Adapters, so a new agent changes none of them. ViewMessage is
// left out: it asks the adapters it made on its first call, which a test
// cannot undo.
func TestANewAgentIsOneFile(t *testing.T) {
	register(Registration{Info: fictitiousInfo, New: newFictitious})
	t.Cleanup(func() { unregister(fictitiousInfo.Name) })

	if i := slices.Index(Names(), "fictitious"); i < 0 || !slices.IsSorted(Names()) {
		t.Fatalf("Names() = %v: want fictitious among them, sorted", Names())
	}
	if !slices.Contains(Agents(), fictitiousInfo) {
		t.Errorf("Agents() has no %+v", fictitiousInfo)
	}
	home := t.TempDir()
	env := Env{Home: home}
	if !slices.ContainsFunc(Adapters(env), func(a Adapter) bool { return a.Name() == "fictitious" }) {
		t.Error("Adapters() leaves fictitious out")
	}
	if _, err := Lookup("nope", env); err == nil || !strings.Contains(err.Error(), "fictitious") {
		t.Errorf("an unknown agent's error does not name the agents known: %v", err)
	}
	a, err := Lookup("fictitious", env)
	if err != nil {
		t.Fatal(err)
	}

	// Install and uninstall, with nothing but the adapter's events and
	// settings file.
	settings, err := a.SettingsFile(UserScope, "")
	if err != nil || settings != filepath.Join(home, ".fictitious", "settings.json") {
		t.Fatalf("the user's settings: %q, %v: Env does not reach the adapter", settings, err)
	}
	if changed, err := Install(a, settings, HookCommand("git-snap", "fictitious")); err != nil || !changed {
		t.Fatalf("install: %v, %v", changed, err)
	}
	cmds, err := HookCommands(settings, "fictitious")
	if err != nil || len(cmds) != len(a.Events()) {
		t.Fatalf("hooks installed: %v, %v; want one for each of %v", cmds, err, a.Events())
	}
	if changed, err := Uninstall(a, settings); err != nil || !changed {
		t.Fatalf("uninstall: %v, %v", changed, err)
	}

	// A hook call read as the command line's hook reads it.
	transcript := filepath.Join(t.TempDir(), "f1e2d3c4-0000-4000-8000-000000000001.jsonl")
	if err := os.WriteFile(transcript, []byte(`{"who":"user","text":"hello"}`+"\n"+`{"who":"model","text":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := a.Decode([]byte(`{"event":"turn","session":"s1","transcript":"`+filepath.ToSlash(transcript)+`"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := ReadUpdate(a, p, nil, nil, Reading{})
	if err != nil || len(u.Messages) != 2 || u.Turn != 1 {
		t.Fatalf("the hook call's update: %d messages, turn %d, %v", len(u.Messages), u.Turn, err)
	}
	if m, ok := a.View(u.Messages[1]); !ok || m.Role != "assistant" || m.Parts[0].Text != "hi" {
		t.Errorf("the model's record reads as %+v", m)
	}

	// And import finds the session in the file.
	if name, err := CheckTranscript(a, transcript, snapshot.Limits{}); err != nil || name != "f1e2d3c4-0000-4000-8000-000000000001" {
		t.Errorf("import: session %q, %v", name, err)
	}
}
