//go:build linux

package cmdline

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runFor runs the binary in dir with stdin and returns its exit status
// and combined output. The deadline is a guard against a hang, which
// is the failure these tests look for, not a synchronisation.
func runFor(t *testing.T, bin, dir, stdin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com")
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second // children that outlive a killed git-snap may hold its output
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("git-snap %s did not end: it read a file it should have refused\n%s", strings.Join(args, " "), out)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// plant makes path one of the files a hostile commit or a careless
// hand leaves where git-snap reads: a link to /dev/zero, a FIFO nobody
// writes, or a sparse file of 4 GiB.
func plant(t *testing.T, path, kind string) {
	t.Helper()
	_ = os.Remove(path)
	must(t, os.MkdirAll(filepath.Dir(path), 0o777))
	switch kind {
	case "link to /dev/zero":
		must(t, os.Symlink("/dev/zero", path))
	case "fifo":
		must(t, syscall.Mkfifo(path, 0o666))
	case "4 GiB sparse":
		f, err := os.Create(path)
		must(t, err)
		must(t, f.Truncate(4<<30))
		must(t, f.Close())
	}
}

// TestHostileFilesAreRefusedNotRead: a committed .git-snap.yaml that is a
// link to /dev/zero, a FIFO or a 4 GiB sparse file was read whole and
// forever by every command, the hook included; so was every file under
// .git/snap/. Now the settings files are refused with exit 2 naming
// them (the hook, passive, still exits 0), and the caches, notes and log
// are passed over or rebuilt, each command ending promptly.
func TestHostileFilesAreRefusedNotRead(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	run(t, dir, "git", "commit", "-q", "--allow-empty", "-m", "start")
	must(t, os.WriteFile(filepath.Join(dir, "d.json"), []byte(`{"messages":[{"role":"user","content":"hello there"}]}`), 0o666))
	if code, out := runFor(t, bin, dir, "", "save", "--session", "s", "d.json"); code != 0 {
		t.Fatalf("save: %d %s", code, out)
	}
	if code, out := runFor(t, bin, dir, "", "search", "hello"); code != 0 {
		t.Fatalf("search: %d %s", code, out)
	}
	payload := `{"session_id":"h1","transcript_path":"` + filepath.Join(dir, "none.jsonl") + `","cwd":"` + dir + `","hook_event_name":"UserPromptSubmit","prompt":"hi"}`
	snap := filepath.Join(dir, ".git", "snap")
	kinds := []string{"link to /dev/zero", "fifo", "4 GiB sparse"}

	for _, file := range []string{filepath.Join(dir, ".git-snap.yaml"), filepath.Join(snap, "config.yaml")} {
		for _, kind := range kinds {
			t.Run(filepath.Base(file)+" "+kind, func(t *testing.T) {
				plant(t, file, kind)
				defer os.Remove(file)
				code, out := runFor(t, bin, dir, "", "sessions")
				if code != 2 || !strings.Contains(out, filepath.Base(file)) || !strings.Contains(out, "refused") {
					t.Errorf("sessions: exit %d, %q; want 2 and a message naming %s", code, out, filepath.Base(file))
				}
				if code, out := runFor(t, bin, dir, payload, "hook", "claude-code"); code != 0 {
					t.Errorf("hook: exit %d, %s", code, out)
				}
			})
		}
	}

	for _, file := range []string{
		filepath.Join(snap, "hook.log"),
		filepath.Join(snap, "cache", "totals"),
		filepath.Join(snap, "cache", "tip", "refs%snap%s", "state"),
		filepath.Join(snap, "cache", "tip", "refs%snap%s", "base"),
		filepath.Join(snap, "cache", "tally", "refs%snap%s", "state"),
		filepath.Join(snap, "cache", "tally", "refs%snap%s", "base"),
		filepath.Join(snap, "pruned"),
		filepath.Join(snap, "search", "manifest"),
		filepath.Join(snap, "search", "lock"),
	} {
		for _, kind := range kinds {
			t.Run(strings.TrimPrefix(file, snap)+" "+kind, func(t *testing.T) {
				plant(t, file, kind)
				defer os.Remove(file)
				for _, args := range [][]string{{"hook", "claude-code"}, {"stats"}, {"log", "s"}, {"search", "hello"}, {"doctor"}, {"save", "--session", "s", "d.json"}} {
					stdin := ""
					if args[0] == "hook" {
						stdin = payload
					}
					code, out := runFor(t, bin, dir, stdin, args...)
					if args[0] == "doctor" {
						continue // it may report problems; it must end
					}
					if code != 0 {
						t.Errorf("%s: exit %d, %s", strings.Join(args, " "), code, out)
					}
				}
			})
		}
	}

	// A loose ref is git's own file, but anyone may plant one: a list of
	// sessions reads at most a ref's worth of it (a link to /dev/zero was
	// read until memory ran out), and lists the others with one warning
	// naming the planted ref, as git does.
	for _, kind := range kinds {
		t.Run("refs/snap/planted "+kind, func(t *testing.T) {
			ref := filepath.Join(dir, ".git", "refs", "snap", "planted")
			plant(t, ref, kind)
			defer os.Remove(ref)
			for _, args := range [][]string{{"sessions"}, {"log", "--all"}} {
				code, out := runFor(t, bin, dir, "", args...)
				if code != 0 || strings.Count(out, "ignoring broken ref refs/snap/planted") != 1 || !strings.Contains(out, "s#1") && !strings.Contains(out, "\ns ") {
					t.Errorf("%s: exit %d, %.300q; want 0, the sessions and one warning naming the ref", strings.Join(args, " "), code, out)
				}
			}
		})
	}
	run(t, dir, "git", "fsck", "--strict", "--no-progress")
}
