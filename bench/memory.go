//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	gitsnap "github.com/git-snap/git-snap"
)

// The memory rows: peak resident memory (/usr/bin/time -v) of the
// commands that read a whole session, on the largest inputs within the
// limits (docs/design.md §7: any command ≤ 100 MB):
//
//   - big: a Claude Code session whose transcript is about 20 MB (tool
//     results of several KB, hook progress lines), in 17 snapshots: the
//     import of the whole file, then 16 hook-sized growths, so that every
//     revision big~16 … big is a 20 MB session;
//   - rec50k: a session of 50,000 records in rounds of four (prompt, a
//     Bash call, its result, an answer in Markdown), whose timeline is a
//     page of about 20 MB;
//   - rec200k: the same at 200,000 records, its timeline about 80 MB:
//     show, stats, export --format markdown and a running viewer's
//     sessions page and first timeline;
//   - a document of 50,000 messages, about 20 MB, saved into a fresh
//     repository, and again with a message more (savememory.go).
const (
	memBigBytes    = 20 << 20
	memRevisions   = 17
	memRecords     = 50000
	memBigSession  = "big"
	memRecSession  = "rec50k"
	memLongRecords = 200000
	memLongSession = "rec200k"
)

func (b *bench) memoryRows(ctx context.Context) ([]row, error) {
	dir := filepath.Join(b.work, "memory")
	if err := b.newRepo(dir); err != nil {
		return nil, err
	}
	logf("memory: a %d MB session in %d snapshots, and sessions of %d and %d records", memBigBytes>>20, memRevisions, memRecords, memLongRecords)
	if err := b.memoryRepo(ctx, dir); err != nil {
		return nil, err
	}
	syscall.Sync()
	var rows []row
	for _, c := range []struct{ what, session string }{
		{"show", memRecSession}, {"show", memBigSession},
		{"stats", memRecSession},
		{"export --format html", memRecSession}, {"export --format markdown", memRecSession},
		{"export --format html", memBigSession}, {"export --format markdown", memBigSession},
		{"show", memLongSession}, {"stats", memLongSession}, {"export --format markdown", memLongSession},
	} {
		args := append([]string{b.bin}, strings.Fields(c.what)...)
		args = append(args, c.session)
		if c.what == "show" {
			args = append(args, "--width", "0")
		}
		peak, d, err := b.peakRSS(dir, args...)
		if err != nil {
			return nil, err
		}
		rows = append(rows, memRow(fmt.Sprintf("peak memory: git snap %s %s", c.what, c.session), peak, fmt.Sprintf("/usr/bin/time -v; %.1f s", d.Seconds())))
	}
	view, err := b.viewerMemory(dir)
	if err != nil {
		return nil, err
	}
	long, err := b.viewerFirstPage(dir, memLongSession)
	if err != nil {
		return nil, err
	}
	save, err := b.saveMemoryRows()
	if err != nil {
		return nil, err
	}
	return append(append(append(rows, view...), long...), save...), nil
}

// viewerFirstPage runs git snap view under /usr/bin/time -v and reads
// its sessions page, then the timeline of one session: the peak is what
// a viewer opened on that session costs.
func (b *bench) viewerFirstPage(dir, session string) ([]row, error) {
	url, stop, err := b.startTimedView(dir)
	if err != nil {
		return nil, err
	}
	if _, err := getTimed(url + "/"); err != nil {
		_, _ = stop()
		return nil, err
	}
	page, err := getTimed(url + "/session/" + session)
	if err != nil {
		_, _ = stop()
		return nil, err
	}
	peak, err := stop()
	if err != nil {
		return nil, err
	}
	return []row{
		memRow(fmt.Sprintf("peak memory: git snap view, the sessions page and the timeline of %s", session), peak,
			fmt.Sprintf("/usr/bin/time -v of the server; a %.1f MB page, first byte %.0f ms, first turn %.0f ms, whole page %.1f s", float64(page.bytes)/1e6, ms(page.first), ms(page.turn), page.whole.Seconds())),
	}, nil
}

// memRow is a row of peak memory (memoryRow) with a note.
func memRow(what string, peak int64, note string) row {
	r := memoryRow(what, "", peak)
	r.note = note
	return r
}

