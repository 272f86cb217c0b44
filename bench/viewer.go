//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	gitsnap "github.com/git-snap/git-snap"
)

// The viewer rows: whole HTTP requests to git snap view, cold against
// cold (a fresh git snap view process's first request against a fresh
// git process reading the same data) and warm against warm (a request
// the running viewer answered before against a running git cat-file
// --batch reading the same objects), each pair alternately.
const (
	viewerSessions = 10000 // sessions on the sessions page
	timelineRecs   = 2000  // records of the timeline's session
)

func (b *bench) viewerRows(ctx context.Context) ([]row, error) {
	sessions, err := b.viewerSessionsRows(ctx)
	if err != nil {
		return nil, err
	}
	timeline, err := b.viewerTimelineRows(ctx)
	if err != nil {
		return nil, err
	}
	return append(sessions, timeline...), nil
}

// viewerSessionsRows times the sessions page of viewerSessions sessions,
// written by the hook path: a fresh viewer's first request against git
// for-each-ref reading each tip's trailers, and a running viewer's
// request against a running git cat-file --batch reading the same tips.
func (b *bench) viewerSessionsRows(ctx context.Context) ([]row, error) {
	dir := filepath.Join(b.work, "viewer-sessions")
	if err := b.newRepo(dir); err != nil {
		return nil, err
	}
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return nil, err
	}
	logf("viewer: %d sessions through the hook path", viewerSessions)
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	tips := make([]string, viewerSessions)
	for i := range viewerSessions {
		session := fmt.Sprintf("s%05d", i)
		tips[i] = "refs/snap/" + session
		t, err := newTranscript(s, dir, filepath.Join(b.work, "transcripts", "viewer", session+".jsonl"), session)
		if err == nil {
			lines := [][]byte{}
			for j := range 6 {
				lines = append(lines, claudeLine(session, j))
			}
			err = t.grow(ctx, at.Add(time.Duration(i)*time.Minute), lines...)
		}
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	s.Close()
	syscall.Sync()
	cold, err := b.pair(b.coldView(dir, "/"),
		b.command(dir, nil, "git", "for-each-ref", "--format=%(refname) %(objectname) %(committerdate:iso) %(trailers:only)", "refs/snap/"))
	if err != nil {
		return nil, err
	}
	warm, err := b.warmPair(dir, func(int) (string, []string, error) { return "/", tips, nil })
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("view: sessions page, %d sessions %s, whole HTTP request", viewerSessions, hookPath)
	return []row{
		cold.fill(row{what: what + ", cold: a fresh git snap view, its first request", baseline: "a fresh git for-each-ref reading each tip's trailers"}),
		warm.fill(row{what: what + ", warm: the running viewer, asked again", baseline: "a running git cat-file --batch reading the same tips"}),
	}, nil
}

// viewerTimelineRows times the timeline of a session of timelineRecs
// records (prompts, answers, tool calls and results), imported: a fresh
// viewer's first request against git archive of the session's tip (a
// fresh git reading every record), each run another session of the same
// shape; and the running viewer asked again for a timeline it rendered
// against a running git cat-file --batch reading every record's blob.
func (b *bench) viewerTimelineRows(ctx context.Context) ([]row, error) {
	dir := filepath.Join(b.work, "viewer-timeline")
	if err := b.newRepo(dir); err != nil {
		return nil, err
	}
	logf("viewer: %d sessions of %d records", b.cfg.runs, timelineRecs)
	if err := b.importTimelines(ctx, dir, b.cfg.runs); err != nil {
		return nil, err
	}
	syscall.Sync()
	cold, err := b.pair(func(r int) (time.Duration, error) { return b.coldView(dir, fmt.Sprintf("/session/tl-%d", r))(r) }, func(r int) (time.Duration, error) {
		return b.run(dir, nil, "git", "archive", "--format=tar", fmt.Sprintf("refs/snap/tl-%d", r))
	})
	if err != nil {
		return nil, err
	}
	warm, err := b.warmPair(dir, func(r int) (string, []string, error) {
		cmd := exec.Command("git", "ls-tree", "-r", "--format=%(objectname)", fmt.Sprintf("refs/snap/tl-%d", r))
		cmd.Dir, cmd.Env = dir, b.env
		out, err := cmd.Output()
		return fmt.Sprintf("/session/tl-%d", r), strings.Fields(string(out)), err
	})
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("view: session timeline, %d records, imported, whole HTTP request", timelineRecs)
	return []row{
		cold.fill(row{what: what + ", cold: a fresh git snap view, its first request", baseline: "a fresh git archive of the session's tip, every record read"}),
		warm.fill(row{what: what + ", warm: the running viewer, asked again", baseline: "a running git cat-file --batch reading every record's blob"}),
	}, nil
}

// coldView is a timer of a fresh git snap view in dir answering its
// first request, for page: from the process's start to the page's last
// byte. The viewer is stopped after, untimed.
func (b *bench) coldView(dir, page string) timer {
	return func(int) (time.Duration, error) {
		start := time.Now()
		url, stop, err := b.startView(dir)
		if err != nil {
			return 0, err
		}
		defer stop()
		if _, _, err := get(url + page); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}
}

