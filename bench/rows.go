//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gitsnap "github.com/git-snap/git-snap"
)

// startupRows times git-snap --version, what every command pays before
// its work, the hook program's --version, what every hook call pays, and
// git --version, each paired with an empty Go program built the same way
// (CGO_ENABLED=0), and reads the slowest package init of the hook
// program's --version.
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
	hook := b.hookArgs("")[0]
	hookV, err := b.pair(b.command(b.work, nil, hook, "--version"), b.command(b.work, nil, empty))
	if err != nil {
		return nil, err
	}
	ours, err := b.pair(b.command(b.work, nil, b.bin, "--version"), b.command(b.work, nil, empty))
	if err != nil {
		return nil, err
	}
	gitV, err := b.pair(b.command(b.work, nil, "git", "--version"), b.command(b.work, nil, empty))
	if err != nil {
		return nil, err
	}
	slowest, pkg, err := b.slowestInit(hook)
	if err != nil {
		return nil, err
	}
	size := int64(0)
	if fi, err := os.Stat(b.bin); err == nil {
		size = fi.Size()
	}
	hookSize := int64(0)
	if fi, err := os.Stat(hook); err == nil {
		hookSize = fi.Size()
	}
	return []row{
		ours.fill(row{what: fmt.Sprintf("start-up: git-snap --version (%.1f MB binary), what each command pays", float64(size)/1e6), kind: kindStartup,
			baseline: "an empty Go program built the same way"}),
		hookV.fill(row{what: fmt.Sprintf("start-up: %s --version (%.1f MB binary), what each hook call pays", filepath.Base(hook), float64(hookSize)/1e6), kind: kindStartupHook}),
		{what: "start-up: the slowest package init of " + filepath.Base(hook) + " --version", ours: slowest, kind: kindStartupInit,
			note: fmt.Sprintf("GODEBUG=inittrace=1; median of each run's slowest; most often %s", pkg)},
		gitV.fill(row{what: "start-up: git --version", baseline: "an empty Go program built the same way", note: "for scale"}),
	}, nil
}

// slowestInit runs prog --version with GODEBUG=inittrace=1 and returns
// the median over the runs of the slowest package init's clock time, and
// the package most often the slowest.
func (b *bench) slowestInit(prog string) (time.Duration, string, error) {
	var ds []time.Duration
	count := map[string]int{}
	for range b.cfg.runs {
		cmd := exec.Command(prog, "--version")
		cmd.Dir, cmd.Env = b.work, append(b.env, "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return 0, "", fmt.Errorf("%s --version: %v\n%s", prog, err, stderr.String())
		}
		d, pkg, err := slowestInitOf(stderr.String())
		if err != nil {
			return 0, "", err
		}
		ds = append(ds, d)
		count[pkg]++
	}
	top := ""
	for pkg, n := range count {
		if top == "" || n > count[top] || (n == count[top] && pkg < top) {
			top = pkg
		}
	}
	return median(ds), top, nil
}

// slowestInitOf reads the runtime's init trace, lines such as
// "init net/http @1.2 ms, 0.35 ms clock, 1024 bytes, 12 allocs", and
// returns the longest clock time and its package.
func slowestInitOf(trace string) (time.Duration, string, error) {
	var slowest time.Duration
	pkg := ""
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		ms, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			return 0, "", fmt.Errorf("init trace line %q: %v", sc.Text(), err)
		}
		if d := time.Duration(ms * float64(time.Millisecond)); d > slowest {
			slowest, pkg = d, f[1]
		}
	}
	if pkg == "" {
		return 0, "", fmt.Errorf("GODEBUG=inittrace=1 traced no package init")
	}
	return slowest, pkg, nil
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
// session of n records recorded through the hook path, and returns the
// transcript's path and the hook's payload.
func (b *bench) hookSession(ctx context.Context, dir, name string, n int, files func(string) error) (string, []byte, error) {
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
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return "", nil, err
	}
	defer s.Close()
	path := filepath.Join(b.work, name+".jsonl")
	t, err := newTranscript(s, dir, path, name)
	if err != nil {
		return "", nil, err
	}
	lines := make([][]byte, n)
	for i := range lines {
		lines[i] = claudeLine(name, i)
	}
	return path, hookPayload(name, path, dir), t.grow(ctx, time.Time{}, lines...)
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

// longSessionRows times a hook call and save --append on sessions of
// 50k and 200k messages (with -quick too: the sizes are the row's
// point), each paired with the same on one of 100: what a call costs
// must not grow with what the session already holds.
func (b *bench) longSessionRows(ctx context.Context) ([]row, error) {
	sizes := []int{50000, 200000}
	type session struct {
		dir          string
		hook, append timer
	}
	sessions := map[int]session{}
	for _, size := range append([]int{100}, sizes...) {
		dir := filepath.Join(b.work, fmt.Sprintf("long-%d", size))
		name := fmt.Sprintf("long%d", size)
		logf("a session of %d messages", size)
		path, payload, err := b.hookSession(ctx, dir, name, size, nil)
		if err != nil {
			return nil, err
		}
		if err := b.fillAppend(dir, "append"+name, size); err != nil {
			return nil, err
		}
		next := 10 * size
		sessions[size] = session{dir, b.hookTimer(dir, path, payload, name, size), func(int) (time.Duration, error) {
			next++
			return b.timedStdin(dir, append(claudeLine(name, next), '\n'), b.bin, "save", "--session", "append"+name, "--append", "--no-code")
		}}
	}
	var rows []row
	for _, n := range sizes {
		hook, err := b.pair(sessions[n].hook, sessions[100].hook)
		if err != nil {
			return nil, err
		}
		appends, err := b.pair(sessions[n].append, sessions[100].append)
		if err != nil {
			return nil, err
		}
		rows = append(rows,
			hook.fill(row{what: fmt.Sprintf("hook call on a %d-message session (%s), grown by 2", n, hookPath), kind: kindHookLong}),
			appends.fill(row{what: fmt.Sprintf("save --append of 1 message to a %d-message session, written by save --append", n), baseline: "the same on 100 messages"}))
	}
	for _, s := range sessions {
		if err := hookFailed(s.dir); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// fillAppend makes a session of n messages with save --append, 50k
// messages a call (a call's stdin is bounded by max_document_bytes).
func (b *bench) fillAppend(dir, session string, n int) error {
	for from := 0; from < n; from += 50000 {
		var in bytes.Buffer
		for i := from; i < min(n, from+50000); i++ {
			in.Write(claudeLine(session, i))
			in.WriteByte('\n')
		}
		if _, err := b.run(dir, in.Bytes(), b.bin, "save", "--session", session, "--append", "--no-code"); err != nil {
			return err
		}
	}
	return nil
}

// timedStdin times a command in dir fed stdin, its output thrown away.
func (b *bench) timedStdin(dir string, stdin []byte, args ...string) (time.Duration, error) {
	return b.run(dir, stdin, args...)
}
