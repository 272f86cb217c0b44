package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// A notify call names no rollout: it is found under Codex's home, which
// the caller gives (CODEX_HOME), never read from the environment here.
func TestCodexFindsRolloutInItsHome(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "04", "02")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(day, "rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Lookup("codex", Env{Getenv: func(k string) string { return map[string]string{"CODEX_HOME": home}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Decode(nil, []string{`{"type":"agent-turn-complete","thread-id":"019d2a10-0000-7000-8000-0000000000aa","cwd":"/w"}`})
	if err != nil || p.TranscriptPath != path {
		t.Errorf("decoded %+v, %v; want the rollout %s", p, err, path)
	}
}
