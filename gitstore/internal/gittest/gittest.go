// Package gittest runs the real git binary for the tests of gitstore's
// packages, so that what they write is checked by git itself. Git runs
// with a fixed identity and without the user's or the system's
// configuration, so tests see the same git everywhere.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git in dir and returns its trimmed output; a failure fails
// the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return GitIn(t, dir, "", args...)
}

// GitIn is Git with stdin as git's standard input.
func GitIn(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Repo makes a repository in a temporary directory, with one commit on
// main, and returns its work tree.
func Repo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "add", ".")
	Git(t, dir, "commit", "-q", "-m", "first")
	return dir
}
