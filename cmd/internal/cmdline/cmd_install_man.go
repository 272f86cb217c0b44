package cmdline

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-snap/git-snap/internal/safefile"

	"github.com/git-snap/git-snap/cmd/internal/proc"
)

// The pages in docs/man are written by go generate ./cmd/git-snap.

// manOptions say where install man writes and what.
type manOptions struct {
	Dir   string            // the man1 directory
	Pages map[string][]byte // file name → roff
}

// parseInstallMan reads --prefix (default $XDG_DATA_HOME/man, else
// ~/.local/share/man: man-db finds it beside ~/.local/bin on PATH) and
// makes the pages from the app's own definitions.
func parseInstallMan(c *cli.Context, e *env) (manOptions, error) {
	if c.Bool("user") || c.Bool("project") || c.Bool("local") {
		return manOptions{}, usagef("--user, --project and --local are for agents; man takes --prefix DIR")
	}
	prefix := c.String("prefix")
	switch {
	case prefix != "":
	case e.getenv("XDG_DATA_HOME") != "":
		prefix = filepath.Join(e.getenv("XDG_DATA_HOME"), "man")
	case proc.Home(e.getenv) != "":
		prefix = filepath.Join(proc.Home(e.getenv), ".local", "share", "man")
	default:
		return manOptions{}, usagef("neither HOME nor USERPROFILE is set, to install the manual pages under; give --prefix DIR")
	}
	if !filepath.IsAbs(prefix) {
		prefix = filepath.Join(e.dir, prefix)
	}
	pages, err := manPages(c.App)
	return manOptions{Dir: filepath.Join(prefix, "man1"), Pages: pages}, err
}

// runInstallMan writes the pages, or removes them; a page of a command
// that no longer exists is removed too. Only pages git-snap wrote are
// removed (ours): another tool's git-snap-extra.1 beside them stays. The
// directory is listed, not globbed: a --prefix holding * or ? named
// other directories' pages.
func runInstallMan(d *deps, install bool, o manOptions) error {
	var old []string
	if ents, err := os.ReadDir(o.Dir); err == nil {
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, "git-snap") && strings.HasSuffix(name, ".1") && e.Type().IsRegular() && ourManPage(filepath.Join(o.Dir, name)) {
				old = append(old, filepath.Join(o.Dir, name))
			}
		}
	}
	removed := 0
	for _, f := range old {
		if _, keep := o.Pages[filepath.Base(f)]; keep && install {
			continue
		}
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("remove manual page: %w", err)
		}
		removed++
	}
	if !install {
		fmt.Fprintf(d.out, "removed %d manual pages from %s\n", removed, o.Dir)
		return nil
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return fmt.Errorf("install manual pages: %w", err)
	}
	names := make([]string, 0, len(o.Pages))
	for name := range o.Pages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(o.Dir, name)
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, o.Pages[name]) {
			continue
		}
		if err := d.writeOutput(path, o.Pages[name]); err != nil {
			return err
		}
	}
	fmt.Fprintf(d.out, "installed %d manual pages in %s (%s)\n", len(names), o.Dir, strings.Join([]string{"man git-snap", "git help snap"}, ", "))
	return nil
}

// ourManPage reports whether the page at path is one git-snap wrote: its
// title line names the manual internal/manpage writes for it.
func ourManPage(path string) bool {
	f, err := safefile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	line, _, _ := bytes.Cut(head[:n], []byte("\n"))
	return bytes.HasPrefix(line, []byte(`.TH "GIT\-SNAP`)) && bytes.HasSuffix(line, []byte(`"Git Snap Manual"`))
}
