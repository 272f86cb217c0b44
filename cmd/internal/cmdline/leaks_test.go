package cmdline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-snap/git-snap/internal/testdocs"
)

// TestLeaksReachNoReader writes the files of secrets developers keep
// (testdocs.Leaks) through every writer (save and its message, save
// --append, import of a transcript and of an ATIF trajectory, a hook
// call with a captured file, record, a checkpoint's message and a
// rollback's) and reads them back through every reader (every object
// and file git-snap keeps, the search index among them; show, log,
// trace, search, sessions, every export format, pr, MCP and the
// viewer's pages): no piece of a secret comes out anywhere.
func TestLeaksReachNoReader(t *testing.T) {
	leaks, err := testdocs.Leaks()
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, l := range leaks {
		fmt.Fprintf(&all, "$ cat ~/%s\n%s\n", l.File, l.Text)
	}
	text := all.String()
	w := newLeakWorld(t)
	w.writeAll(text)
	check := func(what, out string) {
		t.Helper()
		if piece := testdocs.Leaked(out, leaks); piece != "" {
			t.Errorf("%s shows %s", what, piece)
		}
	}
	objects := w.git("cat-file", "--batch-all-objects", "--batch")
	if !strings.Contains(objects, "machine api.heroku.com") {
		t.Fatalf("the objects hold no .netrc: the writers wrote nothing?")
	}
	check("the objects", objects)
	_ = filepath.WalkDir(filepath.Join(w.dir, ".git"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			check(path, string(data))
		}
		return err
	})
	sessions := []string{"saved", "imported", "hooked", "recorded", "traced"}
	for _, s := range sessions {
		for _, args := range [][]string{
			{"show", s}, {"show", "--full", s}, {"show", "--tools", s}, {"show", "--json", s},
			{"log", "-p", s}, {"log", "--json", s}, {"trace", s}, {"trace", "--json", s}, {"replay", s},
			{"export", s}, {"export", "--format", "markdown", s}, {"export", "--format", "html", s},
			{"export", "--format", "atif", s}, {"export", "--format", "messages", s}, {"export", "--format", "otel", s},
		} {
			check(strings.Join(args, " "), w.run("", args...))
		}
	}
	for _, args := range [][]string{
		{"sessions"}, {"sessions", "--json"}, {"checkpoint", "--list"}, {"checkpoint", "--list", "--json"},
		{"pr", "base..HEAD"}, {"pr", "--json", "base..HEAD"},
		{"search", "-i", "-E", "password|key|token|auth|machine|:5432"},
		{"search", "--json", "-E", "REDACTED|BEGIN|data:"},
	} {
		check(strings.Join(args, " "), w.run("", args...))
	}
	check("mcp", w.run(mcpCalls(sessions), "mcp"))
	w.viewPages(check, sessions)
}

// leakWorld is a repository with a commit, base, and one on top, where
// every writer runs.
type leakWorld struct {
	t        *testing.T
	dir      string
	home     string
	getenv   func(string) string
	sequence int
}

func newLeakWorld(t *testing.T) *leakWorld {
	_, paths := openEmpty(t)
	w := &leakWorld{t: t, dir: paths.WorkTree, home: t.TempDir()}
	vars := map[string]string{"HOME": w.home, "GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1"}
	w.getenv = func(k string) string { return vars[k] }
	w.git("commit", "-q", "--allow-empty", "-m", "base")
	w.git("tag", "base")
	w.git("commit", "-q", "--allow-empty", "-m", "work")
	return w
}

