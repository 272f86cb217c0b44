package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/internal/safefile"
	"github.com/git-snap/git-snap/storage"
)

// Rewritten code commits: git's post-rewrite hook reports, after an
// amend or a rebase, each commit rewritten with the one that replaced
// it. The pairs are kept in .git/snap/rewritten, one "old new" a line,
// so that a snapshot's code commit (Snap-Code), which names the commit
// as it was, still leads to the commit the branch holds now.

func (s *Store) rewrittenPath() string { return filepath.Join(s.paths.CommonDir, "snap", "rewritten") }

// NoteRewrites records code commits rewritten into others (old → new),
// appending to what earlier rewrites recorded.
func (s *Store) NoteRewrites(pairs [][2]storage.ID) error {
	var b bytes.Buffer
	for _, p := range pairs {
		if p[0] != p[1] && !p[0].IsZero() && !p[1].IsZero() {
			fmt.Fprintf(&b, "%s %s\n", p[0], p[1])
		}
	}
	if b.Len() == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.rewrittenPath()), 0o777); err != nil {
		return fmt.Errorf("note rewritten commits: %w", err)
	}
	f, err := safefile.OpenAppend(s.rewrittenPath(), 0o666)
	if err != nil {
		return fmt.Errorf("note rewritten commits: %w", err)
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("note rewritten commits: %w", err)
	}
	return nil
}

// Rewrites are the code commits recorded as rewritten: old → the
// commits it became, in the order recorded.
type Rewrites map[storage.ID][]storage.ID

// ReadRewrites reads what NoteRewrites recorded; none when nothing was.
func (s *Store) ReadRewrites(ctx context.Context) (Rewrites, error) {
	data, err := safefile.ReadFile(ctx, s.rewrittenPath(), "", maxCacheBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Rewrites{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read rewritten commits: %w", err)
	}
	m := Rewrites{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		old, nu, ok := strings.Cut(sc.Text(), " ")
		if ok && storage.IsID(old) && storage.IsID(nu) {
			o := storage.NewID(old)
			m[o] = append(m[o], storage.NewID(nu))
		}
	}
	return m, nil
}

// Descendants lists id and every commit a chain of rewrites leads to
// from it, id first.
func (m Rewrites) Descendants(id storage.ID) []storage.ID {
	seen := map[storage.ID]bool{}
	var out []storage.ID
	for queue := []storage.ID{id}; len(queue) > 0; queue = queue[1:] {
		h := queue[0]
		if seen[h] {
			continue
		}
		seen[h] = true
		out = append(out, h)
		queue = append(queue, m[h]...)
	}
	return out
}

// Latest lists the commits the chains of rewrites from id end at: id
// itself when it was never rewritten.
func (m Rewrites) Latest(id storage.ID) []storage.ID {
	var out []storage.ID
	for _, h := range m.Descendants(id) {
		if len(m[h]) == 0 {
			out = append(out, h)
		}
	}
	if len(out) == 0 { // a cycle: amended back and forth
		return []storage.ID{id}
	}
	return out
}

// Ancestors lists id and every commit that a chain of rewrites led from
// to it, id first: the commits a snapshot taken before the rewrites
// names.
func (m Rewrites) Ancestors(id storage.ID) []storage.ID {
	back := map[storage.ID][]storage.ID{}
	for old, news := range m {
		for _, n := range news {
			back[n] = append(back[n], old)
		}
	}
	return Rewrites(back).Descendants(id)
}

// Before lists the commits that chains of rewrites led from to a commit
// whose id starts with prefix, by full id: what a snapshot taken before
// an amend or a rebase names for the commit prefix names now.
func (m Rewrites) Before(prefix string) map[string]bool {
	out := map[string]bool{}
	if prefix == "" {
		return out
	}
	for _, news := range m {
		for _, n := range news {
			if strings.HasPrefix(n.String(), prefix) {
				for _, old := range m.Ancestors(n)[1:] {
					out[old.String()] = true
				}
			}
		}
	}
	return out
}
