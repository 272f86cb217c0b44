package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	gitsnap "github.com/git-snap/git-snap"
	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/capture"
	"github.com/git-snap/git-snap/storage"
)

// The blame repository: sessions × commitsPerSession commits of code on
// one branch, over blameFiles files. Each session writes a function into
// a file in each of its turns and commits it, and a person commits an
// edit of a line of their own twice a session, as people and agents take
// turns on a team's code.
const (
	blameFiles        = 60
	commitsPerSession = 10
	personEvery       = 5 // of a session's commits, each 5th is a person's
)

// blameRows times git snap blame of the file the most commits changed,
// in a repository of 10k commits (2k with -quick) made by 1,000 sessions
// (200), paired with git blame of the same file. The first blame, which
// reads every session's captures into the index, runs untimed first, as
// a repository's first blame does once; the note gives its time.
func (b *bench) blameRows(ctx context.Context) ([]row, error) {
	sessions := map[bool]int{true: 200, false: 1000}[b.cfg.quick]
	dir := filepath.Join(b.work, "blame")
	file, err := b.blameRepo(ctx, dir, sessions)
	if err != nil {
		return nil, err
	}
	first, err := b.run(dir, nil, b.bin, "blame", file)
	if err != nil {
		return nil, err
	}
	p, err := b.pair(b.command(dir, nil, b.bin, "blame", file), b.command(dir, nil, "git", "blame", file))
	if err != nil {
		return nil, err
	}
	lines, err := b.lineCount(dir, file)
	if err != nil {
		return nil, err
	}
	return []row{p.fill(row{what: fmt.Sprintf("blame of a %d-line file, %d commits by %d sessions and people, %s", lines, sessions*commitsPerSession, sessions, hookPath),
		kind: kindBlame, note: fmt.Sprintf("the first blame, untimed in the median, reads every session's captures into the index: %.0f ms", ms(first))})}, nil
}

// blameRepo builds the blame repository in dir and returns the file most
// commits changed. The code's history is written by one git fast-import;
// the sessions then through the hook path (capture.Ingest, capturing the
// file each turn writes from a work tree of their own), each snapshot
// naming the commit HEAD was on, and each commit marked on its session as
// git snap install git's post-commit hook marks it.
func (b *bench) blameRepo(ctx context.Context, dir string, sessions int) (string, error) {
	logf("building %d commits of %d sessions for blame", sessions*commitsPerSession, sessions)
	if err := b.gitIn("", "init", "-q", "-b", "main", dir); err != nil {
		return "", err
	}
	if err := b.gitIn(dir, "config", "gc.auto", "0"); err != nil {
		return "", err
	}
	hist := newCodeHistory(sessions)
	ids, err := b.fastImport(dir, hist)
	if err != nil {
		return "", err
	}
	s, err := gitsnap.Open(ctx, dir, gitsnap.Options{})
	if err != nil {
		return "", err
	}
	defer s.Close()
	scratch := filepath.Join(b.work, "blame-work")
	for i := range sessions {
		if err := b.blameSession(ctx, s, scratch, hist, ids, i); err != nil {
			return "", err
		}
	}
	if err := b.gitIn(dir, "reset", "-q", "--hard"); err != nil {
		return "", err
	}
	return hist.busiest(), nil
}

// codeCommit is one commit of the code's history: the file it changes
// and that file's content after it.
type codeCommit struct {
	session int
	person  bool
	path    string
	content string
}

// codeHistory is the code's history, oldest first, and each file's
// content as it grows.
type codeHistory struct {
	commits []codeCommit
	files   map[string][]string // lines
	changes map[string]int
}

func newCodeHistory(sessions int) *codeHistory {
	h := &codeHistory{files: map[string][]string{}, changes: map[string]int{}}
	for i := range blameFiles {
		path := fmt.Sprintf("pkg%02d/file%02d.go", i%6, i)
		h.files[path] = []string{fmt.Sprintf("package pkg%02d", i%6), "", "// A person started this file."}
	}
	for s := range sessions {
		for c := range commitsPerSession {
			n := s*commitsPerSession + c
			path := fmt.Sprintf("pkg%02d/file%02d.go", (n*7+s)%blameFiles%6, (n*7+s)%blameFiles)
			lines := h.files[path]
			person := c%personEvery == personEvery-1
			if person && len(lines) > 4 { // a person rewrites a line of the file
				k := 3 + n%(len(lines)-3)
				lines[k] = fmt.Sprintf("\t// changed by a person in commit %d", n)
			} else {
				lines = append(lines, "", fmt.Sprintf("// F%d is turn %d of session %d.", n, c, s), fmt.Sprintf("func F%d(x int) int {", n),
					fmt.Sprintf("\tif x > %d {", n%97), fmt.Sprintf("\t\treturn x - %d", n), "\t}", fmt.Sprintf("\treturn x + %d", n), "}")
			}
			h.files[path] = lines
			h.changes[path]++
			h.commits = append(h.commits, codeCommit{session: s, person: person, path: path, content: strings.Join(lines, "\n") + "\n"})
		}
	}
	return h
}

