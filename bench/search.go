//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The search rows: a store of searchSessions sessions, each of
// searchSnapshots snapshots adding messagesPerSnapshot messages, written
// with git fast-import (one process, no git-snap call), then git snap
// search timed on it: the first search, which builds the index, warm
// searches of a rare string, a regular expression and a common word, and
// a search after a new session was saved.
const (
	searchSnapshots     = 10
	messagesPerSnapshot = 10
	needleEvery         = 50000 // one message in this many holds the rare string
)

// searchScale is the number of sessions: 10k (1M messages), 1k with
// -quick.
func (b *bench) searchScale() int {
	if b.cfg.quick {
		return 1000
	}
	return 10000
}

// searchStore, when set, is a directory where the search rows' store is
// written once and found again by later runs (its index removed first,
// so that the build is timed again): writing 1M messages takes minutes.
var searchStore = flag.String("search-store", "", "keep the search rows' store in `DIR` and reuse it when it is there")

func (b *bench) searchRows(ctx context.Context) ([]row, error) {
	sb := *b
	sb.repo = filepath.Join(b.work, "search-repo")
	sb.env = benchEnv()
	sessions := b.searchScale()
	msgs := sessions * searchSnapshots * messagesPerSnapshot
	if *searchStore != "" {
		sb.repo = filepath.Join(*searchStore, fmt.Sprint(sessions))
	}
	textBytes, err := sb.searchStoreOnce(ctx, sessions)
	if err != nil {
		return nil, err
	}
	phase := fmt.Sprintf("%dk messages, %dk sessions", msgs/1000, max(1, sessions/1000))
	if sessions < 1000 {
		phase = fmt.Sprintf("%dk messages, %d sessions", msgs/1000, sessions)
	}
	build, cpu, peak, err := sb.usage(sb.bin, "search", "-F", "zq-needle-1")
	if err != nil {
		return nil, err
	}
	indexBytes, packBytes := dirBytes(filepath.Join(sb.repo, ".git", "snap", "search")), dirBytes(filepath.Join(sb.repo, ".git", "objects"))
	rows := []row{
		{what: "search index build (first search)", phase: phase, ours: build, budget: 2 * time.Minute,
			note: fmt.Sprintf("CPU %.0f s; pack %.0f MiB", cpu.Seconds(), float64(packBytes)/(1<<20))},
		{what: "search index size", phase: phase, kind: kindSearchIndex, ratio: float64(indexBytes) / float64(textBytes),
			oursText: fmt.Sprintf("%.0f MiB = %.2f × the text (%.0f MiB)", float64(indexBytes)/(1<<20), float64(indexBytes)/float64(textBytes), float64(textBytes)/(1<<20))},
		memoryRow("peak memory of the index build", phase, peak),
	}
	warm, searchPeak, err := sb.warmSearchRows(phase)
	if err != nil {
		return nil, err
	}
	rows = append(rows, warm...)
	needle := append([]string{"grep", "-r", "-F", "zq-needle-7"}, sb.textDir())
	r, newPeak, err := sb.newSessionRow(phase, needle)
	if err != nil {
		return nil, err
	}
	return append(rows, r, memoryRow("peak memory of a search, the largest of the rows above", phase, max(searchPeak, newPeak))), nil
}

// memoryRow is a row of peak memory, bounded by the memory budget.
func memoryRow(what, phase string, peak int64) row {
	return row{what: what, phase: phase, kind: kindMemory, bytes: peak, oursText: fmt.Sprintf("%.1f MB", float64(peak)/1e6)}
}

// grepBaseline names the search rows' baseline.
const grepBaseline = "grep -r over the same messages, a file per session"

// warmSearchRows times warm searches paired with grep -r over the same
// text, and returns the largest peak memory among them.
func (b *bench) warmSearchRows(phase string) ([]row, int64, error) {
	needle := []string{"-F", "zq-needle-7"}
	queries := []struct {
		what string
		kind budgetKind
		args []string
	}{
		{"search, rare string, warm", kindSearchWarm, needle},
		{"search -i -E, regular expression, warm", kindSearchWarm, []string{"-i", "-E", `zq-NEEDLE-[0-9]+\b`}},
		{"search, common word, -m 100, warm (grep -m 100 stops at 100 lines of each file)", kindSearchCommon, []string{"-m", "100", vocab[0]}},
		{"search -l, rare string, warm", kindSearchWarm, []string{"-l", "-F", "zq-needle-7"}},
	}
	var rows []row
	var top int64
	for _, q := range queries {
		ours := append([]string{b.bin, "search"}, q.args...)
		base := append(append([]string{"grep", "-r"}, q.args...), b.textDir())
		var a, g cpuTimes
		p, err := b.pair(a.timer(b.repo, b.env, ours), g.timer(b.repo, b.env, base))
		if err != nil {
			return nil, 0, err
		}
		peak, err := b.peakMemory(nil, b.bin, ours[1:]...)
		if err != nil {
			return nil, 0, err
		}
		top = max(top, peak)
		rows = append(rows, p.fill(row{what: q.what, phase: phase, kind: q.kind, baseline: grepBaseline,
			note: fmt.Sprintf("git-snap %s; CPU %s, baseline's %s; peak memory %.1f MB", strings.Join(ours[1:], " "), a.cpuText(), g.cpuText(), float64(peak)/1e6)}))
	}
	return rows, top, nil
}