func (w *leakWorld) git(args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "HOME="+w.home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// run runs git-snap in the repository and gives its output, stdout and
// stderr; it must succeed.
func (w *leakWorld) run(stdin string, args ...string) string {
	w.t.Helper()
	var out, errOut lockedBuffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, dir: w.dir, getenv: w.getenv}
	if code := e.run(context.Background(), args); code != 0 {
		w.t.Fatalf("git snap %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
	}
	return out.String() + errOut.String()
}

// file writes a file under the temporary HOME and gives its path.
func (w *leakWorld) file(name, content string) string {
	w.t.Helper()
	path := filepath.Join(w.home, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
	return path
}

// writeAll puts text through every writer.
func (w *leakWorld) writeAll(text string) {
	doc, _ := json.Marshal(map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": text}},
		"files":    map[string]any{"notes/secrets.txt": map[string]any{"content": text}},
	})
	w.run("", "save", "-s", "saved", "-l", text, "-m", text, w.file("doc.json", string(doc)))
	line, _ := json.Marshal(map[string]any{"role": "assistant", "content": text})
	w.run(string(line)+"\n", "save", "--append", "-s", "saved")
	w.run("", "checkpoint", "leaky", "saved", "-m", text)
	w.run("", "rollback", "--last", "-s", "saved", "-m", text)

	w.run("", "import", "--from", "claude-code", "-s", "imported", w.file("imported.jsonl", w.transcript("imported", text)))

	if err := os.WriteFile(filepath.Join(w.dir, "secrets.env"), []byte(text), 0o600); err != nil {
		w.t.Fatal(err)
	}
	transcript := w.file("hooked.jsonl", w.transcript("hooked", text))
	payload, _ := json.Marshal(map[string]any{"session_id": "hooked", "transcript_path": transcript, "cwd": w.dir,
		"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(w.dir, "secrets.env")}})
	w.run(string(payload), "hook", "claude-code")

	var events strings.Builder
	for i, ev := range []map[string]any{
		{"type": "start", "input": text},
		{"type": "post_model", "model": "m-1", "input_tokens": 10, "output_tokens": 5, "output": map[string]any{"text": text}},
		{"type": "post_tool", "tool": "cat", "ok": false, "error": text},
		{"type": "end"},
	} {
		ev["ts_ms"] = 1767225600000 + i*1000
		b, _ := json.Marshal(ev)
		events.Write(append(b, '\n'))
	}
	w.run(events.String(), "record", "-s", "recorded")

	traj, _ := json.Marshal(map[string]any{"schema_version": "ATIF-v1.4", "session_id": "traced",
		"agent": map[string]any{"name": "harness", "version": "1"},
		"steps": []any{
			map[string]any{"step_id": 1, "source": "user", "message": text},
			map[string]any{"step_id": 2, "source": "agent", "message": text, "tool_calls": []any{map[string]any{"tool_call_id": "c1", "function_name": "cat", "arguments": map[string]any{"path": text}}},
				"observation": map[string]any{"results": []any{map[string]any{"source_call_id": "c1", "content": text}}}},
		}})
	w.run("", "import", "--from", "atif", w.file("traced.json", string(traj)))
}

// transcript is a Claude Code transcript where text is typed, written
// by a tool and read back.
func (w *leakWorld) transcript(session, text string) string {
	var b strings.Builder
	at := func() string { w.sequence++; return fmt.Sprintf("2026-03-02T10:00:%02d.000Z", w.sequence) }
	for _, rec := range []map[string]any{
		{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": text}},
		{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": map[string]any{"id": "m1", "model": "claude-opus-4-6", "role": "assistant", "type": "message",
			"content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Write", "input": map[string]any{"file_path": filepath.Join(w.dir, "secrets.env"), "content": text}}},
			"usage":   map[string]any{"input_tokens": 10, "output_tokens": 5}}},
		{"type": "user", "uuid": "u2", "parentUuid": "a1", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": text}}}},
		{"type": "assistant", "uuid": "a2", "parentUuid": "u2", "message": map[string]any{"id": "m2", "model": "claude-opus-4-6", "role": "assistant", "type": "message",
			"content": []any{map[string]any{"type": "text", "text": text}}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}},
	} {
		rec["sessionId"], rec["cwd"], rec["timestamp"] = session, w.dir, at()
		line, _ := json.Marshal(rec)
		b.Write(append(line, '\n'))
	}
	return b.String()
}

// mcpCalls is an MCP session reading every session through each tool.
func mcpCalls(sessions []string) string {
	calls := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_checkpoints","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"password|key|token|auth|machine|5432","syntax":"extended","ignore_case":true}}}`,
	}
	for i, s := range sessions {
		calls = append(calls,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"show","arguments":{"rev":%q}}}`, 10+3*i, s),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_snapshots","arguments":{"rev":%q}}}`, 11+3*i, s),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"diff","arguments":{"from":"%s~1","to":%q}}}`, 12+3*i, s, s))
	}
	return strings.Join(calls, "\n") + "\n"
}