// busiest is the file most commits changed.
func (h *codeHistory) busiest() string {
	best := ""
	for p, n := range h.changes {
		if best == "" || n > h.changes[best] || n == h.changes[best] && p < best {
			best = p
		}
	}
	return best
}

// fastImport writes the history as commits on main, a first commit of
// every file's start before them, and returns the commits' ids, the
// first commit's at 0.
func (b *bench) fastImport(dir string, h *codeHistory) ([]string, error) {
	var in bytes.Buffer
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).Unix()
	commit := func(mark int, who, msg string, files map[string]string) {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\nauthor %s <%s@example.com> %d +0000\ncommitter %s <%s@example.com> %d +0000\ndata %d\n%s\n",
			mark, who, strings.ToLower(who), at, who, strings.ToLower(who), at, len(msg), msg)
		for p, c := range files {
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(c), c)
		}
		at += 60
	}
	start := map[string]string{}
	for p, lines := range newCodeHistory(0).files {
		start[p] = strings.Join(lines, "\n") + "\n"
	}
	commit(1, "Ada", "start", start)
	for i, c := range h.commits {
		who := map[bool]string{true: "Ada", false: "Agent"}[c.person]
		commit(i+2, who, fmt.Sprintf("commit %d of session %d", i, c.session), map[string]string{c.path: c.content})
	}
	marks := filepath.Join(b.work, "blame-marks")
	cmd := exec.Command("git", "fast-import", "--quiet", "--export-marks="+marks)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, b.env, &in
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git fast-import: %v\n%s", err, out)
	}
	f, err := os.Open(marks)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ids := make([]string, len(h.commits)+1)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var mark int
		var id string
		if _, err := fmt.Sscanf(sc.Text(), ":%d %s", &mark, &id); err == nil && mark >= 1 && mark <= len(ids) {
			ids[mark-1] = id
		}
	}
	return ids, sc.Err()
}

// blameSession records session i: for each of its commits an agent
// made, a turn whose Write of the file is captured, taken at the commit
// before it; then each commit marked on it.
func (b *bench) blameSession(ctx context.Context, s *gitsnap.Repository, scratch string, h *codeHistory, ids []string, i int) error {
	name := fmt.Sprintf("b%04d", i)
	a, err := agent.Lookup("claude-code", agent.Env{})
	if err != nil {
		return err
	}
	path := filepath.Join(b.work, "transcripts", "blame", name+".jsonl")
	t, err := newTranscript(s, scratch, path, name)
	if err != nil {
		return err
	}
	t.in = ingestIn(s, a, scratch)
	// A post-commit hook call marks the commit as the store does.
	marker, ok := s.Storage().(capture.Marker)
	if !ok {
		return fmt.Errorf("the store cannot mark commits")
	}
	for c := range commitsPerSession {
		n := i*commitsPerSession + c
		cc := h.commits[n]
		if !cc.person {
			if err := writeScratch(scratch, cc.path, cc.content); err != nil {
				return err
			}
			recs := writeTurn(name, n, filepath.Join(scratch, cc.path), cc.content)
			if err := appendLines(path, recs...); err != nil {
				return err
			}
			if _, _, err := t.in.Run(ctx, t.p, storage.SaveOptions{Code: ids[n]}); err != nil {
				return err
			}
		}
		if _, err := marker.Mark(ctx, storage.SaveOptions{Session: name, Label: "post-commit", Code: ids[n+1]}); err != nil {
			return err
		}
	}
	return nil
}

// ingestIn is the hook path with the files a turn writes captured from
// the work tree dir.
func ingestIn(s *gitsnap.Repository, a agent.Adapter, dir string) (in capture.Ingest) {
	in.Store, in.Adapter, in.MaxReadBytes, in.WorkTree, in.MaxFileBytes = s.Storage(), a, 1<<30, dir, 1<<20
	return in
}

func writeScratch(dir, path, content string) error {
	p := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o666)
}

// writeTurn is a Claude Code turn that writes a file: the prompt, the
// model's Write of it, its result and an answer.
func writeTurn(session string, n int, file, content string) [][]byte {
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute).Format(time.RFC3339)
	id := fmt.Sprintf("toolu_%d", n)
	recs := []map[string]any{
		{"type": "user", "message": map[string]any{"role": "user", "content": fmt.Sprintf("turn %d: write the next function", n)}},
		{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "role": "assistant", "model": "claude-sonnet-4",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Write", "input": map[string]any{"file_path": file, "content": content}}},
			"usage":   map[string]any{"input_tokens": 100, "output_tokens": 40}}},
		{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}},
	}
	out := make([][]byte, len(recs))
	for k, r := range recs {
		r["uuid"], r["sessionId"], r["timestamp"] = fmt.Sprintf("%s-%d-%d", session, n, k), session, at
		out[k], _ = json.Marshal(r)
	}
	return out
}

// lineCount counts the lines of a file of the work tree in dir.
func (b *bench) lineCount(dir, file string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, file))
	return bytes.Count(data, []byte("\n")), err
}
