package provenance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/git-snap/git-snap/gitstore"
	"github.com/git-snap/git-snap/storage"
)

// Git runs git on the code's repository.
type Git struct {
	Dir    string // where git runs: the work tree, or the git dir of one without
	GitDir string // passed as --git-dir when set: a repository with no work tree
}

// InputError is a question provenance cannot answer as asked: a path
// outside the repository or not in the revision, a binary file, a
// revision that names no commit. The user's input is what to change.
type InputError struct{ Msg string }

// Error says what is wrong and what to do.
func (e *InputError) Error() string { return e.Msg }

// UserError marks it as the caller's to correct (exit status 2).
func (e *InputError) UserError() {}

func (g Git) command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], gitstore.ErrNoGit)
	}
	if g.GitDir != "" {
		args = append([]string{"--git-dir=" + g.GitDir}, args...)
	}
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = g.Dir
	return cmd, nil
}

// output runs git and returns what it printed; the error holds what it
// said on stderr.
func (g Git) output(ctx context.Context, args ...string) ([]byte, error) {
	cmd, err := g.command(ctx, args...)
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &gitError{args: args, err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return out, nil
}

// gitError is git's failure with what it said.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", e.args[0], e.err, e.stderr)
}

func (e *gitError) Unwrap() error { return e.err }

// commit resolves rev to a commit id; a revision that names none is an
// InputError.
func (g Git) commit(ctx context.Context, rev string) (storage.ID, error) {
	if strings.HasPrefix(rev, "-") {
		return storage.ID{}, &InputError{fmt.Sprintf("%q is not a revision", rev)}
	}
	out, err := g.output(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return storage.ID{}, ctx.Err()
		}
		return storage.ID{}, &InputError{fmt.Sprintf("revision %s names no commit of this repository", rev)}
	}
	return storage.NewID(strings.TrimSpace(string(out))), nil
}

// blamed is one line as git blame --porcelain tells it.
type blamed struct {
	Commit   storage.ID
	OrigLine int
	Line     int
	OrigPath string
	Text     string
}

// commitInfo is what git blame says of a commit.
type commitInfo struct {
	Author    string
	Time      time.Time // the author's
	Committed time.Time
	Summary   string
}

// blame runs git blame --porcelain on path at rev (or, with base, over
// base..rev) and reads its answer.
func (g Git) blame(ctx context.Context, rev, base, path string, ranges []string) ([]blamed, map[storage.ID]*commitInfo, error) {
	args := []string{"blame", "--porcelain"}
	for _, r := range ranges {
		args = append(args, "-L", r)
	}
	if base != "" {
		rev = base + ".." + rev
	}
	args = append(args, rev, "--", path)
	cmd, err := g.command(ctx, args...)
	if err != nil {
		return nil, nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	lines, commits, perr := parsePorcelain(bufio.NewReaderSize(out, 64<<10))
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return nil, nil, blameError(path, rev, stderr.String(), err)
	}
	if perr != nil {
		return nil, nil, fmt.Errorf("read git blame's answer for %s: %w", path, perr)
	}
	return lines, commits, nil
}

// blameError says why git blame failed in the user's terms where it was
// the input: a path the revision does not have, a bad -L.
func blameError(path, rev, stderr string, err error) error {
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr), "fatal: "))
	switch {
	case strings.Contains(msg, "no such path"):
		return &InputError{fmt.Sprintf("%s is not in %s: give a file the revision holds", path, rev)}
	case strings.Contains(msg, "has only") || strings.Contains(msg, "invalid -L") || strings.Contains(msg, "-L"):
		return &InputError{fmt.Sprintf("-L: %s", msg)}
	case strings.Contains(msg, "bad revision") || strings.Contains(msg, "unknown revision"):
		return &InputError{fmt.Sprintf("revision %s names no commit of this repository", rev)}
	}
	return fmt.Errorf("git blame %s: %w: %s", path, err, msg)
}

// parsePorcelain reads git blame --porcelain: for each line a header
// "COMMIT ORIG FINAL [COUNT]", the commit's details the first time it
// comes (author, times, summary, filename), and the line after a tab.
func parsePorcelain(r *bufio.Reader) ([]blamed, map[storage.ID]*commitInfo, error) {
	commits := map[storage.ID]*commitInfo{}
	files := map[storage.ID]string{}
	var out []blamed
	var cur blamed
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return out, commits, nil
		}
		if err != nil && err != io.EOF {
			return nil, nil, err
		}
		line = strings.TrimSuffix(line, "\n")
		if text, ok := strings.CutPrefix(line, "\t"); ok {
			cur.Text = text
			if cur.OrigPath == "" {
				cur.OrigPath = files[cur.Commit]
			}
			out = append(out, cur)
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		if storage.IsID(key) {
			f := strings.Fields(val)
			if len(f) < 2 {
				return nil, nil, fmt.Errorf("line %q", line)
			}
			cur = blamed{Commit: storage.NewID(key)}
			cur.OrigLine, _ = strconv.Atoi(f[0])
			cur.Line, _ = strconv.Atoi(f[1])
			if commits[cur.Commit] == nil {
				commits[cur.Commit] = &commitInfo{}
			}
			continue
		}
		c := commits[cur.Commit]
		if c == nil {
			return nil, nil, fmt.Errorf("line %q before any commit", line)
		}
		switch key {
		case "author":
			c.Author = val
		case "author-time":
			c.Time = unixTime(val)
		case "committer-time":
			c.Committed = unixTime(val)
		case "summary":
			c.Summary = val
		case "filename":
			files[cur.Commit], cur.OrigPath = val, val
		}
	}
}

func unixTime(s string) time.Time {
	n, _ := strconv.ParseInt(s, 10, 64)
	return time.Unix(n, 0).UTC()
}
