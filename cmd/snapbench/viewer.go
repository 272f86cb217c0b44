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
	"strings"
	"syscall"
	"time"

	"github.com/git-snap/git-snap/capture"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
)

// The viewer rows: whole HTTP requests to a running git snap view, each
// beside a git command reading the same data, alternately.
const (
	viewerSessions = 10000 // sessions on the sessions page
	timelineRecs   = 2000  // records of the timeline's session
)

func (b *bench) viewerRows(ctx context.Context) ([]row, error) {
	sessions, err := b.viewerSessionsRow(ctx)
	if err != nil {
		return nil, err
	}
	timeline, err := b.viewerTimelineRow(ctx)
	if err != nil {
		return nil, err
	}
	return []row{sessions, timeline}, nil
}

// viewerSessionsRow times the sessions page of viewerSessions sessions
// once the viewer has read their summaries (its first request waits for
// what is not read yet; that time is the row's note).
func (b *bench) viewerSessionsRow(ctx context.Context) (row, error) {
	dir := filepath.Join(b.work, "viewer-sessions")
	if err := b.newRepo(dir); err != nil {
		return row{}, err
	}
	s, err := gitstore.Open(ctx, dir, gitstore.Options{})
	if err != nil {
		return row{}, err
	}
	logf("viewer: %d sessions", viewerSessions)
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range viewerSessions {
		session := fmt.Sprintf("s%05d", i)
		if _, err := s.Save(ctx, conversation(session, 6), gitstore.SaveOptions{Session: session, Time: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			s.Close()
			return row{}, err
		}
	}
	s.Close()
	syscall.Sync()
	url, stop, err := b.startView(dir)
	if err != nil {
		return row{}, err
	}
	defer stop()
	first, _, err := get(url + "/")
	if err != nil {
		return row{}, err
	}
	forEachRef := []string{"git", "for-each-ref", "--format=%(refname) %(objectname) %(committerdate:iso) %(trailers:only)", "refs/snap/"}
	var ours, base []time.Duration
	for range b.cfg.runs {
		d, _, err := get(url + "/")
		if err != nil {
			return row{}, err
		}
		ours = append(ours, d)
		if d, err = b.timedIn(dir, forEachRef...); err != nil {
			return row{}, err
		}
		base = append(base, d)
	}
	return row{what: fmt.Sprintf("view: sessions page, %d sessions, whole HTTP request (baseline: git for-each-ref reading each tip's trailers; the first request after start, reading every summary, %.0f ms)", viewerSessions, ms(first)),
		ours: median(ours), plumbing: median(base), budget: 200 * time.Millisecond}, nil
}

// viewerTimelineRow times the first render of a session of
// timelineRecs records (prompts, answers, tool calls and results): each
// run reads another session of the same shape, so none is served from
// the viewer's cache. The baseline is git archive of the same tip,
// which reads every record's blob.
func (b *bench) viewerTimelineRow(ctx context.Context) (row, error) {
	dir := filepath.Join(b.work, "viewer-timeline")
	if err := b.newRepo(dir); err != nil {
		return row{}, err
	}
	logf("viewer: %d sessions of %d records", b.cfg.runs+1, timelineRecs)
	if err := b.importTimelines(ctx, dir, b.cfg.runs+1); err != nil {
		return row{}, err
	}
	syscall.Sync()
	url, stop, err := b.startView(dir)
	if err != nil {
		return row{}, err
	}
	defer stop()
	if _, _, err := get(url + "/session/tl-0"); err != nil { // the process's first page: templates parsed
		return row{}, err
	}
	var ours, firstByte, base []time.Duration
	for r := 1; r <= b.cfg.runs; r++ {
		d, fb, err := get(fmt.Sprintf("%s/session/tl-%d", url, r))
		if err != nil {
			return row{}, err
		}
		ours, firstByte = append(ours, d), append(firstByte, fb)
		if d, err = b.timedIn(dir, "git", "archive", "--format=tar", fmt.Sprintf("refs/snap/tl-%d", r)); err != nil {
			return row{}, err
		}
		base = append(base, d)
	}
	return row{what: fmt.Sprintf("view: session timeline, %d records, first render, whole HTTP request (baseline: git archive of its tip, every record read; first byte after %.0f ms)", timelineRecs, ms(median(firstByte))),
		ours: median(ours), plumbing: median(base), budget: 500 * time.Millisecond}, nil
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
	s, err := gitstore.Open(ctx, dir, gitstore.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	a, err := agent.Lookup("claude-code", agent.Env{})
	if err != nil {
		return err
	}
	in := capture.Ingest{Store: s, Adapter: a, MaxReadBytes: 1 << 30}
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
