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

// exitWait limits how long Export waits for the agent's process to exit
// after the hook call that asked for an export (agent.Exporter). The
// agent waits for that call while shutting down and exits right after.
// If it is still running after exitWait, it was not exiting (OpenCode
// disposed of an instance and made a new one), and the next hook call
// records the session instead.
const exitWait = 30 * time.Second

// maxExport limits how much of an agent's export output is read, the
// same limit as for a document transcript.
const maxExport = 256 << 20

// Export waits for process pid to exit, then runs an agent's export
// command (agent.Exporter) in dir with this process's environment. It
// returns the path of a file called name, in a directory of its own,
// holding what the command printed, and a function that removes it. ok
// is false when the process was still running after exitWait.
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
// printed on stdout. On failure the error includes the last line it
// printed on stderr.
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
		return nil, fmt.Errorf("%s printed more than %d bytes, the limit for one document transcript", strings.Join(command, " "), maxExport)
	}
	return stdout.Bytes(), nil
}

// limited writes at most n bytes to w and drops the rest, so that a
// command that prints without end cannot fill memory.
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