// viewerMemory runs git snap view under /usr/bin/time -v and reads the
// sessions page, the 17 revisions of the big session's timeline one
// after another, then the 50k-record session's; the peak is the
// server's over all of them. The first render of each session's
// timeline is also timed: its first byte, its first turn and the whole
// page.
func (b *bench) viewerMemory(dir string) ([]row, error) {
	url, stop, err := b.startTimedView(dir)
	if err != nil {
		return nil, err
	}
	// The sessions page waits for every session's summary, which the
	// server reads as it starts: the timelines are then timed alone.
	if _, err := getTimed(url + "/"); err != nil {
		_, _ = stop()
		return nil, err
	}
	first, err := getTimed(url + "/session/" + memBigSession)
	if err != nil {
		_, _ = stop()
		return nil, err
	}
	start := time.Now()
	for r := 1; r < memRevisions; r++ {
		if _, err := getTimed(fmt.Sprintf("%s/session/%s~%d", url, memBigSession, r)); err != nil {
			_, _ = stop()
			return nil, err
		}
	}
	all := time.Since(start)
	rec, err := getTimed(url + "/session/" + memRecSession)
	if err != nil {
		_, _ = stop()
		return nil, err
	}
	peak, err := stop()
	if err != nil {
		return nil, err
	}
	return []row{
		memRow(fmt.Sprintf("peak memory: git snap view, timelines of %s~%d … %s and of %s, one after another", memBigSession, memRevisions-1, memBigSession, memRecSession), peak,
			fmt.Sprintf("/usr/bin/time -v of the server; %d revisions in %.1f s", memRevisions-1, all.Seconds())),
		{what: fmt.Sprintf("view: timeline of %s (%.1f MB page), first render: first byte %.0f ms, first turn %.0f ms, whole page", memBigSession, float64(first.bytes)/1e6, ms(first.first), ms(first.turn)), ours: first.whole},
		{what: fmt.Sprintf("view: timeline of %s (%.1f MB page), first render: first byte %.0f ms, first turn %.0f ms, whole page", memRecSession, float64(rec.bytes)/1e6, ms(rec.first), ms(rec.turn)), ours: rec.whole},
	}, nil
}

// pageTimes are when a page's first byte, its first turn and its end
// came.
type pageTimes struct {
	first, turn, whole time.Duration
	bytes              int64
}

// getTimed reads a whole page, noting when its first byte and its
// first turn (report's <section class="turn") arrived.
func getTimed(url string) (pageTimes, error) {
	var t pageTimes
	start := time.Now()
	resp, err := http.Get(url)
	if err != nil {
		return t, err
	}
	defer resp.Body.Close()
	marker := []byte(`<section class="turn"`)
	buf := make([]byte, 32<<10)
	var tail []byte
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 && t.first == 0 {
			t.first = time.Since(start)
		}
		if n > 0 && t.turn == 0 {
			tail = append(tail, buf[:n]...)
			if bytes.Contains(tail, marker) {
				t.turn = time.Since(start)
			}
			tail = tail[max(0, len(tail)-len(marker)):]
		}
		t.bytes += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return t, err
		}
	}
	t.whole = time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return t, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return t, nil
}

var maxRSS = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)

// peakRSS runs a command in dir under /usr/bin/time -v, its output
// thrown away, and returns its peak resident memory and wall time.
func (b *bench) peakRSS(dir string, args ...string) (int64, time.Duration, error) {
	cmd := exec.Command("/usr/bin/time", append([]string{"-v"}, args...)...)
	cmd.Dir, cmd.Env = dir, append(b.env, "GIT_SNAP_DIR=")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%v: %v\n%s", args, err, stderr.String())
	}
	d := time.Since(start)
	peak, err := rssOf(stderr.String())
	return peak, d, err
}

func rssOf(timeOutput string) (int64, error) {
	m := maxRSS.FindStringSubmatch(timeOutput)
	if m == nil {
		return 0, fmt.Errorf("/usr/bin/time -v printed no maximum resident set size:\n%s", timeOutput)
	}
	kb, err := strconv.ParseInt(m[1], 10, 64)
	return kb << 10, err
}

// startTimedView runs git snap view under /usr/bin/time -v; stop ends it
// and returns its peak resident memory.
func (b *bench) startTimedView(dir string) (string, func() (int64, error), error) {
	cmd := exec.Command("/usr/bin/time", "-v", b.bin, "view", "--port", "0")
	var stderr bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stderr = dir, b.env, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // see stop
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() (int64, error) {
		// time(1) ignores SIGINT while its command runs: the group is
		// sent it, the server stops, and time prints what it measured.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		_ = cmd.Wait()
		return rssOf(stderr.String())
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_, _ = stop()
		return "", nil, fmt.Errorf("git snap view printed no address: %v", err)
	}
	for _, f := range strings.Fields(line) {
		if strings.HasPrefix(f, "http://") {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return strings.TrimSuffix(f, "/"), stop, nil
		}
	}
	_, _ = stop()
	return "", nil, fmt.Errorf("git snap view printed %q, no address", line)
}

