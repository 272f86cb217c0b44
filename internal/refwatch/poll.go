package refwatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// poller watches by looking: every so often it reads the stamps
// (modification time, size, file identity) of packed-refs and of every
// folder of the trees. A ref moves by a rename into its folder, and a
// folder made or removed changes the folder holding it, so every move
// changes a stamp it reads, and it holds no file open between looks: the
// number of refs does not count against the limit on open files.
type poller struct {
	*Watch
	common string
	trees  []string // absolute
	seen   map[string]stamped
	halt   chan struct{}
}

// stamped is what one look found of a folder or of packed-refs.
type stamped struct {
	fi   os.FileInfo // nil: a stamp too recent to trust (see look)
	subs []string    // the folders in a folder, as last listed
}

// racy is how recent a stamp of whole seconds (HFS+ keeps no finer
// ones) may be and still hide a move made after it within the same
// second: one that recent is taken as changed at the next look too, as
// git treats a racily clean index. A stamp with nanoseconds is trusted.
const racy = 2 * time.Second

// startPolling starts a watch that looks at stamps every interval.
func startPolling(ctx context.Context, commonDir string, every time.Duration, trees []string) (*Watch, error) {
	common := filepath.Clean(commonDir)
	if fi, err := os.Stat(common); err != nil || !fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("not a folder")
		}
		return nil, fmt.Errorf("watch refs in %s: %w", common, err)
	}
	p := &poller{Watch: newWatch(), common: common, trees: absTrees(common, trees), halt: make(chan struct{})}
	p.stop = func() error {
		close(p.halt)
		return nil
	}
	p.look()
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
			if p.look() {
				p.signal()
			}
		}
	}
}

// look reads the stamps, lists again the folders whose stamp changed,
// and reports whether any stamp changed since the last look.
func (p *poller) look() bool {
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

// stat records path's stamp in next, and, for a folder, its folders'.
func (p *poller) stat(path string, dir bool, now time.Time, next map[string]stamped) {
	fi, err := os.Lstat(path)
	if err != nil || fi.IsDir() != dir {
		return // not there (yet), or not what refs are kept in
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
		st.fi = nil // taken as changed at the next look
	}
	next[path] = st
	for _, sub := range st.subs {
		p.stat(sub, true, now, next)
	}
}

// same tells whether two stamps are of the same file, unchanged; a
// stamp too recent to trust is never the same.
func same(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// subdirs lists the folders in dir; links are not followed.
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