// warmPair pairs a running viewer's answer to a page it answered before
// with a running git cat-file --batch reading objects (a page and its
// objects for run r, from what): both processes started and asked once
// before anything is timed.
func (b *bench) warmPair(dir string, what func(r int) (string, []string, error)) (pairing, error) {
	url, stop, err := b.startView(dir)
	if err != nil {
		return pairing{}, err
	}
	defer stop()
	cat, err := startCatFile(dir, b.env)
	if err != nil {
		return pairing{}, err
	}
	defer cat.stop()
	pages, objects := make([]string, b.cfg.runs), make([][]string, b.cfg.runs)
	for r := range b.cfg.runs {
		if pages[r], objects[r], err = what(r); err != nil {
			return pairing{}, err
		}
		if _, _, err := get(url + pages[r]); err != nil {
			return pairing{}, err
		}
		if _, err := cat.read(objects[r]); err != nil {
			return pairing{}, err
		}
	}
	return b.pair(func(r int) (time.Duration, error) {
		d, _, err := get(url + pages[r])
		return d, err
	}, func(r int) (time.Duration, error) { return cat.read(objects[r]) })
}

// catFile is a running git cat-file --batch.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startCatFile(dir string, env []string) (*catFile, error) {
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &catFile{cmd, in, bufio.NewReaderSize(out, 1<<16)}, nil
}

// read asks for the objects and reads every answer whole, and returns
// how long that took.
func (c *catFile) read(objects []string) (time.Duration, error) {
	start := time.Now()
	errc := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(c.in)
		for _, o := range objects {
			_, _ = w.WriteString(o + "\n") // a failed write is Flush's error
		}
		errc <- w.Flush()
	}()
	for _, o := range objects {
		header, err := c.out.ReadString('\n')
		if err != nil {
			return 0, fmt.Errorf("git cat-file --batch, %s: %v", o, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return 0, fmt.Errorf("git cat-file --batch, %s: %q", o, header)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return 0, fmt.Errorf("git cat-file --batch, %s: %q", o, header)
		}
		if _, err := c.out.Discard(size + 1); err != nil {
			return 0, err
		}
	}
	d := time.Since(start)
	return d, <-errc
}

func (c *catFile) stop() {
	c.in.Close()
	_ = c.cmd.Wait()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// newRepo makes an empty repository with one code commit.
func (b *bench) newRepo(dir string) error {
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return err
	}
	for _, args := range [][]string{{"config", "gc.auto", "0"}, {"commit", "-q", "--allow-empty", "-m", "code"}} {
		if err := b.gitIn(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// importTimelines imports n Claude Code transcripts of timelineRecs
// records, sessions tl-0 … tl-(n-1), each with text of its own.
func (b *bench) importTimelines(ctx context.Context, dir string, n int) error {
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	in, err := claudeIngest(s)
	if err != nil {
		return err
	}
	for i := range n {
		session := fmt.Sprintf("tl-%d", i)
		path := filepath.Join(b.work, session+".jsonl")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		for r := range timelineRecs {
			_, _ = w.Write(append(toolSessionLine(session, r), '\n')) // a failed write is Flush's error
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if _, _, err := in.Import(ctx, session, path); err != nil {
			return fmt.Errorf("import %s: %w", path, err)
		}
	}
	return nil
}

// toolSessionLine is record i of a Claude Code session that works in
// rounds of four: a prompt, an answer calling Bash, its result, and an
// answer in Markdown.
func toolSessionLine(session string, i int) []byte {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
	rec := map[string]any{"uuid": fmt.Sprintf("u%d", i), "sessionId": session, "timestamp": at}
	use := fmt.Sprintf("toolu_%d", i/4)
	usage := map[string]any{"input_tokens": 10, "cache_read_input_tokens": 1000 + 10*i, "output_tokens": 40}
	switch i % 4 {
	case 0:
		rec["type"], rec["message"] = "user", map[string]any{"role": "user", "content": fmt.Sprintf("%s, round %d: make the test for %s pass and explain the change", session, i/4, strings.Repeat("the parser ", 6))}
	case 1:
		rec["type"], rec["message"] = "assistant", map[string]any{"id": fmt.Sprintf("msg_%d", i), "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
			"content": []any{map[string]any{"type": "text", "text": "Let me run the tests first."},
				map[string]any{"type": "tool_use", "id": use, "name": "Bash", "input": map[string]any{"command": fmt.Sprintf("go test ./parser -run Test%d", i)}}}}
	case 2:
		rec["type"], rec["message"] = "user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": use,
			"content": fmt.Sprintf("--- FAIL: Test%d (0.00s)\n    parser_test.go:%d: got %q, want %q\nFAIL\n%s", i, i, "a", "b", strings.Repeat("ok  \tother/pkg\t0.01s\n", 8))}}}
	default:
		rec["type"], rec["message"] = "assistant", map[string]any{"id": fmt.Sprintf("msg_%d", i), "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("The test failed because **the parser** dropped the last token.\n\n- fixed `parse()` in round %d\n- added a case\n\n```go\nfunc parse(s string) []string { return strings.Fields(s) }\n```", i/4)}}}
	}
	out, _ := json.Marshal(rec)
	return out
}

// startView runs git snap view on a free port in dir and returns its
// URL and a function that stops it.
func (b *bench) startView(dir string) (string, func(), error) {
	cmd := exec.Command(b.bin, "view", "--port", "0")
	cmd.Dir, cmd.Env, cmd.Stderr = dir, b.env, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("git snap view printed no address: %v", err)
	}
	for _, f := range strings.Fields(line) {
		if strings.HasPrefix(f, "http://") {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return strings.TrimSuffix(f, "/"), stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("git snap view printed %q, no address", line)
}

// get times a whole GET, body read, and when its first byte came.
func get(url string) (time.Duration, time.Duration, error) {
	start := time.Now()
	resp, err := http.Get(url)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	first := time.Since(start)
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, 0, err
	}
	d := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return d, first, nil
}
