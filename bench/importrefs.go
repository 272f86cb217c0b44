package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// importRefsRows time an import of 100 Claude Code sessions into a
// repository already holding 100k packed session refs (10k with -quick),
// paired with the same import into an empty repository: what an import
// pays for the refs already there.
func (b *bench) importRefsRows(ctx context.Context) ([]row, error) {
	refs := map[bool]int{true: 10000, false: 100000}[b.cfg.quick]
	const n = 100
	home := filepath.Join(b.work, "importrefs-home")
	projects := filepath.Join(home, ".claude", "projects")
	if err := writeClaudeSessions(filepath.Join(projects, "-home-bench-app"), n); err != nil {
		return nil, err
	}
	full := filepath.Join(b.work, "importrefs-full")
	if err := b.manyRefs(full, refs); err != nil {
		return nil, err
	}
	logf("import of %d sessions into %d refs and into none", n, refs)
	ours := []string{b.bin, "import", "--from", "claude-code", "--no-progress", projects}
	into := func(src, dir string) timer {
		return func(int) (time.Duration, error) {
			if src == "" {
				return b.timedFresh(dir, nil, ours...)
			}
			if err := copyRepo(src, dir); err != nil {
				return 0, err
			}
			return b.run(dir, nil, ours...)
		}
	}
	p, err := pairRuns(min(b.cfg.runs, 11), into(full, filepath.Join(b.work, "importrefs-run")), into("", filepath.Join(b.work, "importrefs-empty")))
	if err != nil {
		return nil, err
	}
	return []row{p.fill(row{what: fmt.Sprintf("import --from claude-code of %d sessions into a repository of %d packed session refs", n, refs),
		kind: kindImportRefs})}, nil
}

// manyRefs makes a repository of n packed session refs, each naming a
// commit of its own (a snapshot-shaped root commit), written by git
// fast-import.
func (b *bench) manyRefs(dir string, n int) error {
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return err
	}
	var in bytes.Buffer
	doc := "{\"messages\": []}\n"
	fmt.Fprintf(&in, "blob\nmark :1\ndata %d\n%s\n", len(doc), doc)
	for i := range n {
		msg := fmt.Sprintf("snap s%06d #1\n\nSnap-Session: s%06d\nSnap-Seq: 1\n", i, i)
		fmt.Fprintf(&in, "commit refs/snap/s%06d\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%sM 100644 :1 snapshot.json\n\n",
			i, 1767225600+i, len(msg), msg)
	}
	if _, err := b.run(dir, in.Bytes(), "git", "fast-import", "--quiet"); err != nil {
		return err
	}
	if err := b.gitIn(dir, "pack-refs", "--all"); err != nil {
		return err
	}
	out, err := os.ReadFile(filepath.Join(dir, ".git", "packed-refs"))
	if err != nil || strings.Count(string(out), "\n") < n {
		return fmt.Errorf("%d refs were not packed: %v", n, err)
	}
	return nil
}
