package report

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
)

// newStore makes an empty bare store in a temporary directory.
func newStore(t testing.TB) *gitstore.Store {
	t.Helper()
	paths, err := gitstore.InitBare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := gitstore.OpenPaths(context.Background(), paths, gitstore.Options{View: agent.ViewMessage})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// importSession imports a real transcript from testdata as session name.
func importSession(t testing.TB, s *gitstore.Store, agentName, file, name string) gitstore.Entry {
	t.Helper()
	a, err := agent.Lookup(agentName, agent.Env{})
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := agent.Ingest{Store: s, Adapter: a}.Import(context.Background(), name, filepath.Join("..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return e
}
