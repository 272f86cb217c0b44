package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/capture"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/gitstore"
)

// startupRows times the hook program's --version, what every hook call
// pays before its work, against an empty Go program built the same way
// (CGO_ENABLED=0), and git-snap --version and git --version for scale,
// each paired with the empty program.
func (b *bench) startupRows(context.Context) ([]row, error) {
	dir := filepath.Join(b.work, "empty")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	files := map[string]string{"go.mod": "module empty\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			return nil, err
		}
	}
	empty := filepath.Join(dir, "empty")
	build := exec.Command("go", "build", "-o", empty, ".")
	build.Dir, build.Env = dir, append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the empty program: %v\n%s", err, out)
	}
	hook := b.hookArgs("")[:1]
	hookV, hookBase, err := b.paired(b.work, append(hook, "--version"), []string{empty})
	if err != nil {
		return nil, err
	}
	ours, base, err := b.paired(b.work, []string{b.bin, "--version"}, []string{empty})
	if err != nil {
		return nil, err
	}
	_, gitV, err := b.paired(b.work, []string{empty}, []string{"git", "--version"})
	if err != nil {
		return nil, err
	}
	size := int64(0)
	if fi, err := os.Stat(b.bin); err == nil {
		size = fi.Size()
	}
	hookSize := int64(0)
	if fi, err := os.Stat(hook[0]); err == nil {
		hookSize = fi.Size()
	}
	return []row{
		{what: fmt.Sprintf("start-up: %s --version (%.1f MB binary), what each hook call pays, against an empty Go program", filepath.Base(hook[0]), float64(hookSize)/1e6), ours: hookV, plumbing: hookBase, ratioBudget: 2, note: "baseline: the empty program"},
		{what: fmt.Sprintf("start-up: git-snap --version (%.1f MB binary) against an empty Go program", float64(size)/1e6), ours: ours, plumbing: base, note: "for scale: the hooks install writes run git-snap-hook"},
		{what: "start-up: git --version against an empty Go program", ours: gitV, plumbing: base, note: "for scale"},
	}, nil
}

// claudeLine is the i-th record of a synthetic Claude Code transcript:
// prompts and answers of about 300 bytes, with times.
func claudeLine(session string, i int) []byte {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
	rec := map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", i), "sessionId": session, "timestamp": at,
		"message": map[string]any{"role": "user", "content": fmt.Sprintf("prompt %d: %s", i, strings.Repeat("lorem ipsum ", 12))}}
	if i%2 == 1 {
		rec["type"] = "assistant"
		rec["message"] = map[string]any{"id": fmt.Sprintf("msg_%d", i), "role": "assistant", "model": "claude-sonnet-4",
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("answer %d: %s", i, strings.Repeat("dolor sit amet ", 10))}},
			"usage":   map[string]any{"input_tokens": 10, "output_tokens": 40}}
	}
	out, _ := json.Marshal(rec)
	return out
}

// hookSession makes a repository in dir (with the files given) and a
// session of n records recorded through capture.Ingest, the hook's own
// path, and returns the transcript's path and the hook's payload.
func (b *bench) hookSession(ctx context.Context, dir, session string, n int, files func(string) error) (string, []byte, error) {
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return "", nil, err
	}
	if files != nil {
		if err := files(dir); err != nil {
			return "", nil, err
		}
	}
	for _, args := range [][]string{{"config", "gc.auto", "0"}, {"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "code"}} {
		if err := b.gitIn(dir, args...); err != nil {
			return "", nil, err
		}
	}
	path := filepath.Join(b.work, session+".jsonl")
	var t bytes.Buffer
	for i := range n {
		t.Write(claudeLine(session, i))
		t.WriteByte('\n')
	}
	if err := os.WriteFile(path, t.Bytes(), 0o666); err != nil {
		return "", nil, err
	}
	payload, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": path, "cwd": dir, "hook_event_name": "PostToolUse", "tool_name": "Bash"})
	s, err := gitstore.Open(ctx, dir, gitstore.Options{})
	if err != nil {
		return "", nil, err
	}
	defer s.Close()
	a, _ := agent.Lookup("claude-code", agent.Env{})
	in := capture.Ingest{Store: s, Adapter: a, MaxReadBytes: 1 << 30}
	p := agent.Payload{Agent: "claude-code", Event: "PostToolUse", SessionID: session, TranscriptPath: path, CWD: dir}
	for {
		_, added, err := in.Run(ctx, p, gitstore.SaveOptions{})
		if err != nil || !added {
			return path, payload, err
		}
	}
}

