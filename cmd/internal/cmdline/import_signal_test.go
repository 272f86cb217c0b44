//go:build linux

package cmdline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestImportInterruptedSaysSoOnALineOfItsOwn interrupts an import of
// many transcripts while its progress line is shown and checks that the
// message saying so starts a line of its own, that stdout holds only
// results, and that what was imported before the stop is whole.
func TestImportInterruptedSaysSoOnALineOfItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	projects := filepath.Join(dir, "projects", "p")
	must(t, os.MkdirAll(projects, 0o777))
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "claude-code", "short.jsonl"))
	must(t, err)
	const n = 400
	for i := range n {
		id := fmt.Sprintf("55604662-cf2a-4331-851a-%012d", i)
		data := bytes.ReplaceAll(raw, []byte("55604662-cf2a-4331-851a-ec234028f8ca"), []byte(id))
		must(t, os.WriteFile(filepath.Join(projects, id+".jsonl"), data, 0o666))
	}
	cmd := exec.Command(bin, "import", "--progress", "--from", "claude-code", "projects")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	r := bufio.NewReader(stderr)
	seen, err := r.ReadString('/') // "\rimporting 1/": the progress line is up
	if err != nil || !strings.Contains(seen, "importing") {
		t.Fatalf("no progress line before the stop: %q %v", seen, err)
	}
	must(t, cmd.Process.Signal(syscall.SIGINT))
	rest, _ := bufio.NewReader(r).ReadString(0)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("an interrupted import exited %v; stderr: %q", err, seen+rest)
	}
	all := seen + rest
	at := strings.Index(all, "git-snap: ")
	if at < 0 {
		t.Fatalf("no message on stderr: %q", all)
	}
	if before := all[:at]; !strings.HasSuffix(before, "\r\x1b[K") && !strings.HasSuffix(before, "\n") {
		t.Errorf("the message starts on the progress line: %q", all[max(0, at-60):])
	}
	if strings.Contains(stdout.String(), "importing") {
		t.Errorf("progress on stdout: %q", stdout.String())
	}
	imported := strings.Count(stdout.String(), "\n")
	if imported >= n {
		t.Skipf("the import finished (%d lines) before the interrupt reached it", imported)
	}
	run(t, dir, "git", "fsck", "--strict", "--no-progress")
	if sessions := run(t, dir, "git", "for-each-ref", "refs/snap/"); strings.Count(sessions, "\n")+1 < imported && imported > 0 {
		t.Errorf("%d imports said, fewer sessions:\n%s", imported, sessions)
	}
}
