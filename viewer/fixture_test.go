package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/provenance"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/demo"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

// fixture is a repository built from the real transcripts in testdata,
// the demo session (several snapshots, a captured file, a checkpoint),
// the hostile transcript, and a session fetched from another clone;
// served by a viewer on 127.0.0.1.
type fixture struct {
	dir      string // the work tree
	gitDir   string
	url      string // http://127.0.0.1:PORT
	addr     string
	srv      *Server
	sessions map[string]string // session → agent, every one the repository holds
	remote   string            // the session only fetched
}

var (
	fixtureOnce sync.Once
	fixtureRoot string // the temporary folder the fixture is built in
	shared      *fixture
	fixtureErr  error
)

// TestMain removes the shared fixture after the tests: it outlives each
// of them, so no test's temporary folder can hold it.
func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureRoot != "" {
		os.RemoveAll(fixtureRoot)
	}
	os.Exit(code)
}

// testFixture builds the fixture once for the test binary: importing the
// long real transcript takes a few seconds.
func testFixture(t *testing.T) *fixture {
	t.Helper()
	fixtureOnce.Do(func() {
		if fixtureRoot, fixtureErr = os.MkdirTemp("", "git-snap-viewer-"); fixtureErr == nil {
			shared, fixtureErr = buildFixture(fixtureRoot)
		}
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return shared
}

// transcripts are the files imported, by agent: every real session in
// testdata and the hostile one.
var transcripts = map[string][]string{
	"claude-code": {"../testdata/claude-code/*.jsonl", "../testdata/hostile/*.jsonl"},
	"codex":       {"../testdata/codex-real/*.jsonl", "../testdata/codex/*.jsonl"},
}

func buildFixture(root string) (*fixture, error) {
	ctx := context.Background()
	f := &fixture{dir: filepath.Join(root, "repo"), sessions: map[string]string{}}
	f.gitDir = filepath.Join(f.dir, ".git")
	store, err := openRepo(ctx, f.dir)
	if err != nil {
		return nil, err
	}
	if err := f.importAll(ctx, store); err != nil {
		return nil, err
	}
	if err := saveDemo(ctx, store, "demo"); err != nil {
		return nil, err
	}
	f.sessions["demo"] = "demo"
	if err := f.fetchTeammate(ctx, store, filepath.Join(root, "teammate")); err != nil {
		return nil, err
	}
	if err := f.codeSession(ctx, store); err != nil {
		return nil, err
	}
	if err := f.realCodeSession(ctx, store, root); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f.addr = ln.Addr().String()
	f.url = "http://" + f.addr
	// Searches use a store of their own, as git snap view's do.
	openSearch := func(ctx context.Context) (storage.ReadCloser, error) {
		return gitstore.OpenPaths(ctx, store.Paths(), gitstore.Options{Counter: session.Counter{}, View: session.View, Identity: identity()})
	}
	// Blame reads through the library's front door, as git snap view's
	// does.
	blame := func(ctx context.Context, rev, path string) (*provenance.File, error) {
		repo, err := gitsnap.Open(ctx, f.dir, gitsnap.Options{})
		if err != nil {
			return nil, err
		}
		defer repo.Close()
		return repo.Blame(ctx, gitsnap.BlameOptions{Rev: rev, File: path})
	}
	if f.srv, err = New(store, Options{Addr: f.addr, Poll: 100 * time.Millisecond, OpenSearchStore: openSearch,
		SearchDir: search.DefaultDir(store.Paths().CommonDir), Blame: blame}); err != nil {
		return nil, err
	}
	go func() { _ = http.Serve(ln, f.srv) }()
	return f, nil
}

func openRepo(ctx context.Context, dir string) (*gitstore.Store, error) {
	paths, err := gitstore.InitRepo(filepath.Join(dir, ".git"), dir)
	if err != nil {
		return nil, err
	}
	return gitstore.OpenPaths(ctx, paths, gitstore.Options{Counter: session.Counter{}, View: session.View, Identity: identity()})
}

func (f *fixture) importAll(ctx context.Context, store *gitstore.Store) error {
	lim := snapshot.Limits{}
	for name, globs := range transcripts {
		a, err := agent.Lookup(name, agent.Env{})
		if err != nil {
			return err
		}
		in := capture.Ingest{Store: store, Adapter: a, Limits: lim}
		for _, g := range globs {
			files, _ := filepath.Glob(g)
			for _, file := range files {
				if _, err := agent.CheckTranscript(a, file, lim); err != nil {
					return err
				}
				session := a.SessionName(file) // short.jsonl is session short here

				if _, _, err := in.Import(ctx, session, file); err != nil {
					return fmt.Errorf("import %s: %w", file, err)
				}
				f.sessions[session] = name
			}
		}
	}
	return nil
}

// saveDemo saves git snap demo's sample session, step by step.
func saveDemo(ctx context.Context, store *gitstore.Store, session string) error {
	steps, err := demo.Steps()
	if err != nil {
		return err
	}
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for i, st := range steps {
		e, err := store.Save(ctx, st.Doc, storage.SaveOptions{Session: session, Turn: st.Turn, Label: st.Label, Source: "demo", Time: at.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			return err
		}
		if st.Checkpoint != "" {
			if _, err := store.SetCheckpoint(ctx, st.Checkpoint, e.ID, "the bug is fixed", false); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetchTeammate makes another clone with a session of its own and
// fetches it, with the git binary, as git snap fetch does.
func (f *fixture) fetchTeammate(ctx context.Context, store *gitstore.Store, dir string) error {
	other, err := openRepo(ctx, dir)
	if err != nil {
		return err
	}
	defer other.Close()
	if err := saveDemo(ctx, other, "teammate-demo"); err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, "git", "-C", f.dir, "remote", "add", "teammate", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("git remote add: %v: %s", err, out)
	}
	if err := store.Fetch(ctx, gitstore.RemoteOptions{Remote: "teammate"}); err != nil {
		return err
	}
	f.remote = "teammate-demo"
	return nil
}

func identity() gitstore.Signature {
	return gitstore.Signature{Name: "Ada", Email: "ada@example.com"}
}

// codeSession is a Claude Code session recorded through the hook path
// that writes login.go in two turns, with the file captured from the
// work tree, committed after each; then a person changes a line of it.
func (f *fixture) codeSession(ctx context.Context, store *gitstore.Store) error {
	a, err := agent.Lookup("claude-code", agent.Env{})
	if err != nil {
		return err
	}
	in := capture.Ingest{Store: store, Adapter: a, WorkTree: f.dir, MaxFileBytes: 1 << 20}
	transcript := filepath.Join(filepath.Dir(f.dir), "code.jsonl")
	file := filepath.Join(f.dir, "login.go")
	git := func(args ...string) error { return f.git(ctx, args...) }
	turns := []struct{ prompt, content string }{
		{"write the login", "package auth\n\n// Login checks a password.\nfunc Login(user, password string) error {\n\treturn check(user, password)\n}\n"},
		{"add a logout", "package auth\n\n// Login checks a password.\nfunc Login(user, password string) error {\n\treturn check(user, password)\n}\n\n// Logout forgets the user.\nfunc Logout(user string) {\n\tforget(user)\n}\n"},
	}
	var lines strings.Builder
	for i, turn := range turns {
		if err := os.WriteFile(file, []byte(turn.content), 0o644); err != nil {
			return err
		}
		lines.WriteString(codeTurn(i, file, turn.prompt, turn.content))
		if err := os.WriteFile(transcript, []byte(lines.String()), 0o644); err != nil {
			return err
		}
		if err := git("add", "login.go"); err != nil {
			return err
		}
		p := agent.Payload{Agent: "claude-code", Event: "PostToolUse", SessionID: "code", TranscriptPath: transcript, CWD: f.dir}
		if _, _, err := in.Run(ctx, p, storage.SaveOptions{Code: f.head(ctx)}); err != nil {
			return err
		}
		if err := git("commit", "-q", "-m", turn.prompt); err != nil {
			return err
		}
		if _, err := store.Mark(ctx, storage.SaveOptions{Session: "code", Label: "post-commit", Code: f.head(ctx)}); err != nil {
			return err
		}
	}
	if err := os.WriteFile(file, []byte(strings.Replace(turns[1].content, "forget(user)", "forget(user, true)", 1)), 0o644); err != nil {
		return err
	}
	f.sessions["code"] = "claude-code"
	return git("commit", "-q", "-am", "a person forgets harder")
}

// realCodeSession is the long real Claude Code session in testdata made
// again in the work tree through the hook path, as its agent worked
// (testdocs.Replay), as session spotter-dov: the files it edited are in
// the code, each line marked with the turn that wrote it.
func (f *fixture) realCodeSession(ctx context.Context, store *gitstore.Store, root string) error {
	a, err := agent.Lookup("claude-code", agent.Env{})
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "claude-code", testdocs.RealSession+".jsonl"))
	if err != nil {
		return err
	}
	r := testdocs.NewReplay(data, testdocs.RealProject)
	for path, content := range r.Start {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(f.dir, path)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(f.dir, path), []byte(content), 0o644); err != nil {
			return err
		}
	}
	commit := func(msg string) error {
		if err := f.git(ctx, "add", "-A", "--", "."); err != nil {
			return err
		}
		return f.git(ctx, "commit", "-q", "-m", msg)
	}
	if err := commit("the project before the session"); err != nil {
		return err
	}
	in := capture.Ingest{Store: store, Adapter: a, WorkTree: f.dir, MaxFileBytes: 1 << 20, Changed: capture.GitChanged(f.dir)}
	transcript := filepath.Join(root, "spotter-dov.jsonl")
	err = r.Run(f.dir, func(st testdocs.ReplayStep) error {
		if err := os.WriteFile(transcript, st.Transcript, 0o644); err != nil {
			return err
		}
		p := agent.Payload{Agent: "claude-code", Event: st.Event, SessionID: "spotter-dov", TranscriptPath: transcript, CWD: f.dir}
		_, _, err := in.Run(ctx, p, storage.SaveOptions{Code: f.head(ctx)})
		return err
	}, commit)
	if err != nil {
		return err
	}
	f.sessions["spotter-dov"] = "claude-code"
	file := filepath.Join(f.dir, "lib", "spotter_web", "live", "transcript_computers.ex")
	old, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	edited := strings.Replace(string(old), "depends_on([:messages, :session_cwd])", "depends_on([:session_cwd, :messages])", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		return err
	}
	return commit("a person reorders the inputs")
}

// git runs git in the work tree, as Ada.
func (f *fixture) git(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", f.dir, "-c", "user.name=Ada", "-c", "user.email=ada@example.com"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	return nil
}

// head is the work tree's commit, "" when it has none.
func (f *fixture) head(ctx context.Context) string {
	out, _ := exec.CommandContext(ctx, "git", "-C", f.dir, "rev-parse", "--verify", "--quiet", "HEAD").Output()
	return strings.TrimSpace(string(out))
}

// codeTurn is turn i of a Claude Code session: the prompt, a Write of
// file, its result.
func codeTurn(i int, file, prompt, content string) string {
	at := time.Date(2026, 3, 2, 11, i, 0, 0, time.UTC).Format(time.RFC3339)
	id := fmt.Sprintf("toolu_%d", i)
	recs := []map[string]any{
		{"type": "user", "message": map[string]any{"role": "user", "content": prompt}},
		{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Write", "input": map[string]any{"file_path": file, "content": content}}},
			"usage":   map[string]any{"input_tokens": 100, "output_tokens": 40}}},
		{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}},
	}
	var b strings.Builder
	for k, r := range recs {
		r["uuid"], r["sessionId"], r["timestamp"] = fmt.Sprintf("code-%d-%d", i, k), "code", at
		line, _ := json.Marshal(r)
		b.Write(append(line, '\n'))
	}
	return b.String()
}
