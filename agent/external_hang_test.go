package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExternalProgramThatHangsIsStopped: a program that never answers,
// and leaves a child holding its output open, is stopped at the timeout
// and named, with what to do; the error said only "signal: killed".
func TestExternalProgramThatHangsIsStopped(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	prog := filepath.Join(t.TempDir(), ExternalPrefix+"hang")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nsleep 5 &\nexec sleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	x := External{name: "hang", path: prog, timeout: 100 * time.Millisecond}
	var id externalID
	err := x.call("identify", nil, &id)
	want := ExternalPrefix + "hang identify did not answer within 100ms and was stopped; fix or remove the program"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}