// viewPages serves the viewer and checks its pages: the sessions, each
// session's page, its snapshots' and the search page.
func (w *leakWorld) viewPages(check func(what, out string), sessions []string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	var errOut lockedBuffer
	e := &env{stdin: strings.NewReader(""), stdout: pw, stderr: &errOut, dir: w.dir, getenv: w.getenv}
	done := make(chan int, 1)
	go func() {
		done <- e.run(ctx, []string{"view", "--port", "0"})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	base := ""
	for sc.Scan() {
		if m := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(sc.Text()); m != "" {
			base = m
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if base == "" {
		w.t.Fatalf("view printed no address: %s", errOut.String())
	}
	get := func(path string) string {
		resp, err := http.Get(base + path)
		if err != nil {
			w.t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	pages := []string{"/", "/search?q=password", "/search?q=REDACTED", "/search?q=key"}
	for _, s := range sessions {
		pages = append(pages, "/session/"+s)
		for _, id := range strings.Fields(w.run("", "log", "--format=%H", s)) {
			pages = append(pages, "/session/"+s+"/"+id, "/snapshot/"+id)
		}
	}
	for _, p := range pages {
		check("the viewer's "+p, get(p))
	}
	cancel()
	<-done
}

// TestATIFImportRefusesWhatNoReaderTakes: a trajectory whose numbers
// would make a header no reader takes (a negative or absurd token
// count, in a step's metrics or in the records of one git-snap wrote),
// or whose count of records is negative or past what it holds, is
// refused with exit 2, naming the file, and nothing of any file given
// is written.
func TestATIFImportRefusesWhatNoReaderTakes(t *testing.T) {
	w := newLeakWorld(t)
	w.run("", "import", "--from", "claude-code", "-s", "orig", w.file("orig.jsonl", w.transcript("orig", "hello")))
	exported := w.run("", "export", "--format", "atif", "orig")
	good := w.file("good.json", `{"schema_version": "ATIF-v1.4", "session_id": "good", "agent": {"name": "x", "version": "1"}, "steps": [{"step_id": 1, "source": "user", "message": "hi"}]}`)
	before := w.git("for-each-ref")
	for _, c := range []struct{ name, data, says string }{
		{"negative metrics", `{"schema_version": "ATIF-v1.4", "session_id": "bad", "agent": {"name": "x", "version": "1"}, "steps": [{"step_id": 1, "source": "agent", "message": "m", "metrics": {"prompt_tokens": -5}}]}`, "metrics.prompt_tokens: -5 is not a count of tokens"},
		{"overflowing metrics", `{"schema_version": "ATIF-v1.4", "session_id": "bad", "agent": {"name": "x", "version": "1"}, "steps": [{"step_id": 1, "source": "agent", "message": "m", "metrics": {"completion_tokens": 9300000000000000000}}]}`, "metrics.completion_tokens"},
		{"a negative count of records", strings.Replace(exported, `"messages": 4`, `"messages": -5`, 1), "is not a count of records"},
		{"a count of records past the file", strings.Replace(exported, `"messages": 4`, `"messages": 1000000000000`, 1), "holds 4 of its 1000000000000 records"},
		{"negative tokens in the records", strings.ReplaceAll(exported, `"input_tokens": 10`, `"input_tokens": -5`), "out of what a snapshot may hold"},
		{"absurd tokens in a record", strings.Replace(exported, `"input_tokens": 10`, `"input_tokens": 5000000000000000`, 1), "out of what a snapshot may hold"},
	} {
		if c.data == exported {
			t.Fatalf("%s: the damage did not apply to:\n%s", c.name, exported)
		}
		bad := w.file("bad.json", c.data)
		var out, errOut lockedBuffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: w.dir, getenv: w.getenv}
		code := e.run(context.Background(), []string{"import", "--from", "atif", good, bad})
		if code != 2 || !strings.Contains(errOut.String(), "bad.json") || !strings.Contains(errOut.String(), c.says) {
			t.Errorf("%s: exit %d, said %q; want 2 and %q", c.name, code, errOut.String(), c.says)
		}
		if after := w.git("for-each-ref"); after != before {
			t.Errorf("%s: refs written:\n%s", c.name, after)
		}
	}
}
