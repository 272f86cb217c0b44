// Package watchmantest starts a watchman server of a test's own, on a
// socket in the test's temporary directory, for the tests of what asks
// watchman. Without the watchman program a test is skipped, unless
// $GIT_SNAP_REQUIRE_TOOLS is set (as .ci/run sets it): then it fails.
package watchmantest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Server is a watchman server a test started.
type Server struct {
	// Sock is its socket.
	Sock string
	t    testing.TB
	bin  string
	dir  string
	stop func()
}

// Start starts a watchman server that ends with the test.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("watchman")
	if err != nil {
		if os.Getenv("GIT_SNAP_REQUIRE_TOOLS") != "" {
			t.Fatal("watchman is not installed and GIT_SNAP_REQUIRE_TOOLS is set: the file watcher's tests run it (apt-get install watchman)")
		}
		t.Skip("watchman is not installed: the file watcher's tests run it (apt-get install watchman; set GIT_SNAP_REQUIRE_TOOLS=1 to make this a failure)")
	}
	dir := t.TempDir()
	s := &Server{Sock: filepath.Join(dir, "sock"), t: t, bin: bin, dir: dir}
	s.start()
	t.Cleanup(func() { s.stop() })
	return s
}

// Restart stops the server and starts a new one on the same socket,
// which knows nothing of the first one's clocks.
func (s *Server) Restart() {
	s.t.Helper()
	s.stop()
	s.start()
}

func (s *Server) start() {
	s.t.Helper()
	_ = os.Remove(s.Sock)
	cmd := exec.Command(s.bin, "--foreground", "--no-save-state", "--sockname="+s.Sock,
		"--statefile="+filepath.Join(s.dir, "state"), "--logfile="+filepath.Join(s.dir, "log"), "--pidfile="+filepath.Join(s.dir, "pid"))
	// Its own temporary directory: it writes nothing where others look.
	cmd.Env = append(os.Environ(), "TMPDIR="+s.dir, "WATCHMAN_SOCK="+s.Sock)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start watchman: %v", err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(done)
	}()
	stopped := false
	s.stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Kill()
			<-done
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(s.Sock); err == nil {
			return
		}
		select {
		case <-done:
			stopped = true
			log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			s.t.Fatalf("watchman exited at its start: %v\n%s", waitErr, log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatal("watchman's socket did not appear within 20 s")
		}
	}
}
