//go:build linux

package cmdline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputPathsAreWrittenNotReplaced: export -o, restore -o, export
// --format markdown|html -o and export --bundle wrote a temporary file
// and renamed it over the target, so `-o /dev/null` as root replaced
// /dev/null with a regular file, a FIFO or a symbolic link was replaced
// the same way, and every export was 0600 whatever the umask. Now a
// device or FIFO is written through, a link is followed and stays, and a
// new file is 0666 less the umask.
func TestOutputPathsAreWrittenNotReplaced(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	must(t, os.WriteFile(filepath.Join(dir, "d.json"), []byte(`{"messages":[{"role":"user","content":"hello there"}]}`), 0o666))
	run(t, dir, bin, "save", "--session", "s", "d.json")
	outputs := map[string]func(path string) []string{
		"export -o":                func(p string) []string { return []string{"export", "s", "-o", p} },
		"restore -o":               func(p string) []string { return []string{"restore", "s", "-o", p} },
		"export --format markdown": func(p string) []string { return []string{"export", "s", "--format", "markdown", "-o", p} },
		"export --format html":     func(p string) []string { return []string{"export", "s", "--format", "html", "-o", p} },
		"export --bundle":          func(p string) []string { return []string{"export", "--bundle", p, "s"} },
	}
	umask022 := func(args ...string) {
		t.Helper()
		if code, out := runFor(t, "sh", dir, "", append([]string{"-c", `umask 022; exec "$@"`, "sh", bin}, args...)...); code != 0 {
			t.Errorf("git-snap %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	for name, args := range outputs {
		t.Run(name, func(t *testing.T) {
			sub := t.TempDir()
			// A new file: 0666 less the umask.
			fresh := filepath.Join(sub, "new.out")
			umask022(args(fresh)...)
			if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("a new output under umask 022: %v %v, want 0644", fi.Mode(), err)
			}
			// A link: followed, and still a link.
			target := filepath.Join(sub, "target.out")
			must(t, os.WriteFile(target, nil, 0o600))
			link := filepath.Join(sub, "link.out")
			must(t, os.Symlink("target.out", link))
			umask022(args(link)...)
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("-o a symbolic link replaced it: %v %v", fi.Mode(), err)
			}
			if fi, err := os.Stat(target); err != nil || fi.Size() == 0 || fi.Mode().Perm() != 0o600 {
				t.Errorf("the link's target: %v, %d bytes, %v; want written, its mode kept", fi.Mode(), fi.Size(), err)
			}
			// A FIFO: written through to its reader.
			fifo := filepath.Join(sub, "fifo.out")
			must(t, syscall.Mkfifo(fifo, 0o666))
			// The test holds both ends (O_RDWR never waits on a FIFO), so
			// that nothing blocks whatever the command does with it.
			r, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0)
			must(t, err)
			defer r.Close()
			umask022(args(fifo)...)
			if n, _ := r.Read(make([]byte, 1<<16)); n <= 0 {
				t.Error("nothing came through the FIFO")
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("-o a FIFO replaced it: %v %v", fi.Mode(), err)
			}
			// A device (a null device of its own, made as root can).
			null := filepath.Join(sub, "null")
			if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
				umask022(args(null)...)
				if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
					t.Errorf("-o a device replaced it: %v %v", fi.Mode(), err)
				}
			}
			// A directory: refused, exit 2, nothing written.
			cmd := exec.Command(bin, args(sub)...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "directory") {
				t.Errorf("-o a directory: %v %s", err, out)
			}
		})
	}
}
