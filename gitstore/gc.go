package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-snap/git-snap/gitstore/internal/pack"
	"github.com/git-snap/git-snap/internal/safefile"
)

// Delta settings of the pack GC writes. Every snapshot of a session
// rewrites its newest chunk tree and snapshot.json, so their versions are
// many and alike: the window has to reach back over them. Measured at
// real hook cadence on 24 sessions of the real 3 MB transcript, each with
// its own text (pack over gzip -9 of the transcripts; objects named by
// session and kind, see packnames.go): window 250 1.23× in 42 s, 500
// 1.22× in 111 s, 1000 1.21× in 223 s; on one such session, 250 1.28×
// and 1000 1.25×. Named by path, as git names them, 250 gave 1.52× and
// 1000 1.26× on one session, and 1000 1.95× on the 24. Depth beyond 50
// gains nothing there; chains as deep as git's default keep reads quick,
// and windowMemory bounds what the wide window may hold.
const (
	DefaultPackWindow = 250
	DefaultPackDepth  = 50
	windowMemory      = "256m"
)

// GCOptions tune GC.
type GCOptions struct {
	// Window and Depth are git pack-objects' delta window and depth for
	// git-snap's objects; zero means DefaultPackWindow, DefaultPackDepth.
	Window, Depth int
}

// GC packs git-snap's objects and lets git collect the rest:
//
//   - temporary files killed writers left are removed (removeStaleTemp);
//   - every object reachable from sessions and checkpoints is written by
//     git pack-objects into a pack of its own, its deltas computed anew
//     with a wide window among objects of the same session and kind
//     (packnames.go), so that snapshots that share most of their
//     content store it once;
//   - git prune-packed then removes the loose copies, and a pack every
//     object of which the new pack holds is removed: nothing is deleted
//     that is not in the new pack, so whatever git's reflogs, index or
//     other refs hold stays;
//   - git gc --auto does the rest, as git would.
//
// The new pack is kept (a .keep file GC marks as its own): git gc and
// git repack, --aggressive or not, leave a kept pack as it is, where
// git gc --aggressive packed the snapshots again with their objects
// named by path (1.59× gzip of one session's transcript, not 1.28×). The next GC lets the pack
// before go: its keep is removed, and the pack with it once the new one
// holds all of it; else git gc collects what no ref reaches any more.
func (s *Store) GC(ctx context.Context, o GCOptions) error {
	s.removeStaleTemp(s.opts.Now().Add(-staleTempAge))
	if o.Window <= 0 {
		o.Window = DefaultPackWindow
	}
	if o.Depth <= 0 {
		o.Depth = DefaultPackDepth
	}
	// Two GCs at once could each release the other's keep, and then
	// each remove the other's pack as covered by its own: with the
	// loose copies pruned, nothing would hold the snapshots. The second
	// waits (a lock left by a killed GC is removed).
	err := s.refs.Hold(ctx, filepath.Join(s.paths.CommonDir, "snap", "gc"), func() error {
		return s.packSnapObjects(ctx, o)
	})
	if err != nil {
		return err
	}
	return s.runGit(ctx, nil, "gc", "--auto")
}

// packSnapObjects writes the pack of git-snap's objects and removes what
// it makes redundant.
func (s *Store) packSnapObjects(ctx context.Context, o GCOptions) error {
	var tips bytes.Buffer
	for _, prefix := range []string{s.prefix, CheckpointPrefix, TagPrefix, MovedPrefix} {
		refs, err := s.refs.List(prefix)
		if err != nil {
			return err
		}
		for _, h := range refs {
			tips.WriteString(h.String() + "\n")
		}
	}
	if tips.Len() == 0 {
		return nil
	}
	git, err := gitBinary("gc")
	if err != nil {
		return err
	}
	packDir := filepath.Join(s.paths.CommonDir, "objects", "pack")
	if err := os.MkdirAll(packDir, 0o777); err != nil {
		return err
	}
	out, err := s.packObjects(ctx, git, tips.Bytes(), filepath.Join(packDir, "pack"), o)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(string(out))
	if len(name) != 40 || !isHex(name) {
		return fmt.Errorf("git pack-objects: unexpected output %q", out)
	}
	base := filepath.Join(packDir, "pack-"+name)
	if err := writeKeep(base + ".keep"); err != nil {
		return fmt.Errorf("keep the snapshots' pack: %w", err)
	}
	releaseOwnKeeps(packDir, base+".keep")
	if err := s.runGit(ctx, nil, "prune-packed", "-q"); err != nil {
		return err
	}
	s.removeCoveredPacks(base + ".idx")
	s.st.reload()
	return nil
}

