package proc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// exitWait bounds how long Export waits for the agent's process to exit
// after the call that asked for an export (agent.Exporter): the agent
// waited for that call as it shut down, and exits right after. Still
// running then, it did not exit (an instance OpenCode disposed of and
// made again): the next hook call records it.
const exitWait = 30 * time.Second

// maxExport bounds what an agent's export prints, as a document
// transcript is bounded.
const maxExport = 256 << 20

// Export runs, once process pid is gone, an agent's export command in
// dir (agent.Exporter) with this process's variables, and gives a file
// named name, in a folder of its own, holding what the command printed,
// with the function that removes it; ok is false when the process was
// still running after exitWait.
func Export(ctx context.Context, pid int, dir, name string, command []string) (path string, done func(), ok bool, err error) {
	wait, cancel := context.WithTimeout(ctx, exitWait)
	defer cancel()
	for !gone(pid) {
		select {
		case <-wait.Done():
			return "", nil, false, nil
		case <-time.After(20 * time.Millisecond):
		}
	}
	out, err := runExport(ctx, dir, command)
	if err != nil {
		return "", nil, true, err
	}
	tmp, err := os.MkdirTemp("", "git-snap-export-")
	if err != nil {
		return "", nil, true, err
	}
	done = func() { _ = os.RemoveAll(tmp) }
	path = filepath.Join(tmp, filepath.Base(name))
	if err := os.WriteFile(path, out, 0o600); err != nil {
		done()
		return "", nil, true, err
	}
	return path, done, true, nil
}

// runExport runs an agent's export command in dir and returns what it
// printed on stdout; a failure says the last line it printed on stderr.
func runExport(ctx context.Context, dir string, command []string) ([]byte, error) {
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
