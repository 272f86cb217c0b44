package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/demo"
	"github.com/git-snap/git-snap/storage"
)

// fixture is a repository holding real sessions from testdata (Claude
// Code and Codex transcripts, imported as git snap import --from does),
// the demo session (several snapshots, a captured file, a checkpoint)
// and a session fetched from another clone.
type fixture struct {
	dir      string
	store    *gitsnap.Repository
	sessions map[string]string // session → agent
	prompts  map[string]string // session → its first prompt, read from the transcript
	remote   string            // the fetched session's ref
}

// transcripts are the real sessions imported, by agent.
var transcripts = map[string][]string{
	"claude-code": {"../testdata/claude-code/short.jsonl", "../testdata/claude-code/tool_heavy.jsonl", "../testdata/claude-code/subagent.jsonl"},
	"codex":       {"../testdata/codex-real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"},
}

func openRepo(ctx context.Context, t *testing.T, dir string) *gitsnap.Repository {
	t.Helper()
	paths, err := gitstore.InitRepo(filepath.Join(dir, ".git"), dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gitsnap.OpenPaths(ctx, paths, gitsnap.Options{GitEnv: gitstore.GitEnv{CommitterName: "Ada", CommitterEmail: "ada@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	sharedOnce sync.Once
	shared     *fixture
	sharedRoot string
)

// TestMain removes the shared fixture after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.store.Close()
	}
	if sharedRoot != "" {
		os.RemoveAll(sharedRoot)
	}
	os.Exit(code)
}

// sharedFixture is one fixture for the tests that only read: importing
// the transcripts takes seconds.
func sharedFixture(t *testing.T) *fixture {
	t.Helper()
	sharedOnce.Do(func() {
		root, err := os.MkdirTemp("", "git-snap-mcp-")
		if err != nil {
			t.Fatal(err)
		}
		sharedRoot = root
		shared = buildFixture(t, root)
	})
	if shared == nil {
		t.Fatal("the shared fixture could not be built")
	}
	return shared
}

// newFixture is a fixture of the test's own, for a test that writes.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := buildFixture(t, t.TempDir())
	t.Cleanup(func() { f.store.Close() })
	return f
}

func buildFixture(t *testing.T, root string) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{dir: filepath.Join(root, "repo"), sessions: map[string]string{}, prompts: map[string]string{}}
	f.store = openRepo(ctx, t, f.dir)
	for name, files := range transcripts {
		a, err := agent.Lookup(name, agent.Env{})
		if err != nil {
			t.Fatal(err)
		}
		in := capture.Ingest{Store: f.store.Storage(), Adapter: a}
		for _, file := range files {
			session := a.SessionName(file)
			if _, _, err := in.Import(ctx, session, file); err != nil {
				t.Fatalf("import %s: %v", file, err)
			}
			f.sessions[session] = name
			if p := firstPrompt(t, name, file); p != "" {
				f.prompts[session] = p
			}
		}
	}
	saveDemo(ctx, t, f.store, "demo")
	f.sessions["demo"] = "demo"

	other := openRepo(ctx, t, filepath.Join(root, "teammate"))
	defer other.Close()
	saveDemo(ctx, t, other, "teammate-demo")
	if out, err := exec.Command("git", "-C", f.dir, "remote", "add", "teammate", filepath.Join(root, "teammate")).CombinedOutput(); err != nil {
		t.Fatalf("git remote add: %v: %s", err, out)
	}
	if err := f.store.Fetch(ctx, gitstore.RemoteOptions{Remote: "teammate"}); err != nil {
		t.Fatal(err)
	}
	f.remote = "refs/remotes/teammate/snap/teammate-demo"
	return f
}

// firstPrompt is the first prompt a person typed in a transcript, read
// from the file itself: a Claude Code user record whose content is a
// string, a Codex user_message event.
func firstPrompt(t *testing.T, agentName, file string) string {
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
			Payload struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"payload"`
		}
		if json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		switch {
		case agentName == "claude-code" && r.Type == "user":
			if s, ok := r.Message.Content.(string); ok && !strings.HasPrefix(s, "<") && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
			}
		case agentName == "codex" && r.Type == "event_msg" && r.Payload.Type == "user_message" && strings.TrimSpace(r.Payload.Message) != "":
			return strings.TrimSpace(strings.SplitN(strings.TrimSpace(r.Payload.Message), "\n", 2)[0])
		}
	}
	return ""
}

// saveDemo saves git snap demo's sample session, step by step, with its
// checkpoint.
func saveDemo(ctx context.Context, t *testing.T, store *gitsnap.Repository, session string) {
	t.Helper()
	steps, err := demo.Steps()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for i, st := range steps {
		e, err := store.Save(ctx, st.Doc, storage.SaveOptions{Session: session, Turn: st.Turn, Label: st.Label, Source: "demo", Time: at.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if st.Checkpoint != "" {
			if _, err := store.SetCheckpoint(ctx, st.Checkpoint, e.ID, "the bug is fixed", false); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// gitstoreSave are the options of a test's own save to session.
func gitstoreSave(session string) storage.SaveOptions {
	return storage.SaveOptions{Session: session, Source: "cli", Time: time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)}
}

// demoSteps are the demo's steps, for what tests expect of it.
func demoSteps(t *testing.T) []demo.Step {
	t.Helper()
	steps, err := demo.Steps()
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// client connects an SDK client to a server of f's store, in process.
func (f *fixture) client(t *testing.T, o Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	o.Repo = f.store
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// call calls a tool and returns its text and whether it is an error; a
// protocol error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", tool, c)
		}
		b.WriteString(tc.Text)
	}
	return b.String(), res.IsError
}

// ok calls a tool that must succeed.
func ok(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v: error %s", tool, args, text)
	}
	return text
}

// fails calls a tool that must answer with an error; it returns the
// message.
func fails(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := call(t, cs, tool, args)
	if !isErr {
		t.Fatalf("%s %v: no error; got %.300s", tool, args, text)
	}
	return text
}

// decode reads a JSON answer into v.
func decode(t *testing.T, text string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("answer is not JSON: %v\n%.500s", err, text)
	}
}

// refsOf lists every ref of the repository with its target, to see
// that nothing was written.
func refsOf(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(refname) %(objectname)").CombinedOutput()
	if err != nil {
		t.Fatalf("git for-each-ref: %v: %s", err, out)
	}
	return string(out)
}
