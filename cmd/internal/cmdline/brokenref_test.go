package cmdline

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestBrokenRefSkipped: one junk file, or a link to another file, under
// refs/snap/ failed sessions and the viewer's page, and the link's
// target was quoted in the error. Both now list the other sessions and
// name the broken ref in a warning, never its content.
func TestBrokenRefSkipped(t *testing.T) {
	w := newLeakWorld(t)
	doc := w.file("doc.json", `{"messages": [{"role": "user", "content": "hi"}]}`)
	w.run("", "save", "-s", "good", doc)
	secret := w.file("id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n")
	snap := filepath.Join(w.dir, ".git", "refs", "snap")
	must(t, os.WriteFile(filepath.Join(snap, "junk"), []byte("garbage\n"), 0o644))
	must(t, os.Symlink(secret, filepath.Join(snap, "linked")))

	out := w.run("", "sessions")
	if !strings.Contains(out, "good") || !strings.Contains(out, "ignoring broken ref refs/snap/junk") || !strings.Contains(out, "ignoring broken ref refs/snap/linked") {
		t.Errorf("sessions:\n%s", out)
	}
	if strings.Contains(out, "OPENSSH") || strings.Contains(out, "garbage") {
		t.Errorf("sessions quotes a broken ref's file:\n%s", out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr lockedBuffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: w.dir, getenv: w.getenv}
	done := make(chan int, 1)
	go func() { done <- e.run(ctx, []string{"view", "--port", "0"}) }()
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	for !addr.MatchString(stdout.String()) {
		select {
		case code := <-done:
			t.Fatalf("view ended: %d\n%s%s", code, stdout.String(), stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	resp, err := http.Get(addr.FindString(stdout.String()) + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "good") || strings.Contains(string(body), "OPENSSH") {
		t.Errorf("the viewer's sessions page: %d\n%.500s", resp.StatusCode, body)
	}
	cancel()
	<-done
	if strings.Contains(stderr.String(), "OPENSSH") {
		t.Errorf("view's stderr quotes a broken ref's file:\n%s", stderr.String())
	}
}
