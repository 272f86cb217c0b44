package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/gitstore/internal/layout"
	"github.com/git-snap/git-snap/storage"
)

// GC gives git pack-objects the list of objects to pack itself, each
// with a name of its choosing, rather than let it walk the tips (--revs)
// and name each object by its path. pack-objects looks for a delta base
// among the objects sorted by a hash of their names' last characters,
// then by size: named by path, message 127 of every session, every
// session's snapshot.json and every session's newest chunk tree sort
// together, and a window of 1,000 objects spans a few dozen sessions
// whose text shares nothing. Measured at real hook cadence on 8 sessions
// of the real 3 MB transcript, each with its own text: 1.70× gzip -9 of
// the transcripts named by path, 1.21× named by session and kind, where
// one session alone packs to 1.32×. So an object is named by the kind of
// path it is at (its digits left out: every message blob is of one
// kind, every chunk tree of another) and by the line of history that
// first reaches it; a captured file keeps its path, since the same file
// in another session is a good base.

// historyLines numbers the lines of history the tips reach: a commit
// has the number of a child of its, so each session's snapshots share
// one.
func historyLines(ctx context.Context, git, gitDir string, tips []byte) (map[storage.ID]int32, error) {
	lines := map[storage.ID]int32{}
	next := int32(0)
	err := eachLine(ctx, git, gitDir, tips, []string{"rev-list", "--topo-order", "--parents", "--stdin"}, func(line string) error {
		f := strings.Fields(line)
		if len(f) == 0 || !storage.IsID(f[0]) {
			return fmt.Errorf("git rev-list: unexpected line %q", line)
		}
		c := storage.NewID(f[0])
		n, ok := lines[c]
		if !ok { // a tip, or a commit only a tip's tag reaches
			n, next = next, next+1
			lines[c] = n
		}
		for _, p := range f[1:] {
			if _, ok := lines[storage.NewID(p)]; !ok {
				lines[storage.NewID(p)] = n
			}
		}
		return nil
	})
	return lines, err
}

// writePackList writes to w the objects the tips reach, as git
// pack-objects reads them without --revs: a commit alone, any other
// object with its name (packName).
func writePackList(ctx context.Context, git, gitDir string, tips []byte, lines map[storage.ID]int32, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	line := int32(0)
	err := eachLine(ctx, git, gitDir, tips, []string{"rev-list", "--objects", "--topo-order", "--in-commit-order", "--stdin"}, func(l string) error {
		id, path, named := strings.Cut(l, " ")
		if !named { // a commit: the objects after it are first reached from it
			line = lines[storage.NewID(id)]
			_, err := bw.WriteString(l + "\n")
			return err
		}
		_, err := bw.WriteString(id + " " + packName(path, line) + "\n")
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// packName is the name pack-objects sorts an object at path by, first
// reached from line of history line (see writePackList).
func packName(path string, line int32) string {
	if strings.HasPrefix(path, layout.FilesDir+"/") {
		return path
	}
	kind := strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return -1
		}
		return r
	}, path)
	return kind + "/" + strconv.FormatInt(int64(line), 36)
}

// eachLine runs git with stdin and calls f on each line it writes.
func eachLine(ctx context.Context, git, gitDir string, stdin []byte, args []string, f func(string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // git is killed when f fails
	cmd := exec.CommandContext(ctx, git, append([]string{"--git-dir=" + gitDir}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git %s: %w", args[0], err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if err := f(sc.Text()); err != nil {
			cancel()
			_ = cmd.Wait()
			return err
		}
	}
	scanErr := sc.Err()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git %s: %v\n%s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	if scanErr != nil {
		return fmt.Errorf("git %s: %w", args[0], scanErr)
	}
	return nil
}