// cpuTimes gathers the CPU times of runs of a command. On a machine
// shared with other work, CPU time (user and system) is what the other
// work changes least.
type cpuTimes struct{ cpu []time.Duration }

// timer is a pair timer that runs args in dir and keeps its CPU time.
func (c *cpuTimes) timer(dir string, env, args []string) timer {
	return func(int) (time.Duration, error) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = dir, append(env, "GIT_SNAP_DIR=")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if err != nil {
			return 0, fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			c.cpu = append(c.cpu, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
		}
		return wall, nil
	}
}

func (c *cpuTimes) cpuText() string {
	if len(c.cpu) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f ms", float64(median(c.cpu).Microseconds())/1000)
}

// newSessionRow times the first search after a session was saved, which
// reads the new session and writes a segment, paired with base; the
// save before each is not timed. It returns the search's peak memory,
// taken on the first run.
func (b *bench) newSessionRow(phase string, base []string) (row, int64, error) {
	var inc, grep cpuTimes
	var peak int64
	args := []string{b.bin, "search", "-F", "zq-needle-7"}
	search := inc.timer(b.repo, b.env, args)
	ours := func(r int) (time.Duration, error) {
		session := fmt.Sprintf("inc-%d", r)
		doc, _ := json.Marshal(map[string]any{"messages": []any{searchMessage(rand.New(rand.NewPCG(uint64(r), 9)), session, 0)}})
		if _, err := b.timed(doc, b.bin, "save", "--session", session); err != nil {
			return 0, err
		}
		if r > 0 {
			return search(r)
		}
		d, cpu, p, err := b.usage(args[0], args[1:]...) // once under the rss wrapper, for the peak
		inc.cpu, peak = append(inc.cpu, cpu), p
		return d, err
	}
	p, err := b.pair(ours, grep.timer(b.repo, b.env, base))
	if err != nil {
		return row{}, 0, err
	}
	return p.fill(row{what: "search after a new session was saved", phase: phase, kind: kindSearchNew, baseline: grepBaseline,
		note: fmt.Sprintf("reads the new session, writes a segment; CPU %s, baseline's %s; peak memory %.1f MB", inc.cpuText(), grep.cpuText(), float64(peak)/1e6)}), peak, nil
}

// searchStoreOnce writes the store, or finds the one an earlier run
// left in sb.repo, and returns the bytes of message text it holds.
func (b *bench) searchStoreOnce(ctx context.Context, sessions int) (int64, error) {
	done := filepath.Join(b.repo, ".git", "snapbench-text-bytes")
	if data, err := os.ReadFile(done); err == nil {
		logf("search: reusing the store in %s", b.repo)
		// Sessions an earlier run saved are dropped, so that each run
		// starts from the same store.
		del := exec.Command("sh", "-c", "git for-each-ref --format='delete %(refname)' refs/snap/inc-* | git update-ref --stdin")
		del.Dir, del.Env = b.repo, b.env
		if out, err := del.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("drop the sessions of an earlier run: %v\n%s", err, out)
		}
		if err := os.RemoveAll(filepath.Join(b.repo, ".git", "snap", "search")); err != nil {
			return 0, err
		}
		return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	}
	for _, dir := range []string{b.repo, b.textDir()} {
		if err := os.RemoveAll(dir); err != nil {
			return 0, err
		}
	}
	logf("search: writing %d sessions, %d messages with git fast-import", sessions, sessions*searchSnapshots*messagesPerSnapshot)
	start := time.Now()
	textBytes, err := b.writeSearchStore(ctx, sessions)
	if err != nil {
		return 0, err
	}
	logf("search: store written in %s (%.0f MiB of message text)", time.Since(start).Round(time.Second), float64(textBytes)/(1<<20))
	return textBytes, os.WriteFile(done, []byte(strconv.FormatInt(textBytes, 10)), 0o666)
}