// packObjects runs git pack-objects on the objects the tips reach, in a
// pack at base, named as writePackList names them, and returns what it
// printed (the pack's name).
func (s *Store) packObjects(ctx context.Context, git string, tips []byte, base string, o GCOptions) ([]byte, error) {
	lines, err := historyLines(ctx, git, s.paths.CommonDir, tips)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	list, w := io.Pipe()
	listed := make(chan error, 1)
	go func() {
		err := writePackList(ctx, git, s.paths.CommonDir, tips, lines, w)
		if err != nil {
			cancel() // no pack of part of the list
		}
		w.CloseWithError(err)
		listed <- err
	}()
	cmd := exec.CommandContext(ctx, git, "--git-dir="+s.paths.CommonDir, "pack-objects", "--no-reuse-delta", "--delta-base-offset",
		"--window="+strconv.Itoa(o.Window), "--depth="+strconv.Itoa(o.Depth), "--window-memory="+windowMemory, "-q", base)
	cmd.Stdin = list
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	list.Close() // the list stops if git did first
	if lerr := <-listed; lerr != nil && !errors.Is(lerr, io.ErrClosedPipe) {
		return nil, fmt.Errorf("list the objects to pack: %w", lerr)
	}
	if err != nil {
		return nil, fmt.Errorf("git pack-objects: %v\n%s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// removeCoveredPacks removes the packs whose every object the pack of
// index newIdx holds, except packs git was told to keep (.keep). A pack
// that cannot be read is left alone.
func (s *Store) removeCoveredPacks(newIdx string) {
	idxs, _ := filepath.Glob(filepath.Join(filepath.Dir(newIdx), "pack-*.idx"))
	for _, idx := range idxs {
		base := strings.TrimSuffix(idx, ".idx")
		if idx == newIdx || exists(base+".keep") || exists(base+".promisor") {
			continue
		}
		if covered, err := pack.Covers(newIdx, idx); err != nil || !covered {
			continue
		}
		// The index goes last: a reader lists packs by their indexes.
		for _, ext := range []string{".pack", ".rev", ".bitmap", ".mtimes", ".idx"} {
			_ = os.Remove(base + ext) // one that is not there is as good
		}
	}
}

// keepMark is what GC writes in the .keep of the pack it makes; git
// writes its own reason in the keeps it makes, and a keep by anyone
// else is never removed.
const keepMark = "git-snap gc: the snapshots' pack (git snap gc makes it again)\n"

// releaseOwnKeeps removes the keeps GC wrote before, but keep.
func releaseOwnKeeps(packDir, keep string) {
	keeps, _ := filepath.Glob(filepath.Join(packDir, "pack-*.keep"))
	for _, k := range keeps {
		if k != keep && isOwnKeep(k) {
			_ = os.Remove(k)
		}
	}
}

// writeKeep keeps a pack with GC's mark, unless it is kept already: a
// keep someone else wrote for the same pack (the same objects make the
// same pack) stays theirs, neither overwritten nor released later, and a
// link there is never followed.
func writeKeep(keep string) error {
	f, err := os.OpenFile(keep, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(keepMark); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// isOwnKeep tells a keep GC wrote: a regular file (a FIFO would block,
// a link to a device never end) holding GC's mark and nothing more.
func isOwnKeep(keep string) bool {
	f, err := safefile.Open(keep)
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(len(keepMark))+1))
	return err == nil && string(b) == keepMark
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
