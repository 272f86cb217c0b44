package refwatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// poller watches by polling. At each interval it stats packed-refs and
// every directory of the trees (modification time, size, file identity).
// A ref moves by a rename into its directory, and creating or removing a
// directory changes its parent, so every move changes a stat the poller
// reads. It keeps no file open between scans, so the number of refs does
// not count against the limit on open files.
type poller struct {
	*Watch
	common string
	trees  []string // absolute
	seen   map[string]stamped
	halt   chan struct{}
}

// stamped is what one scan found for a directory or for packed-refs.
type stamped struct {
	fi   os.FileInfo // nil: a stat too recent to trust (see racy)
	subs []string    // the subdirectories, as last listed
}

// racy is how recent a modification time in whole seconds (HFS+ keeps
// nothing finer) can be and still hide a move made later in the same
// second. A time that recent is treated as changed at the next scan too,
// as git treats a racily clean index. A time with nanoseconds is
// trusted.
const racy = 2 * time.Second

// startPolling starts a watch that scans every interval.
func startPolling(ctx context.Context, commonDir string, every time.Duration, trees []string) (*Watch, error) {
	common := filepath.Clean(commonDir)
	if fi, err := os.Stat(common); err != nil || !fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("not a directory")
		}
		return nil, fmt.Errorf("watch refs in %s: %w", common, err)
	}
	p := &poller{Watch: newWatch(), common: common, trees: absTrees(common, trees), halt: make(chan struct{})}
	p.stop = func() error {
		close(p.halt)
		return nil
	}
	p.scan()
	go p.run(ctx, every)
	return p.Watch, nil
}

func (p *poller) run(ctx context.Context, every time.Duration) {
	defer close(p.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.halt:
			return
		case <-t.C:
			if p.scan() {
				p.signal()
			}
		}
	}
}

// scan stats the files, lists again the directories whose stat changed,
// and reports whether anything changed since the last scan.
func (p *poller) scan() bool {
	now := time.Now()
	next := map[string]stamped{}
	p.stat(filepath.Join(p.common, "packed-refs"), false, now, next)
	for _, t := range p.trees {
		p.stat(t, true, now, next)
	}
	changed := len(next) != len(p.seen)
	for path, st := range next {
		if old, ok := p.seen[path]; !ok || !same(old.fi, st.fi) {
			changed = true
		}
	}
	p.seen = next
	return changed
}

// stat records path's stat in next and, for a directory, those of its
// subdirectories.
func (p *poller) stat(path string, dir bool, now time.Time, next map[string]stamped) {
	fi, err := os.Lstat(path)
	if err != nil || fi.IsDir() != dir {
		return // missing (for now), or not where refs are kept
	}
	st := stamped{fi: fi}
	old, ok := p.seen[path]
	switch {
	case !dir:
	case ok && same(old.fi, fi):
		st.subs = old.subs
	default:
		st.subs = subdirs(path)
	}
	if mt := fi.ModTime(); mt.Nanosecond() == 0 && now.Sub(mt) < racy {
		st.fi = nil // treated as changed at the next scan
	}
	next[path] = st
	for _, sub := range st.subs {
		p.stat(sub, true, now, next)
	}
}

// same reports whether two stats are of the same, unchanged file. A stat
// too recent to trust is never the same.
func same(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// subdirs lists the directories in dir, without following links.
func subdirs(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
