package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// worktreeRows time a hook call after a shell tool in work trees of 20k,
// 100k and 300k tracked files (2k and 20k with -quick), each paired with
// the same call in an empty work tree: with a watchman server, which
// hook calls ask what changed since the last call, and without one,
// where each call runs git status; and the git status a call without
// watchman runs, alone. Before each call the shell tool changed one file
// of the tree, as an agent's tool does.
func (b *bench) worktreeRows(ctx context.Context) ([]row, error) {
	sizes := map[bool][]int{true: {2000, 20000}, false: {20000, 100000, 300000}}[b.cfg.quick]
	sock, stop, err := b.startWatchman()
	if err != nil {
		return []row{{what: "hook call after Bash in a large work tree, with watchman", note: "watchman not started: " + firstLine(err.Error())}}, nil
	}
	defer stop()
	trees := map[int]string{}
	hooks := map[int]map[bool]timer{}
	for _, n := range append([]int{0}, sizes...) {
		dir, h, err := b.worktreeHooks(ctx, n, sock)
		if err != nil {
			return nil, err
		}
		trees[n], hooks[n] = dir, h
	}
	status := func(dir string) timer {
		return b.command(dir, nil, "git", "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-renames", "--untracked-files=all")
	}
	var rows []row
	for _, n := range sizes {
		watched, err := b.pair(hooks[n][true], hooks[0][true])
		if err != nil {
			return nil, err
		}
		plain, err := b.pair(hooks[n][false], hooks[0][false])
		if err != nil {
			return nil, err
		}
		st, err := b.pair(status(trees[n]), status(trees[0]))
		if err != nil {
			return nil, err
		}
		rows = append(rows,
			watched.fill(row{what: fmt.Sprintf("hook call after Bash, %d tracked files, one changed, with watchman", n), baseline: "the same call in an empty work tree, with watchman", kind: kindHookWorktree}),
			plain.fill(row{what: fmt.Sprintf("hook call after Bash, %d tracked files, one changed, without watchman (git status)", n), baseline: "the same call in an empty work tree"}),
			st.fill(row{what: fmt.Sprintf("git status alone, %d tracked files: the scan a call without watchman makes", n), baseline: "the same git status in the empty work tree"}))
	}
	for _, dir := range trees {
		if err := hookFailed(dir); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// worktreeHooks makes a work tree of n tracked files with a session of
// 50 messages, and returns it with the hook call after a shell edit,
// timed with watchman (true) and without (false). The first calls with
// watchman run untimed: the first scans and keeps what it found, and the
// watch is made then and crawled by watchman meanwhile.
func (b *bench) worktreeHooks(ctx context.Context, n int, sock string) (string, map[bool]timer, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("tree-%d", n))
	session := fmt.Sprintf("tree%d", n)
	logf("a work tree of %d tracked files", n)
	path, payload, err := b.hookSession(ctx, dir, session, 50, func(dir string) error { return trackedFiles(dir, n) })
	if err != nil {
		return "", nil, err
	}
	next := 50
	hooks := map[bool]timer{}
	for _, watched := range []bool{true, false} {
		env := []string{"WATCHMAN_SOCK=" + filepath.Join(b.work, "no-watchman")}
		if watched {
			env = []string{"WATCHMAN_SOCK=" + sock}
		}
		hooks[watched] = func(int) (time.Duration, error) {
			if err := shellEdit(dir, n, next); err != nil {
				return 0, err
			}
			if err := appendLines(path, claudeLine(session, next), claudeLine(session, next+1)); err != nil {
				return 0, err
			}
			next += 2
			return b.runEnv(dir, payload, env, b.hookArgs("claude-code")...)
		}
	}
	for range 3 {
		if _, err := hooks[true](0); err != nil {
			return "", nil, err
		}
	}
	return dir, hooks, nil
}

// shellEdit changes one file of a work tree of n tracked files, as a
// shell tool does: a tracked one, or in the empty tree an untracked one.
func shellEdit(dir string, n, i int) error {
	name := filepath.Join(dir, "d000", "f00000.go")
	if n == 0 {
		name = filepath.Join(dir, "scratch.go")
	}
	return os.WriteFile(name, fmt.Appendf(nil, "package d\n\nconst F0 = %d\n", i), 0o666)
}

// startWatchman starts a watchman server of the benchmark's own, its
// socket and state in the work directory, and returns its socket and
// what stops it.
func (b *bench) startWatchman() (string, func(), error) {
	bin, err := exec.LookPath("watchman")
	if err != nil {
		return "", nil, fmt.Errorf("watchman is not installed (apt-get install watchman)")
	}
	dir := filepath.Join(b.work, "watchman")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", nil, err
	}
	sock := filepath.Join(dir, "sock")
	cmd := exec.Command(bin, "--foreground", "--no-save-state", "--sockname="+sock,
		"--statefile="+filepath.Join(dir, "state"), "--logfile="+filepath.Join(dir, "log"), "--pidfile="+filepath.Join(dir, "pid"))
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	for range 1000 {
		if _, err := os.Stat(sock); err == nil {
			return sock, stop, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("watchman's socket did not appear")
}
