package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/session"
	"github.com/git-snap/git-snap/storage"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/snapshot"
)

// newStore makes an empty bare store in a temporary directory.
func newStore(t testing.TB) *gitstore.Store {
	t.Helper()
	paths, err := gitstore.InitBare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := gitstore.OpenPaths(context.Background(), paths, gitstore.Options{Counter: session.Counter{}, View: session.View})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// importSession imports a real transcript from testdata as session name.
func importSession(t testing.TB, s *gitstore.Store, agentName, file, name string) storage.Entry {
	t.Helper()
	a, err := agent.Lookup(agentName, agent.Env{})
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := capture.Ingest{Store: s, Adapter: a}.Import(context.Background(), name, filepath.Join("..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// saveDoc saves a JSON document as the next snapshot of session.
func saveDoc(t testing.TB, s *gitstore.Store, session, js string) storage.Entry {
	t.Helper()
	v, err := snapshot.Parse([]byte(js), snapshot.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Save(context.Background(), v.(map[string]any), storage.SaveOptions{Session: session})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// loadSession reads rev of s as a Session.
func loadSession(t testing.TB, s *gitstore.Store, rev string, o Options) *Session {
	t.Helper()
	sess, err := loadRev(context.Background(), s, rev, o)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// loadRev reads rev of s as the command line does: Show, then Load.
func loadRev(ctx context.Context, s Store, rev string, o Options) (*Session, error) {
	snap, err := gitsnap.ShowFrom(ctx, s, rev)
	if err != nil {
		return nil, err
	}
	return Load(ctx, s, snap, o)
}

// openRev is loadRev with Open.
func openRev(ctx context.Context, s Store, rev string, o Options) (*Session, error) {
	snap, err := gitsnap.ShowFrom(ctx, s, rev)
	if err != nil {
		return nil, err
	}
	return Open(ctx, s, snap, o)
}

// hostile is a transcript written to break out of the document around
// it: markup, scripts, event handlers, javascript: links, fences left
// open, headings, a huge line.
var hostile = `{"messages": [
  {"role": "user", "content": "<script>window.pwned = 1</script>\n# not a heading of the document\n` + "```" + `\nan open fence"},
  {"role": "assistant", "model": "<b>m</b>", "content": [
    {"type": "text", "text": "<img src=x onerror=\"window.pwned=2\">\n[click](javascript:window.pwned=3)\n<a href=\"javascript:window.pwned=4\">x</a>\n</details></details>\n<!-- a comment\nSetext\n---\n## Heading\n<iframe srcdoc=\"<script>window.pwned=5</script>\"></iframe>\n<svg onload=\"window.pwned=6\"></svg>\n<style>body{display:none}</style>\n> quoted\n> ---\n` + "````" + `"},
    {"type": "tool_use", "id": "c1", "name": "Bash\n\n<script>window.pwned=7</script>", "input": {"command": "` + "```" + `\n</details><script>window.pwned=8</script>\n` + "````" + `"}}
  ]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": true, "content": "` + "``" + `\n` + "```" + `\n<script>window.pwned=9</script>\n` + "```````" + `\n` + strings.Repeat("x<", 40000) + `"}]},
  {"role": "user", "content": "second prompt <img src=x onerror=window.pwned=10>"},
  {"role": "assistant", "content": [{"type": "text", "text": "` + "```" + `html\n<script>window.pwned=11</script>"}]}
]}`
