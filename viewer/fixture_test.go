package viewer

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/search"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/internal/demo"
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
	if f.srv, err = New(store, Options{Addr: f.addr, Poll: 100 * time.Millisecond, OpenSearchStore: openSearch,
		SearchDir: search.DefaultDir(store.Paths().CommonDir)}); err != nil {
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
