package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-snap/git-snap/snapshot"
)

func TestSessionName(t *testing.T) {
	for _, c := range []struct {
		agent, path, want string
	}{
		{"claude-code", "/p/-home-ana-demo/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "4d5611e5-241a-462a-8d15-5122611a9569"},
		{"claude-code", "/p/tool_heavy.jsonl", "tool_heavy"},
		{"claude-code", "/p/s/subagents/agent-a2898e3.jsonl", "agent-a2898e3"},
		{"codex", "/c/sessions/2026/04/02/rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl", "019d2a10-0000-7000-8000-0000000000aa"},
		{"codex", "/c/sessions/rollout-2025-06-01T10-00-00-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl", "5973b6c0-94b8-487b-a530-2aeb6098ae0e"},
		{"codex", "/c/notes.jsonl", "notes"},
	} {
		a, err := Lookup(c.agent, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.SessionName(c.path); got != c.want {
			t.Errorf("%s %s: session %q, want %q", c.agent, c.path, got, c.want)
		}
	}
}

func TestFindTranscripts(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"p/a.jsonl", "p/a/subagents/agent-1.jsonl", "p/a/subagents/deep/agent-2.jsonl",
		"p/b.jsonl", "p/notes.txt", "q/2026/04/02/rollout-x.jsonl", "single.jsonl",
	} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string // the files found, relative to dir; or the error
	}{
		{[]string{"p"}, "p/a.jsonl p/b.jsonl"},
		{[]string{"q", "single.jsonl"}, "q/2026/04/02/rollout-x.jsonl single.jsonl"},
		{[]string{"p/a/subagents/agent-1.jsonl"}, "p/a/subagents/agent-1.jsonl"}, // a file is taken as given
		{[]string{filepath.Join(dir, "single.jsonl")}, "single.jsonl"},
		{[]string{"p/notes.txt"}, "p/notes.txt"},
		{[]string{"missing"}, "error: cannot read missing"},
		{[]string{"p/a/subagents"}, "error: no .jsonl transcripts in p/a/subagents"},
	} {
		files, err := FindTranscripts(dir, c.args)
		var got []string
		for _, f := range files {
			rel, _ := filepath.Rel(dir, f)
			got = append(got, filepath.ToSlash(rel))
		}
		if err != nil {
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Errorf("%v: %v is not an ImportError", c.args, err)
			}
			got = []string{"error: " + err.Error()}
		}
		if s := strings.Join(got, " "); !strings.HasPrefix(s, c.want) {
			t.Errorf("%v: %s, want %s", c.args, s, c.want)
		}
	}
}

func TestCheckTranscript(t *testing.T) {
	claude := filepath.Join("..", "testdata", "claude-code", "tool_heavy.jsonl")
	codex := filepath.Join("..", "testdata", "codex", "rollout-2026-04-02T09-15-00-019d2a10-0000-7000-8000-0000000000aa.jsonl")
	dir := t.TempDir()
	bad := filepath.Join(dir, "a b.jsonl")
	if err := os.WriteFile(bad, []byte(`{"type":"user","uuid":"u-1","sessionId":"s/../x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(dir, "turn-2.jsonl")
	if err := os.WriteFile(renamed, []byte(`{"type":"user","uuid":"u-1","sessionId":"s-1"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		agent, path, want string // the session, or the error
	}{
		{"claude-code", claude, "d6e0bada-1959-4eec-a9d2-0bfade768d8f"}, // the sessionId its records carry, not its file's name
		{"claude-code", renamed, "s-1"},
		{"codex", codex, "019d2a10-0000-7000-8000-0000000000aa"},
		{"codex", claude, "error: " + claude + " is not a codex transcript: this is a Claude Code transcript; use --from claude-code"},
		{"claude-code", codex, "error: " + codex + " is not a claude-code transcript: this is a Codex CLI transcript; use --from codex"},
		{"claude-code", bad, "error: " + bad + ": its name does not make a session name"},
		{"claude-code", "missing.jsonl", "error: cannot read missing.jsonl"},
	} {
		a, err := Lookup(c.agent, Env{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := CheckTranscript(a, c.path, snapshot.Limits{})
		if err != nil {
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Errorf("%s %s: %v is not an ImportError", c.agent, c.path, err)
			}
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %s: %q, want %q", c.agent, c.path, got, c.want)
		}
	}
}