// memoryRepo records the two sessions of the memory rows in dir.
func (b *bench) memoryRepo(ctx context.Context, dir string) error {
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	in, err := claudeIngest(s)
	if err != nil {
		return err
	}
	big := filepath.Join(b.work, memBigSession+".jsonl")
	n, err := writeLines(big, false, func(i int) []byte {
		if i > 0 && i%4 == 0 && fileSize(big) >= memBigBytes {
			return nil
		}
		return bigSessionLine(memBigSession, i)
	})
	if err != nil {
		return err
	}
	if _, _, err := in.Import(ctx, memBigSession, big); err != nil {
		return fmt.Errorf("import %s: %w", big, err)
	}
	for r := 1; r < memRevisions; r++ { // a hook call's growth: one round
		if _, err := writeLines(big, true, func(i int) []byte {
			if i == 4 {
				return nil
			}
			return bigSessionLine(memBigSession, n+4*(r-1)+i)
		}); err != nil {
			return err
		}
		if _, _, err := in.Import(ctx, memBigSession, big); err != nil {
			return fmt.Errorf("import %s: %w", big, err)
		}
	}
	for _, r := range []struct {
		session string
		n       int
	}{{memRecSession, memRecords}, {memLongSession, memLongRecords}} {
		rec := filepath.Join(b.work, r.session+".jsonl")
		if _, err := writeLines(rec, false, func(i int) []byte {
			if i == r.n {
				return nil
			}
			return toolSessionLine(r.session, i)
		}); err != nil {
			return err
		}
		if _, _, err := in.Import(ctx, r.session, rec); err != nil {
			return fmt.Errorf("import %s: %w", rec, err)
		}
	}
	return nil
}

// writeLines writes line(0), line(1), … to path until one is nil, and
// returns how many it wrote.
func writeLines(path string, appendTo bool, line func(i int) []byte) (int, error) {
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendTo {
		flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o666)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	n := 0
	for ; ; n++ {
		if n%64 == 0 {
			_ = w.Flush() // for fileSize
		}
		l := line(n)
		if l == nil {
			break
		}
		_, _ = w.Write(append(l, '\n')) // a failed write is Flush's error
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return n, err
	}
	return n, f.Close()
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// bigSessionLine is record i of a Claude Code session with the metadata
// every record of a real one carries, in rounds of four: a prompt, an
// answer reading a file, the file's content (several KB, different in
// every round), and an answer in Markdown.
func bigSessionLine(session string, i int) []byte {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
	rec := map[string]any{"uuid": fmt.Sprintf("u%07d", i), "parentUuid": fmt.Sprintf("u%07d", i-1), "sessionId": session, "timestamp": at,
		"isSidechain": false, "userType": "external", "cwd": "/home/dev/projects/parser", "version": "2.1.39", "gitBranch": "fix-parser"}
	round := i / 4
	use := fmt.Sprintf("toolu_%07d", round)
	usage := map[string]any{"input_tokens": 10, "cache_read_input_tokens": 1000 + 10*i, "cache_creation_input_tokens": 200, "output_tokens": 40}
	path := fmt.Sprintf("/home/dev/projects/parser/internal/p%d/file%d.go", round%37, round)
	switch i % 4 {
	case 0:
		rec["type"], rec["message"] = "user", map[string]any{"role": "user", "content": fmt.Sprintf("round %d: the parser drops the last token of %s; find why and fix it", round, path)}
	case 1:
		rec["type"], rec["requestId"] = "assistant", fmt.Sprintf("req_%07d", i)
		rec["message"] = map[string]any{"id": fmt.Sprintf("msg_%07d", i), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage, "stop_reason": "tool_use",
			"content": []any{map[string]any{"type": "text", "text": "Let me read the file."},
				map[string]any{"type": "tool_use", "id": use, "name": "Read", "input": map[string]any{"file_path": path}}}}
	case 2:
		var src strings.Builder
		for l := 0; src.Len() < 6000; l++ {
			fmt.Fprintf(&src, "%4d\tfunc parse%d_%d(s string) []string { return strings.Fields(s)[:%d] } // <b>%d</b>\n", l+1, round, l, l%7, round*l)
		}
		rec["type"], rec["toolUseResult"] = "user", map[string]any{"type": "text", "file": map[string]any{"filePath": path, "numLines": 80}}
		rec["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": use, "content": src.String()}}}
	default:
		rec["type"], rec["requestId"] = "assistant", fmt.Sprintf("req_%07d", i)
		rec["message"] = map[string]any{"id": fmt.Sprintf("msg_%07d", i), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage, "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Round %d: **the parser** cut the slice one short.\n\n- fixed `parse%d()`\n- added a case\n\n```go\nreturn strings.Fields(s)\n```", round, round)}}}
	}
	out, _ := json.Marshal(rec)
	return out
}