// growingHooks times the hook on a session, its transcript grown by two
// records before each call.
func (b *bench) growingHooks(dir, path string, payload []byte, from int, session string) ([]time.Duration, error) {
	var out []time.Duration
	for r := range b.cfg.runs {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		lines := append(append(claudeLine(session, from+2*r), '\n'), append(claudeLine(session, from+2*r+1), '\n')...)
		_, err = f.Write(lines)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		hook := b.hookArgs("claude-code")
		cmd := exec.Command(hook[0], hook[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, b.env, bytes.NewReader(payload)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("hook: %v %s", err, out)
		}
		out = append(out, time.Since(start))
	}
	if err := hookFailed(dir); err != nil {
		return nil, err
	}
	return out, nil
}

// worktreeRows times a hook call after a shell tool (which scans the
// work tree) in work trees of 20k and 2k tracked files against the same
// call in an empty one.
func (b *bench) worktreeRows(ctx context.Context) ([]row, error) {
	var base, baseStatus time.Duration
	var rows []row
	for _, n := range []int{0, 2000, 20000} {
		dir := filepath.Join(b.work, fmt.Sprintf("tree-%d", n))
		session := fmt.Sprintf("tree%d", n)
		logf("a work tree of %d tracked files", n)
		path, payload, err := b.hookSession(ctx, dir, session, 50, func(dir string) error { return trackedFiles(dir, n) })
		if err != nil {
			return nil, err
		}
		ds, err := b.growingHooks(dir, path, payload, 50, session)
		if err != nil {
			return nil, err
		}
		st, err := b.statusTimes(dir)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			base, baseStatus = median(ds), median(st)
			continue
		}
		rows = append(rows,
			row{what: fmt.Sprintf("hook call after Bash, %d tracked files", n), ours: median(ds), plumbing: base, ratioBudget: 1.3, note: "baseline: the same call in an empty work tree"},
			row{what: fmt.Sprintf("git status alone, %d tracked files: the one scan the hook call makes", n), ours: median(st), plumbing: baseStatus, note: "baseline: the same git status in the empty work tree"})
	}
	return rows, nil
}

// statusTimes times the git status a hook call runs to scan the work tree
// (codestate.Read), alone: what the work tree's size costs git itself.
func (b *bench) statusTimes(dir string) ([]time.Duration, error) {
	var out []time.Duration
	for range b.cfg.runs {
		cmd := exec.Command("git", "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-renames", "--untracked-files=all")
		cmd.Dir, cmd.Env = dir, b.env
		start := time.Now()
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git status in %s: %v %s", dir, err, msg)
		}
		out = append(out, time.Since(start))
	}
	return out, nil
}

// trackedFiles writes n small files in directories of 100.
func trackedFiles(dir string, n int) error {
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
				return err
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package d\n\nconst F%d = %d\n", i, i)), 0o666); err != nil {
			return err
		}
	}
	return nil
}

// longSessionRows times a hook call and save --append on a session of
// 50k messages (10k with -quick) against the same on one of 100.
func (b *bench) longSessionRows(ctx context.Context) ([]row, error) {
	n := map[bool]int{true: 10000, false: 50000}[b.cfg.quick]
	var rows []row
	var base, baseAppend time.Duration
	for _, size := range []int{100, n} {
		dir := filepath.Join(b.work, fmt.Sprintf("long-%d", size))
		session := fmt.Sprintf("long%d", size)
		logf("a session of %d messages", size)
		path, payload, err := b.hookSession(ctx, dir, session, size, nil)
		if err != nil {
			return nil, err
		}
		ds, err := b.growingHooks(dir, path, payload, size, session)
		if err != nil {
			return nil, err
		}
		var appends []time.Duration
		for r := range b.cfg.runs {
			d, err := b.timedStdin(dir, append(claudeLine(session, 10*size+r), '\n'), b.bin, "save", "--session", "append"+session, "--append", "--no-code")
			if err != nil {
				return nil, err
			}
			if r == 0 { // the first makes the session; fill it to size once
				if err := b.fillAppend(dir, "append"+session, size); err != nil {
					return nil, err
				}
				continue
			}
			appends = append(appends, d)
		}
		if size == 100 {
			base, baseAppend = median(ds), median(appends)
			continue
		}
		rows = append(rows,
			row{what: fmt.Sprintf("hook call on a %d-message session, grown by 2", size), ours: median(ds), plumbing: base, budget: 40 * time.Millisecond, note: "baseline: the same on 100 messages"},
			row{what: fmt.Sprintf("save --append of 1 message to a %d-message session", size), ours: median(appends), plumbing: baseAppend, note: "baseline: the same on 100 messages"})
	}
	return rows, nil
}

// fillAppend grows a session to n messages with one save --append.
func (b *bench) fillAppend(dir, session string, n int) error {
	var in bytes.Buffer
	for i := range n {
		in.Write(claudeLine(session, i))
		in.WriteByte('\n')
	}
	_, err := b.timedStdin(dir, in.Bytes(), b.bin, "save", "--session", session, "--append", "--no-code")
	return err
}

// timedStdin times a command in dir fed stdin.
func (b *bench) timedStdin(dir string, stdin []byte, args ...string) (time.Duration, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, b.env, bytes.NewReader(stdin)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %v\n%s", args, err, out)
	}
	return time.Since(start), nil
}
