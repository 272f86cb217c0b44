//go:build unix

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-snap/git-snap/agent"
	"github.com/git-snap/git-snap/internal/testdocs"
	"github.com/git-snap/git-snap/snapshot"
)

// cadence is where the hook runs on a transcript at the pace Claude
// Code calls the hooks git snap install sets: when a prompt is
// submitted (seeing the transcript up to just before it), after each
// tool call (PostToolUse, seeing its result), and when the session
// stops; not after every record. It returns the line counts the hook
// sees.
func cadence(lines [][]byte) []int {
	a, _ := agent.Lookup("claude-code", agent.Env{})
	var at []int
	for i, l := range lines {
		v, err := snapshot.Parse(l, snapshot.Limits{})
		if err != nil {
			continue
		}
		if i > 0 && a.IsPrompt(v) {
			at = append(at, i)
		}
		for _, p := range agent.ViewMessage(v).Parts {
			if p.Kind == snapshot.PartToolResult {
				at = append(at, i+1)
				break
			}
		}
	}
	return append(at, len(lines))
}

// storage runs the real hook on the longest real transcript at hook
// cadence, then measures the repository's objects after git snap gc,
// after a plain git gc on top of it, and after a plain git gc alone (on
// a copy), against the gzip of the final transcript.
func (b *bench) storage(context.Context) ([]row, error) {
	longest, err := testdocs.Longest()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(b.work, "storage")
	for _, args := range [][]string{{"init", "-q", "-b", "main", dir}, {"-C", dir, "config", "gc.auto", "0"}} {
		if err := b.gitIn("", args...); err != nil {
			return nil, err
		}
	}
	at := cadence(longest.Lines)
	logf("storage: %s, %d records, the hook run %d times", longest.Name, len(longest.Lines), len(at))
	if err := b.hookAtCadence(dir, "cadence", filepath.Join(b.work, "storage-transcript.jsonl"), longest.Lines, at); err != nil {
		return nil, err
	}
	gz, err := gzipSize(longest.Lines)
	if err != nil {
		return nil, err
	}
	plain := filepath.Join(b.work, "storage-plain")
	if err := b.gitIn("", "clone", "-q", "--mirror", "--no-local", dir, plain); err != nil {
		return nil, err
	}
	loose := objectBytes(filepath.Join(dir, ".git", "objects"))
	steps := []struct {
		what string
		dir  string
		args []string
	}{
		{"git gc alone", plain, []string{"git", "gc", "-q"}},
		{"git snap gc", dir, []string{b.bin, "gc"}},
		{"git snap gc, then git gc", dir, []string{"git", "gc", "-q"}},
		{"git snap gc, then git gc --aggressive", dir, []string{"git", "gc", "-q", "--aggressive"}},
	}
	rows := []row{{what: fmt.Sprintf("storage, %d hook calls on %d records, loose", len(at), len(longest.Lines)), phase: "before gc",
		oursText: ratioText(loose, gz), ratio: float64(loose) / float64(gz), baseline: "gzip of the transcript"}}
	for _, st := range steps {
		if _, err := b.timedIn(st.dir, st.args...); err != nil {
			return nil, err
		}
		objDir := filepath.Join(st.dir, ".git", "objects")
		if st.dir == plain {
			objDir = filepath.Join(st.dir, "objects")
		}
		n := objectBytes(objDir)
		r := row{what: fmt.Sprintf("storage at hook cadence, after %s", st.what), phase: "after gc", oursText: ratioText(n, gz),
			ratio: float64(n) / float64(gz), baseline: "gzip of the transcript"}
		if strings.HasPrefix(st.what, "git snap gc") {
			r.kind = kindStorage
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// ownTextSessions is how many sessions the storage rows of sessions
// with their own text hook; with -quick, quickOwnTextSessions.
const (
	ownTextSessions      = 24
	quickOwnTextSessions = 8
)

// storageOwnText runs the real hook at real cadence on sessions of the
// real 3 MB transcript's size, each with its own text (ownText), in one
// repository, then measures its objects before and after git snap gc
// against gzip -9 of each final transcript. Copies of one session would
// measure git's deltas between copies, which real sessions do not have.
func (b *bench) storageOwnText(context.Context) ([]row, error) {
	longest, err := testdocs.Longest()
	if err != nil {
		return nil, err
	}
	n := map[bool]int{true: quickOwnTextSessions, false: ownTextSessions}[b.cfg.quick]
	dir := filepath.Join(b.work, "storage-own")
	for _, args := range [][]string{{"init", "-q", "-b", "main", dir}, {"-C", dir, "config", "gc.auto", "0"}} {
		if err := b.gitIn("", args...); err != nil {
			return nil, err
		}
	}
	at := cadence(longest.Lines)
	logf("storage: %d sessions of %d records with their own text, the hook run %d times each", n, len(longest.Lines), len(at))
	var gz, raw int64
	for i := range n {
		lines := ownText(longest.Lines, uint64(i+1))
		size, err := gzipLevel(lines, gzip.BestCompression)
		if err != nil {
			return nil, err
		}
		gz += size
		for _, l := range lines {
			raw += int64(len(l)) + 1
		}
		path := filepath.Join(b.work, fmt.Sprintf("storage-own-%02d.jsonl", i))
		if err := b.hookAtCadence(dir, fmt.Sprintf("own-%02d", i), path, lines, at); err != nil {
			return nil, err
		}
	}
	what := fmt.Sprintf("storage of %d sessions with their own text (%.1f MB of transcripts), %d hook calls each", n, float64(raw)/1e6, len(at))
	base := "gzip -9 of each transcript"
	loose := objectBytes(filepath.Join(dir, ".git", "objects"))
	rows := []row{{what: what + ", loose", phase: "before gc", oursText: sessionsText(loose, gz, n), ratio: float64(loose) / float64(gz), baseline: base}}
	if _, err := b.timedIn(dir, b.bin, "gc"); err != nil {
		return nil, err
	}
	packed := objectBytes(filepath.Join(dir, ".git", "objects"))
	return append(rows, row{what: what + ", after git snap gc", phase: "after gc", oursText: sessionsText(packed, gz, n),
		ratio: float64(packed) / float64(gz), baseline: base, kind: kindStorageOwn}), nil
}

// sessionsText is n sessions' size against their gzip, and per session.
func sessionsText(size, gz int64, n int) string {
	return fmt.Sprintf("%s; %.2f MiB a session", ratioText(size, gz), float64(size)/float64(n)/(1<<20))
}

// hookAtCadence runs the hook in dir on a transcript at path as it
// grows to each line count of at, as session.
func (b *bench) hookAtCadence(dir, session, path string, lines [][]byte, at []int) error {
	payload, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": path, "cwd": dir, "hook_event_name": "UserPromptSubmit"})
	for _, n := range at {
		if err := os.WriteFile(path, append(bytes.Join(lines[:n], []byte("\n")), '\n'), 0o666); err != nil {
			return err
		}
		hook := b.hookArgs("claude-code")
		cmd := exec.Command(hook[0], hook[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, b.env, bytes.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("hook: %v %s", err, out)
		}
	}
	return hookFailed(dir)
}

func ratioText(n, gz int64) string {
	return fmt.Sprintf("%.2f MiB = %.2f × gzip (%.2f MiB)", float64(n)/(1<<20), float64(n)/float64(gz), float64(gz)/(1<<20))
}

// gzipSize is the size of the transcript gzipped at the default level.
func gzipSize(lines [][]byte) (int64, error) { return gzipLevel(lines, gzip.DefaultCompression) }

// gzipLevel is the size of the transcript gzipped at a level.
func gzipLevel(lines [][]byte, level int) (int64, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, level)
	if err != nil {
		return 0, err
	}
	if _, err := zw.Write(append(bytes.Join(lines, []byte("\n")), '\n')); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return int64(gz.Len()), nil
}

// objectBytes adds up the sizes of a repository's packs and loose
// objects (the indexes, which git rebuilds, are left out).
func objectBytes(objects string) int64 {
	var n int64
	_ = filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(objects, p)
		if strings.HasSuffix(p, ".pack") || (len(rel) == 41 && rel[2] == '/') {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
