package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitConfigReturns runs GitConfig with global as the user's config file
// and fails the test if it does not return: the FIFO named unblock, if
// any, is then opened for writing so that a read stuck on it ends.
func gitConfigReturns(t *testing.T, global, unblock string, keys ...string) map[string]string {
	t.Helper()
	done := make(chan map[string]string, 1)
	go func() {
		done <- GitConfig(Paths{}, GitEnv{ConfigNoSystem: true, ConfigGlobal: global}, keys...)
	}()
	select {
	case got := <-done:
		return got
	case <-time.After(60 * time.Second): // a hang guard, not a timing
		if unblock != "" {
			if f, err := os.OpenFile(unblock, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		}
		t.Fatal("GitConfig did not return")
		return nil
	}
}

// TestGitConfigHostileIncludes: include.path naming a FIFO with no
// writer, a directory, /dev/zero, a symbolic link loop, a missing file, a
// file including itself, and includes fanning out ten levels deep are
// read (or skipped) without hanging, and the keys set beside them are
// still found.
func TestGitConfigHostileIncludes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	must(t, os.Symlink("loop2", filepath.Join(dir, "loop1")))
	must(t, os.Symlink("loop1", filepath.Join(dir, "loop2")))
	must(t, os.Mkdir(filepath.Join(dir, "adir"), 0o755))
	for _, target := range []string{fifo, "adir", "/dev/zero", "loop1", "missing", "self.cfg"} {
		t.Run(filepath.Base(target), func(t *testing.T) {
			global := filepath.Join(dir, "self.cfg")
			text := fmt.Sprintf("[user]\n\tname = Before\n[include]\n\tpath = %s\n[user]\n\temail = after@example.com\n", target)
			must(t, os.WriteFile(global, []byte(text), 0o644))
			got := gitConfigReturns(t, global, fifo, "user.name", "user.email")
			if got["user.name"] != "Before" || got["user.email"] != "after@example.com" {
				t.Errorf("include of %s: got %v", target, got)
			}
		})
	}
}

// TestGitConfigIncludeFanOut: a file including itself twenty times, and
// ten levels of distinct files each including the next twenty times,
// would be 20^10 reads followed naively; the reads are bounded.
func TestGitConfigIncludeFanOut(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "self.cfg")
	must(t, os.WriteFile(self, []byte("[user]\n\tname = Self\n"+strings.Repeat("[include]\n\tpath = self.cfg\n", 20)), 0o644))
	if got := gitConfigReturns(t, self, "", "user.name"); got["user.name"] != "Self" {
		t.Errorf("self include: got %v", got)
	}
	for i := 0; i < 10; i++ {
		text := strings.Repeat(fmt.Sprintf("[include]\n\tpath = level%d.cfg\n", i+1), 20)
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("level%d.cfg", i)), []byte(text), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "level10.cfg"), []byte("[user]\n\temail = deep@example.com\n"), 0o644))
	if got := gitConfigReturns(t, filepath.Join(dir, "level0.cfg"), "", "user.email"); got["user.email"] != "deep@example.com" {
		t.Errorf("fan out: got %v", got)
	}
}

// TestGitConfigFollowsLinks: a config file that is a symbolic link (to a
// dotfiles repository) is read, and so is an include that is one, as git
// reads them.
func TestGitConfigFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "real.cfg"), []byte("[user]\n\tname = Linked\n[include]\n\tpath = inc.link\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "inc.cfg"), []byte("[user]\n\temail = inc@example.com\n"), 0o644))
	must(t, os.Symlink("real.cfg", filepath.Join(dir, "global.link")))
	must(t, os.Symlink("inc.cfg", filepath.Join(dir, "inc.link")))
	got := gitConfigReturns(t, filepath.Join(dir, "global.link"), "", "user.name", "user.email")
	if got["user.name"] != "Linked" || got["user.email"] != "inc@example.com" {
		t.Errorf("got %v", got)
	}
}

// TestGitConfigRefusesHugeFile: a config file past maxConfigBytes is
// refused whole, never read in part (a value cut at the limit would be
// taken for the whole).
func TestGitConfigRefusesHugeFile(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "big.cfg")
	text := "[user]\n\tname = " + strings.Repeat("n", maxConfigBytes) + "\n"
	must(t, os.WriteFile(global, []byte(text), 0o644))
	if got := gitConfigReturns(t, global, "", "user.name"); len(got) != 0 {
		t.Errorf("a %d-byte config was read in part: %d keys", len(text), len(got))
	}
}

// TestDiscoverConfigFIFO: a repository whose config is a FIFO with no
// writer is found without waiting for one (git-snap reads core.worktree
// and core.bare from it).
func TestDiscoverConfigFIFO(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "repo")
	config := filepath.Join(dir, "repo", ".git", "config")
	must(t, os.Remove(config))
	mkfifo(t, config)
	done := make(chan error, 1)
	go func() {
		_, err := Discover(filepath.Join(dir, "repo"), GitEnv{})
		done <- err
	}()
	select {
	case err := <-done:
		t.Logf("Discover: %v", err) // any answer, so long as there is one
	case <-time.After(60 * time.Second): // a hang guard, not a timing
		if f, err := os.OpenFile(config, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("Discover waited on a FIFO config")
	}
}
