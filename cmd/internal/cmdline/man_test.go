package cmdline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// installMan runs git snap install man --prefix into a temporary
// directory, as a user would, and returns the man1 directory.
func installMan(t *testing.T) string {
	t.Helper()
	prefix := t.TempDir()
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, dir: prefix, getenv: func(string) string { return "" }}
	if code := e.run(context.Background(), []string{"install", "man", "--prefix", prefix}); code != 0 {
		t.Fatalf("install man: exit %d: %s", code, errOut.String())
	}
	return filepath.Join(prefix, "man1")
}

// TestManPagesCurrent fails when docs/man no longer says what --help
// says: the pages there are the ones install man writes.
func TestManPagesCurrent(t *testing.T) {
	fresh := installMan(t)
	committed := filepath.Join("..", "..", "..", "docs", "man", "man1")
	want := readDir(t, fresh)
	have := readDir(t, committed)
	for name, page := range want {
		if !bytes.Equal(have[name], page) {
			t.Errorf("docs/man/man1/%s is stale or missing", name)
		}
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/man/man1/%s names no command", name)
		}
	}
	if t.Failed() {
		t.Log("regenerate with: go generate ./cmd/git-snap")
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// TestManRenders reads every page with the real man: git-snap(1) names
// every command, each command's page every flag --help lists.
func TestManRenders(t *testing.T) {
	man := requireTool(t, "man")
	dir := installMan(t)
	read := func(page string) string {
		t.Helper()
		cmd := exec.Command(man, page)
		cmd.Env = append(os.Environ(), "MANPATH="+filepath.Dir(dir), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=200", "LANG=C.UTF-8")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("man %s: %v: %s", page, err, stderr.String())
		}
		return string(out)
	}
	app := (&env{}).newApp()
	top := read("git-snap")
	for _, c := range docCommands(app) {
		if !strings.Contains(top, "git snap "+c.Name+" ") && !strings.Contains(top, "git snap "+c.Name+"\n") {
			t.Errorf("git-snap(1) does not list %s", c.Name)
		}
		page := read("git-snap-" + c.Name)
		if !strings.Contains(page, c.Usage) {
			t.Errorf("git-snap-%s(1) lacks its summary %q", c.Name, c.Usage)
		}
		for _, f := range c.Flags {
			if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
				continue
			}
			if name := f.Names()[0]; !strings.Contains(page, "-"+name) {
				t.Errorf("git-snap-%s(1) lacks --%s", c.Name, name)
			}
		}
	}
}
