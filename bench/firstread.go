//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/storage"
)

// firstReadRows time what a hook call leaves for the next reader. A
// session of 50k records (10k with -quick) is recorded through the
// hook's own path (capture.Ingest, as git snap hook runs it) from the
// longest real Claude Code transcript, copied over and over with its ids
// made new; one of 100 records beside it, the same way. The hook call
// (two real records more) is paired with the same call on the
// 100-record session; then stats, sessions and usage --daily, each the
// first run after one more hook call, are paired with the same command
// run again (warm); and a running viewer's sessions page after a hook
// call, paired with the same page again.
func (b *bench) firstReadRows(ctx context.Context) ([]row, error) {
	long, err := testdocs.Longest()
	if err != nil {
		return nil, err
	}
	n := map[bool]int{true: 10000, false: 50000}[b.cfg.quick]
	big, err := b.realHookSession(ctx, "first-big", "f1e57b16-0000-4000-8000-000000000001", long.Lines, n)
	if err != nil {
		return nil, err
	}
	small, err := b.realHookSession(ctx, "first-small", "f1e57b16-0000-4000-8000-000000000002", long.Lines, 100)
	if err != nil {
		return nil, err
	}
	reads := []struct {
		kind budgetKind
		what string
		args []string
	}{
		{kindFirstStats, "stats", []string{"stats"}},
		{kindFirstSessions, "sessions", []string{"sessions"}},
		{kindFirstUsage, "usage --daily", []string{"usage", "--daily"}},
	}
	p, err := b.pair(
		func(int) (time.Duration, error) { return big.hook(b) },
		func(int) (time.Duration, error) { return small.hook(b) })
	if err != nil {
		return nil, err
	}
	rows := []row{p.fill(row{what: fmt.Sprintf("hook call on a %d-record session recorded by the hook, grown by 2 real records", n), kind: kindHookLong,
		baseline: "the same on a 100-record session"})}
	for _, rd := range reads {
		cmd := append([]string{b.bin}, rd.args...)
		p, err := b.pair(
			func(int) (time.Duration, error) {
				if _, err := big.hook(b); err != nil { // untimed: what the first run comes after
					return 0, err
				}
				return b.run(big.dir, nil, cmd...)
			},
			b.command(big.dir, nil, cmd...))
		if err != nil {
			return nil, err
		}
		rows = append(rows, p.fill(row{what: fmt.Sprintf("first %s after a hook call on the %d-record session", rd.what, n), kind: rd.kind}))
	}
	page, err := b.firstPage(big)
	if err != nil {
		return nil, err
	}
	rows = append(rows, page.fill(row{what: fmt.Sprintf("a running viewer's first sessions page after a hook call on the %d-record session", n), kind: kindFirstPage}))
	for _, s := range []*realSession{big, small} {
		if err := hookFailed(s.dir); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// firstPage pairs a running git snap view's sessions page, asked after
// a hook call moved the session, with the same page asked after a hook
// call that found nothing new. Asked back to back, the warm page ran
// with the caches of the CPU still its own: after any process at all,
// one that moved no ref, it measured 1.23× that.
func (b *bench) firstPage(s *realSession) (pairing, error) {
	url, stop, err := b.startView(s.dir)
	if err != nil {
		return pairing{}, err
	}
	defer stop()
	if _, _, err := get(url + "/"); err != nil {
		return pairing{}, err
	}
	return b.pair(
		func(int) (time.Duration, error) {
			if _, err := s.hook(b); err != nil { // untimed: what the page comes after
				return 0, err
			}
			d, _, err := get(url + "/")
			return d, err
		},
		func(int) (time.Duration, error) {
			if _, err := s.hookAgain(b); err != nil { // untimed: the same process, no ref moved
				return 0, err
			}
			d, _, err := get(url + "/")
			return d, err
		})
}

// realSession is a session recorded through the hook's path from real
// records, and what its next hook call needs.
type realSession struct {
	dir, path string
	payload   []byte
	lines     [][]byte // the transcript's records to come, in order
	next      int
}

// realHookSession records n records of lines, copied over as often as
// needed (each copy's uuids, message and tool ids made its own), into a
// new repository's session id, in steps of at most 5,000 records, each
// one hook call's worth (capture.Ingest, git snap hook's own path).
func (b *bench) realHookSession(ctx context.Context, name, id string, lines [][]byte, n int) (*realSession, error) {
	dir := filepath.Join(b.work, name)
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return nil, err
	}
	for _, args := range [][]string{{"config", "gc.auto", "0"}, {"commit", "-q", "--allow-empty", "-m", "code"}} {
		if err := b.gitIn(dir, args...); err != nil {
			return nil, err
		}
	}
	rs := &realSession{dir: dir, path: filepath.Join(b.work, id+".jsonl")}
	for c := 0; len(rs.lines) < n+16*b.cfg.runs+2; c++ { // and two more for each hook call
		for _, l := range lines {
			rs.lines = append(rs.lines, copyRecord(l, c))
		}
	}
	rs.payload, _ = json.Marshal(map[string]any{"session_id": id, "transcript_path": rs.path, "cwd": dir, "hook_event_name": "PostToolUse", "tool_name": "Read"})
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	in, err := claudeIngest(s)
	if err != nil {
		return nil, err
	}
	p := agent.Payload{Agent: "claude-code", Event: "PostToolUse", Tool: "Read", SessionID: id, TranscriptPath: rs.path, CWD: dir}
	logf("%s: a session of %d real records, recorded by the hook's path", name, n)
	for rs.next < n {
		if err := rs.grow(min(5000, n-rs.next)); err != nil {
			return nil, err
		}
		if _, _, err := in.Run(ctx, p, storage.SaveOptions{}); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// grow appends the next k records to the transcript.
func (rs *realSession) grow(k int) error {
	f, err := os.OpenFile(rs.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, l := range rs.lines[rs.next : rs.next+k] {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	rs.next += k
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// hookAgain times git snap hook on the transcript as it is: the call
// finds nothing new and moves no ref.
func (rs *realSession) hookAgain(b *bench) (time.Duration, error) {
	return b.run(rs.dir, rs.payload, b.hookArgs("claude-code")...)
}

// hook grows the transcript by two records and times git snap hook on it.
func (rs *realSession) hook(b *bench) (time.Duration, error) {
	if err := rs.grow(2); err != nil {
		return 0, err
	}
	return b.run(rs.dir, rs.payload, b.hookArgs("claude-code")...)
}

// copyRecord is a Claude Code record made copy c's own: its uuids and
// its message and tool call ids get c in them, so that no two copies
// share a model call or a tool call.
func copyRecord(line []byte, c int) []byte {
	if c == 0 {
		return line
	}
	tag := fmt.Sprintf("c%d", c)
	for _, p := range [][2]string{
		{`"uuid":"`, `"uuid":"` + tag + `-`}, {`"parentUuid":"`, `"parentUuid":"` + tag + `-`},
		{`"id":"msg_`, `"id":"msg_` + tag + `_`}, {`"id":"toolu_`, `"id":"toolu_` + tag + `_`},
		{`"tool_use_id":"toolu_`, `"tool_use_id":"toolu_` + tag + `_`}, {`"requestId":"req_`, `"requestId":"req_` + tag + `_`},
	} {
		line = bytes.ReplaceAll(line, []byte(p[0]), []byte(p[1]))
	}
	return line
}