// usage runs a command under this program's rss wrapper and returns its
// wall time, CPU time (user and system, the command's own: the wrapper
// waits for it, so its usage counts in the wrapper's) and peak memory.
func (b *bench) usage(name string, args ...string) (wall, cpu time.Duration, peak int64, err error) {
	cmd := exec.Command(b.self, append([]string{"rss", name}, args...)...)
	cmd.Dir, cmd.Env = b.repo, b.env
	start := time.Now()
	out, err := cmd.Output()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("rss %s: %v", name, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	peak, err = strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	return wall, cpu, peak, err
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// writeSearchStore writes the sessions with one git fast-import and
// returns how many bytes of message text they hold. The same text is
// written beside the repository, a file per session (textDir), for the
// baseline's grep.
func (b *bench) writeSearchStore(ctx context.Context, sessions int) (int64, error) {
	if err := os.MkdirAll(b.repo, 0o777); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(b.textDir(), 0o777); err != nil {
		return 0, err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "gc.auto", "0"}, {"commit", "-q", "--allow-empty", "-m", "code"}} {
		if err := b.git(args...); err != nil {
			return 0, err
		}
	}
	cmd := exec.CommandContext(ctx, "git", "fast-import", "--quiet", "--done")
	cmd.Dir, cmd.Env = b.repo, b.env
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	text, werr := writeSessions(w, sessions, b.textDir())
	if werr == nil {
		werr = w.Flush()
	}
	in.Close()
	if err := cmd.Wait(); err != nil || werr != nil {
		return 0, fmt.Errorf("git fast-import: %v %v\n%s", err, werr, stderr.String())
	}
	return text, nil
}

// textDir holds the search store's message text as files, a session's
// messages in one, as a transcript folder holds them.
func (b *bench) textDir() string { return b.repo + "-text" }

// writeSessions writes the sessions' commits to w, a fast-import stream,
// and each session's messages to a file in textDir.
func writeSessions(w io.Writer, sessions int, textDir string) (int64, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	var text int64
	fmt.Fprintf(w, "blob\nmark :1\ndata %d\n%s\n", len("git-snap format 1\n"), "git-snap format 1\n")
	doc := "{\n  \"config\": {\n    \"model\": \"m\"\n  }\n}\n"
	fmt.Fprintf(w, "blob\nmark :2\ndata %d\n%s\n", len(doc), doc)
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).Unix()
	var all bytes.Buffer
	for s := range sessions {
		name := fmt.Sprintf("s-%05d", s)
		all.Reset()
		for snap := range searchSnapshots {
			when := base + int64(s)*600 + int64(snap)*30
			msg := fmt.Sprintf("PostToolUse Bash\n\nSnap-Session: %s\nSnap-Seq: %d\nSnap-Label: PostToolUse Bash\nSnap-Source: %s\nSnap-Messages: %d\nSnap-Events: 0\nSnap-Files: 0\n",
				name, snap+1, []string{"claude-code", "codex"}[s%2], (snap+1)*messagesPerSnapshot)
			fmt.Fprintf(w, "commit refs/snap/%s\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s", name, when, len(msg), msg)
			if snap == 0 { // later commits continue the branch fast-import has open
				fmt.Fprintf(w, "M 100644 :1 .git-snap\nM 100644 :2 snapshot.json\n")
			}
			for k := range messagesPerSnapshot {
				i := snap*messagesPerSnapshot + k
				m := searchMessage(rng, name, i)
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(m); err != nil {
					return 0, err
				}
				text += int64(buf.Len())
				all.Write(buf.Bytes())
				fmt.Fprintf(w, "M 100644 inline messages/%04d/%06d.json\ndata %d\n%s\n", i/128, i, buf.Len(), buf.Bytes())
			}
			fmt.Fprintln(w)
		}
		if err := os.WriteFile(filepath.Join(textDir, name+".json"), all.Bytes(), 0o666); err != nil {
			return 0, err
		}
	}
	_, err := fmt.Fprintln(w, "done")
	return text, err
}

// searchMessage is message i of a session: a prompt, an answer with a
// tool call, the tool's result, an answer; words drawn from a
// vocabulary with a long tail, and now and then a rare string.
func searchMessage(rng *rand.Rand, session string, i int) map[string]any {
	words := func(n int) string {
		var b strings.Builder
		for j := range n {
			if j > 0 {
				b.WriteByte(" \n"[boolInt(j%12 == 0)])
			}
			b.WriteString(vocab[zipf(rng)])
		}
		if rng.IntN(needleEvery/4) == 0 {
			fmt.Fprintf(&b, " zq-needle-%d", rng.IntN(10))
		}
		return b.String()
	}
	when := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
	call := fmt.Sprintf("call-%s-%d", session, i-i%4+1)
	switch i % 4 {
	case 0:
		return map[string]any{"role": "user", "time": when, "content": words(20 + rng.IntN(20))}
	case 1:
		return map[string]any{"role": "assistant", "time": when, "content": []any{
			map[string]any{"type": "text", "text": words(20 + rng.IntN(30))},
			map[string]any{"type": "tool_use", "id": call, "name": "Bash", "input": map[string]any{"command": "go test ./" + vocab[zipf(rng)] + "/..."}},
		}}
	case 2:
		return map[string]any{"role": "user", "time": when, "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": call, "content": words(40 + rng.IntN(80))},
		}}
	}
	return map[string]any{"role": "assistant", "time": when, "content": words(20 + rng.IntN(40))}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var vocab = vocabulary(20000)

// vocabulary makes n distinct pronounceable words, the first the most
// common.
func vocabulary(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	cons, vows := "bcdfghjklmnprstvwz", "aeiou"
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteByte(cons[rng.IntN(len(cons))])
			b.WriteByte(vows[rng.IntN(len(vows))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// zipf draws a word index, small ones far more often.
func zipf(rng *rand.Rand) int {
	// Inverse of a power law over the vocabulary: P(i) ∝ 1/(i+1).
	return min(len(vocab)-1, int(float64(len(vocab))*pow(rng.Float64(), 3)))
}

func pow(x float64, n int) float64 {
	r := 1.0
	for range n {
		r *= x
	}
	return r
}
