package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-snap/git-snap/agent"
)

// exitWait bounds how long the call apart waits for the agent's process
// to exit after the call that asked for an export (agent.Exporter): the
// agent waited for that call as it shut down, and exits right after.
// Still running then, it did not exit (an instance OpenCode disposed of
// and made again): the next hook call records it.
const exitWait = 30 * time.Second

// maxExport bounds what an agent's export prints, as a document
// transcript is bounded.
const maxExport = 256 << 20

// errNotExported says that the call apart has nothing to record: the
// agent did not exit.
var errNotExported = errors.New("nothing exported")

// exported runs, once the agent's process has exited, the command that
// prints the session p names (agent.Exporter), into a file of its own
// that it returns with the function that removes it; errNotExported
// when the agent did not exit. An export older than what the session
// recorded meanwhile is not recorded (see agent's dater).
func exported(ctx context.Context, p agent.Payload, pid int, command []string) (string, func(), error) {
	wait, cancel := context.WithTimeout(ctx, exitWait)
	defer cancel()
	for !gone(pid) {
		select {
		case <-wait.Done():
			return "", nil, errNotExported
		case <-time.After(20 * time.Millisecond):
		}
	}
	out, err := runAgentExport(ctx, p.CWD, command)
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "git-snap-export-")
	if err != nil {
		return "", nil, err
	}
	done := func() { _ = os.RemoveAll(dir) }
	path := filepath.Join(dir, p.SessionID+".json")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		done()
		return "", nil, err
	}
	return path, done, nil
}

// runAgentExport runs an agent's export command in dir and returns what it
// printed on stdout; a failure says what it printed on stderr.
func runAgentExport(ctx context.Context, dir string, command []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	if filepath.IsAbs(dir) {
		cmd.Dir = dir
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &limited{w: &stdout, n: maxExport + 1}
	cmd.Stderr = &limited{w: &stderr, n: 64 << 10}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, fmt.Errorf("%s: %w: %s", strings.Join(command, " "), err, msg)
	}
	if stdout.Len() > maxExport {
		return nil, fmt.Errorf("%s printed over %d bytes, the most read of one document transcript", strings.Join(command, " "), maxExport)
	}
	return stdout.Bytes(), nil
}

// limited writes at most n bytes to w and drops the rest, so that a
// command printing without end cannot fill memory.
type limited struct {
	w io.Writer
	n int64
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n <= 0 {
		return len(p), nil
	}
	q := p[:min(int64(len(p)), l.n)]
	l.n -= int64(len(q))
	if _, err := l.w.Write(q); err != nil {
		return 0, err
	}
	return len(p), nil
}
