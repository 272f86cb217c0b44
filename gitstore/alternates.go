package gitstore

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/git-snap/git-snap/gitstore/internal/pack"
	"github.com/git-snap/git-snap/internal/safefile"
)

// alternate is an object directory another repository lends this one
// (objects/info/alternates): read, never written.
type alternate struct {
	dir   string // its objects directory
	packs *pack.Set
}

// maxAlternateDepth is how deep git follows alternates of alternates.
const maxAlternateDepth = 5

// alternatesList reads objects/info/alternates once: its directories,
// then theirs, as git follows them, each once.
func (r *objectReader) alternatesList() []alternate {
	r.alternates.once.Do(func() {
		own := filepath.Join(r.dir, "objects")
		seen := map[string]bool{filepath.Clean(own): true}
		r.alternates.list = r.readAlternates(own, seen, 0)
	})
	return r.alternates.list
}

func (r *objectReader) readAlternates(objects string, seen map[string]bool, depth int) []alternate {
	if depth >= maxAlternateDepth {
		return nil
	}
	b, err := readBoundedGitFile(filepath.Join(objects, "info", "alternates"), maxAlternatesBytes)
	if err != nil {
		return nil
	}
	var out []alternate
	for raw := range bytes.SplitSeq(b, []byte("\n")) {
		line := string(bytes.TrimSpace(raw))
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '"' { // written quoted, as git quotes a path
			if uq, err := strconv.Unquote(line); err == nil {
				line = uq
			}
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objects, line)
		}
		dir := filepath.Clean(line)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue // git warns and goes on
		}
		out = append(out, alternate{dir: dir, packs: pack.Open(filepath.Join(dir, "pack"), pack.Options{MaxObjectBytes: r.max})})
		out = append(out, r.readAlternates(dir, seen, depth+1)...)
	}
	return out
}

// maxAlternatesBytes bounds objects/info/alternates: git writes one line
// for each repository lending objects.
const maxAlternatesBytes = 1 << 20

// readBoundedGitFile reads one of git's small text files (config,
// alternates) if it is a regular file (a FIFO would block, a device never
// end; links are followed as git follows them) of at most max bytes: a
// larger one is refused whole rather than read in part.
func readBoundedGitFile(path string, max int) ([]byte, error) {
	f, err := safefile.OpenFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > max {
		return nil, fmt.Errorf("read %s: larger than %d bytes, more than git-snap reads of it", path, max)
	}
	return b, nil
}
